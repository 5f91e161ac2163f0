"""Parties of a round and the runtime record the orchestrator keeps per round."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from accord.web.delivery import Outbox
from accord.web.errors import WebError

from .credentials import Credentials
from .messages import InitializeRound
from .round import Phase, Round
from .store import RoundRecord

__all__ = ["HumaineError", "Party", "RoundRuntime", "infer_addressee", "iso_now"]


class HumaineError(WebError):
    """A request the orchestrator refuses: ``status`` is the HTTP code to answer with
    (the web layer's one error, answered with its one body)."""


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def infer_addressee(text: str, agents: tuple[str, ...]) -> str:
    """The agent a human utterance names first ("Celia, ...", "hey Watson ..."), or "".

    >>> infer_addressee("Hey watson, 2 eggs?", ("Celia", "Watson"))
    'Watson'
    >>> infer_addressee("I would like 2 eggs", ("Celia", "Watson"))
    ''
    """
    m = re.match(r"^\W*(?:(?:hey|hi|hello|ok|okay|so|well|and|dear)\W+)?@?(\w+)", text, re.I)
    if m:
        word = m.group(1).lower()
        for name in agents:
            if name.lower() == word:
                return name
    return ""


@dataclass
class Party:
    name: str
    url: str
    kind: str  # "agent" or "ui"


@dataclass
class RoundRuntime:
    """A round plus everything needed to run it over HTTP."""

    round: Round
    spec: InitializeRound
    record: RoundRecord
    agents: dict[str, Party]
    uis: list[Party]
    credentials: Credentials
    outboxes: dict[str, Outbox] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None
    background: set[asyncio.Task[None]] = field(default_factory=set)
    """Deals waiting for the UIs' confirmation."""
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    delivery_errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def round_id(self) -> str:
        return self.round.round_id

    def authenticated(self, speaker: str) -> bool:
        """False for a speaker the operator admitted without a secret."""
        return self.credentials.authenticated(speaker)

    def live(self, now: float) -> bool:
        return self.round.phase(now) not in (Phase.CREATED, Phase.ENDED, Phase.FAILED)
