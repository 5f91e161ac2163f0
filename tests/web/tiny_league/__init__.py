"""A tiny league-agnostic study for the web layer's tests: the ultimatum game.

The participant splits 100 points with an agent; the agent of the round's condition
accepts any offer giving it at least ``params["threshold"]`` points. The agent's answer
reaches the page over the live channel (``reply`` event) and also in the POST's reply.
Each answered offer ends the round.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from accord.web.study import Condition, Consent, Study, StudyDesign, create_study_app

PAGES = Path(__file__).resolve().parent / "static"

DESIGN = StudyDesign(
    id="ultimatum-pilot",
    title="Ultimatum pilot",
    conditions=[
        Condition(name="greedy", params={"threshold": 60}),
        Condition(name="fair", params={"threshold": 40}),
    ],
    rounds=2,
    consent=Consent(text="We record your offers.\n\nYou may stop at any time.", version="2"),
)


class OfferIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    give: int = Field(ge=0, le=100)


class Ultimatum:
    """The league's service: maps HTTP onto its (one-line) rules."""

    def __init__(self, study: Study) -> None:
        self.study = study

    def answer(self, pid: str, give: int) -> dict[str, Any]:
        # the round's condition is read before the offer is logged: the page may end the
        # round itself at the same moment (page_writes), and a view read after that has
        # the next round's condition, or none
        view = self.study.view(pid)
        self.study.record(pid, "offer", {"give": give})  # refused unless playing
        accepted = give >= int(view.params["threshold"])
        reply = {"give": give, "accepted": accepted, "round": view.round}
        self.study.record(pid, "reply", reply)
        self.study.notify(pid, "reply", reply)
        self.study.complete(pid, {"give": give, "accepted": accepted})
        return reply

    def router(self) -> APIRouter:
        r = APIRouter(prefix="/api/ultimatum", tags=["ultimatum"])
        participant = Depends(self.study.auth.participant)

        @r.post("/offer")
        def offer(body: OfferIn, pid: str = participant) -> dict[str, Any]:
            return self.answer(pid, body.give)

        return r


def make_app(study: Study) -> Any:
    return create_study_app(study, Ultimatum(study), pages={"/": str(PAGES)})
