"""Studies: an experiment with a design, participants, links, consent, progress, CSV.

    >>> from accord.web.study import Condition, StudyDesign
    >>> StudyDesign(id="pilot", title="Pilot", conditions=[Condition(name="a")]).rounds
    1

See :mod:`accord.web.study.service` for the participant's way through a study and
``docs/web-layer.md`` for a worked example.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from accord.web.app import Service, create_app
from accord.web.study.design import Condition, Consent, StudyDesign
from accord.web.study.service import PAGES, STATIC, Invite, ParticipantView, Study
from accord.web.study.store import Participant, Status, StudyStore

__all__ = [
    "Condition",
    "Consent",
    "Invite",
    "Participant",
    "ParticipantView",
    "Status",
    "Study",
    "StudyDesign",
    "StudyStore",
    "create_study_app",
]


def create_study_app(
    study: Study,
    *services: Service | APIRouter,
    pages: dict[str, str] | None = None,
    title: str | None = None,
) -> FastAPI:
    """The app of a study: its routes and pages (``/study/...``), the league's
    ``services`` and the league's ``pages`` (``{mount: folder}``, e.g. ``{"/": static}``);
    the answers of idempotent requests are kept in the study's file."""
    static: dict[str, str] = {PAGES: str(STATIC), **(pages or {})}
    return create_app(
        title or study.design.title, study, *services, static=static, answers=study.store
    )
