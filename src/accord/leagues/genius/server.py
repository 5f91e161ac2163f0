"""The GENIUS study server: an :mod:`accord.web` study with the league's negotiation page.

The study (links, consent, the experimenter's page at ``/study/admin.html``, live
progress, the CSV of every event) comes from :mod:`accord.web.study`; the league adds its
service (:class:`~accord.leagues.genius.service.GeniusStudy`, routes under
``/api/genius``) and its page ``/genius/negotiate.html``. Two files sit in ``folder``:
``study.sqlite`` (the study) and ``genius.sqlite`` (the negotiation sessions).

    >>> import tempfile
    >>> from fastapi.testclient import TestClient
    >>> design = genius_design([condition("kbagent")], title="Pilot")
    >>> app, study = create_genius_app(tempfile.mkdtemp(), design, password="pw-genius")
    >>> TestClient(app).get("/api/genius/state").json()["code"]
    'unauthorized'
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from fastapi import FastAPI

from accord.leagues.genius.protocol import Clock
from accord.leagues.genius.service import GeniusStudy, condition
from accord.web.clock import Clock as WebClock
from accord.web.study import Condition, Consent, Study, StudyDesign, create_study_app

__all__ = ["STATIC", "TASK_PATH", "condition", "create_genius_app", "genius_design"]

STATIC = Path(__file__).resolve().parent / "static"
"""The league's pages (mounted at ``/genius``)."""
TASK_PATH = "/genius/negotiate.html"

CONSENT = Consent(
    text=(
        "You will negotiate with another party, a person or a computer program, over the "
        "terms of an agreement. Every offer, answer and message you send is recorded with "
        "its time.\n\nYou may stop at any time by pressing Leave."
    ),
    version="1",
)


def genius_design(
    conditions: Sequence[Condition],
    title: str = "Negotiation study",
    study_id: str = "genius",
    seed: int = 0,
) -> StudyDesign:
    """A one-round study design whose task page is the negotiation page."""
    return StudyDesign(
        id=study_id,
        title=title,
        conditions=list(conditions),
        rounds=1,
        assignment="balanced",
        seed=seed,
        consent=CONSENT,
        task_path=TASK_PATH,
    )


def create_genius_app(
    folder: str | Path,
    design: StudyDesign,
    password: str | None = None,
    clock: Clock | None = None,
    web_clock: WebClock | None = None,
    leave_after: float = 30.0,
    poll_seconds: float = 0.5,
) -> tuple[FastAPI, Study]:
    """The app and its study; ``clock`` drives the negotiations (wall seconds by default)."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    study = Study(root / "study.sqlite", design, password=password, clock=web_clock)
    service = GeniusStudy(
        study, str(root / "genius.sqlite"), clock or time.time, leave_after, poll_seconds
    )
    app = create_study_app(study, service, pages={"/genius": str(STATIC)})
    app.state.genius = service
    return app, study
