"""What the buyer's pages say about a message the rules did not let through, in the
participant's words: never the blocked text as if it were said, never a rule's
technical reason.

The orchestrator's rationales are for agents and logs ("Human spoke 1.234 s after the
previous human utterance; at least 5 s must pass", "Celia must present its secret
token ..."). The person reads a plain notice instead: about their own message, what to
do; about a seller's, only that it was held back; about a message that could not prove
its sender, that it was refused, and nothing of its text.

>>> plain_notice("Human", "Human spoke 1.200 s after the previous human utterance; ...")
'Not sent: please wait 5 seconds between two of your messages, then try again.'
>>> plain_notice("Celia", "Agent speaking twice since the most recent human utterance")
'A message from Celia was held back by the rules of the game.'
>>> plain_notice("Celia", "Celia must present its secret token (X-Accord-Token ...)")
'A message claiming to come from Celia was refused: it could not show who sent it.'
"""

from __future__ import annotations

from typing import Any

__all__ = ["plain_notice", "shown"]

_FORGED = ("must present its secret", "is not a speaker", "Unknown speaker", "is registered as")
_HUMAN = (
    (
        "Human spoke",
        "Not sent: please wait 5 seconds between two of your messages, then try again.",
    ),
    ("Insufficient budget", "Not sent: that would spend more than the money you have left."),
    ("No standing offer", "Not sent: that seller has no offer standing for you to accept."),
    (
        "Not the standing offer",
        "Not sent: that is not the offer the seller made; accept it as offered.",
    ),
    ("A human Accept must be addressed", "Not sent: say which seller you accept from."),
    ("round not active", "Not sent: the negotiation is not running now."),
    ("Failed", "Not sent: the negotiation is not running now."),
    ("invalid message", "Not sent: the message could not be read; please type it again."),
)


def plain_notice(speaker: str, rationale: str | None, human: str = "Human") -> str:
    """The participant's words for a message from ``speaker`` that was not let through
    (``rationale``: the orchestrator's reason)."""
    why = rationale or ""
    if any(mark in why for mark in _FORGED):
        if speaker == human:
            return "Not sent: this page is not signed in as the buyer; open your link again."
        return f"A message claiming to come from {speaker or 'someone'} was refused: it could not show who sent it."
    if speaker == human:
        for mark, notice in _HUMAN:
            if mark in why:
                return notice
        return "Not sent: the rules of the game did not allow this message."
    if why.startswith("Deal declined"):
        return f"No deal with {speaker}: you declined it, and your money is back."
    if why.startswith("Deal not confirmed"):
        return f"No deal with {speaker}: it was not confirmed in time, and your money is back."
    if why.startswith(("No standing buyer offer", "Not the buyer's standing offer")):
        return f"{speaker} tried to accept an offer you did not make; nothing was bought."
    return f"A message from {speaker} was held back by the rules of the game."


def shown(entry: dict[str, Any]) -> dict[str, Any]:
    """A transcript line as the participant's pages get it: a blocked line carries a
    ``notice``; a seller's or a forged line loses its text and bid (it was never said).

    >>> shown({"speaker": "Celia", "text": "<b>pay me</b>", "permitted": False,
    ...        "rationale": "Agent speaking twice", "bid": {"type": "Accept"}})["text"]
    ''
    """
    if entry.get("permitted") is not False:
        return entry
    speaker = str(entry.get("speaker") or "")
    notice = plain_notice(speaker, entry.get("rationale"))
    out = entry | {"notice": notice, "rationale": None}
    if speaker != "Human" or notice.startswith("Not sent: this page"):
        out |= {"text": "", "bid": None, "behavior": None}
    return out
