"""Helpers of the immersive tests: scripted sellers that gesture and use SSML.

Celia answers the buyer when addressed (or when nobody is): an offer with a smile and a
wave, an Accept of her standing offer (with a nod) when the buyer says "accept". Watson
waits for Celia's permitted offer, then undercuts it with a shrug while thinking; right
after, he tries to speak again (R3: speaking twice), which the orchestrator blocks: that
message must never be spoken nor shown.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from hui_kit import Seller

CELIA_SSML = (
    '<speak>I can do <emphasis level="strong">two eggs and two cups of flour</emphasis>'
    '<break time="200ms"/> for four dollars.</speak>'
)
WATSON_TEXT = "Hmm, I will sell you two eggs and two cups of flour for three eighty."
WATSON_BLOCKED = "And one more thing nobody may hear."
OFFER = {"egg": 2, "flour": 2}
HUMAN_GAP = 0.5
"""R0's gap in these tests (the spec's 5 s would only make them slower)."""


def speech_missing() -> str | None:
    """Why the speech tests cannot run here (espeak-ng, pocketsphinx), or None."""
    try:
        from accord.leagues.humaine import speech
    except ImportError as e:
        return f"accord.leagues.humaine.speech cannot be imported: {e}"
    reason: str | None = speech.speech_available() or speech.transcription_available()
    return reason


def gesturing_seller(name: str, orchestrator: str) -> FastAPI:
    """A seller service (named ``name``) following the script above."""
    seller = Seller(name, orchestrator)
    app = seller.app
    state: dict[str, Any] = {"offer": None, "human_to": None}
    later = seller.send

    def message(rid: Any, text: str, bid: dict[str, Any], behavior: Any) -> dict[str, Any]:
        return {"roundId": rid, "speaker": name, "addressee": "Human", "role": "seller",
                "text": text, "bid": bid, "behavior": behavior}  # fmt: skip

    @app.post("/receiveMessage")
    async def receive(body: dict[str, Any]) -> dict[str, Any]:
        rid, speaker = body.get("roundId"), body.get("speaker")
        to = body.get("addressee") or ""
        if speaker == "Human":
            state["human_to"] = to
            if name == "Celia" and to in ("", "Celia"):
                if "accept" in str(body.get("text", "")).lower() and state["offer"]:
                    bid = {**state["offer"], "type": "Accept"}
                    later(message(rid, "Deal! It is yours.", bid, ["nod", "smile"]), 0.3)
                else:
                    bid = {"type": "SellOffer", "quantity": OFFER,
                           "price": {"unit": "USD", "value": 4.0}}  # fmt: skip
                    state["offer"] = bid
                    later(message(rid, CELIA_SSML, bid, ["smile", "wave"]), 0.3)
        elif (
            speaker == "Celia"
            and name == "Watson"
            and state["human_to"] != "Watson"
            and "Deal" not in str(body.get("text", ""))
        ):
            bid = {"type": "SellOffer", "quantity": OFFER, "price": {"unit": "USD", "value": 3.8}}
            later(message(rid, WATSON_TEXT, bid, {"gesture": ["thinking", "shrug"]}), 0.3)
            later(message(rid, WATSON_BLOCKED, bid, "wave"), 0.9)
        return {"status": "Acknowledged", "interpretation": body}

    return app
