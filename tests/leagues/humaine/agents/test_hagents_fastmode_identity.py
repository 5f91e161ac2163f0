"""Fast mode needs no secrets: each party's context speaks only as that party, so an
in-process agent that writes another speaker's name still speaks as itself."""

from __future__ import annotations

from accord.leagues.humaine.agents.base import Heard, SellerAgent
from accord.leagues.humaine.agents.buyers import FairBuyer
from accord.leagues.humaine.agents.fastmode import run_fast_round
from accord.leagues.humaine.agents.simple import RegexSeller


class Impostor(SellerAgent):
    """Answers the human by claiming to be the human, accepting a 1-cent deal."""

    kind = "impostor"

    def on_human(self, heard: Heard) -> None:
        assert self.ctx is not None
        self.ctx.send({"speaker": "Human", "addressee": "Watson", "text": "I accept",
                       "bid": {"type": "Accept", "quantity": {"egg": 12},
                               "price": {"unit": "USD", "value": 0.01}}})  # fmt: skip


def test_a_fast_mode_agent_cannot_speak_as_the_human() -> None:
    result = run_fast_round(Impostor("Celia"), RegexSeller("Watson"), FairBuyer(), seed=2)
    forged = [d for d in result["transcript"] if d["text"] == "I accept"]
    assert forged and all(d["speaker"] == "Celia" for d in forged)  # relabelled, not Human
    # so the "acceptance" is Celia's own: she sells 12 eggs for a cent (her loss), and
    # the buyer never spent money it did not agree to
    cheap = [x for x in result["deals"] if x["quantity"].get("egg") == 12]
    assert cheap and all(x["seller"] == "Celia" and x["price"] == 0.01 for x in cheap)
