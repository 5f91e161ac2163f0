"""A study's design: its conditions (arms), rounds per participant, assignment, consent.

A participant takes ``rounds`` rounds; round ``k`` of participant number ``i`` (0, 1,
2, ... in the order of invitation) runs in a condition chosen by ``assignment``:

- ``"balanced"`` (default): rotation, ``conditions[(i + k) % n]``; with one round per
  participant this is between-subjects with equal group sizes, with ``n`` rounds every
  participant meets every condition once and each round position is balanced (a Latin
  square, like the competition manager's pools and rounds);
- ``"random"``: drawn independently from a generator seeded with ``(seed, i)``, so the
  plan of a participant never depends on who else was invited.

    >>> d = StudyDesign(id="demo", title="Demo", conditions=[Condition(name="fast"),
    ...                 Condition(name="slow")], rounds=2)
    >>> [d.plan(i) for i in range(3)]
    [['fast', 'slow'], ['slow', 'fast'], ['fast', 'slow']]
    >>> try:
    ...     StudyDesign(id="x y", title="t", conditions=[Condition(name="a")])
    ... except ValueError as e:
    ...     print(e.errors()[0]["loc"], e.errors()[0]["input"])
    ('id',) x y
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from accord.core.errors import ConfigError

__all__ = ["Condition", "Consent", "StudyDesign"]

_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"

DEFAULT_CONSENT = (
    "You are invited to take part in a research study on negotiation. Taking part is "
    "voluntary; you may stop at any time. What you do in the study is recorded with "
    "timestamps and analysed without your name."
)


class Condition(BaseModel):
    """One arm of the study; ``params`` go to the league's task page as they are."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(pattern=_NAME)
    params: dict[str, Any] = Field(default_factory=dict)


class Consent(BaseModel):
    """The consent page: what participants read before they agree or decline."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    title: str = "Consent to take part"
    text: str = DEFAULT_CONSENT
    version: str = "1"


class StudyDesign(BaseModel):
    """What a study is: id, title, conditions, rounds, assignment, consent, task page."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=_NAME)
    title: str = Field(min_length=1, max_length=200)
    conditions: list[Condition] = Field(min_length=1)
    rounds: int = Field(default=1, ge=1, le=100)
    assignment: Literal["balanced", "random"] = "balanced"
    seed: int = Field(default=0, ge=0)
    consent: Consent = Field(default_factory=Consent)
    task_path: str = Field(default="/task.html", pattern=r"^/[^\s]*$")
    """Where a participant goes after consenting (a page of the league's app)."""
    instructions: str = Field(default="", max_length=20_000)
    """Shown after consent and before the first round (paragraphs split by blank lines);
    empty: no instructions page."""
    completion_code: str = Field(default="", max_length=64, pattern=r"^[A-Za-z0-9_-]*$")
    """Shown on the last page to every participant who finished (or was released while
    waiting for a partner): the code a crowd platform (Prolific, MTurk) asks for."""
    return_url: str = Field(default="", max_length=500, pattern=r"^(https?://[^\s<>\"']+)?$")
    """Where the last page's button leads back (e.g. Prolific's completion address)."""
    wait_seconds: float = Field(default=300.0, gt=0, le=3600)
    """How long a participant may wait alone for a partner before being released (done,
    with the completion code), in the leagues where people play each other."""

    @model_validator(mode="after")
    def _unique(self) -> StudyDesign:
        names = [c.name for c in self.conditions]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"condition names must be unique; repeated: {twice}")
        return self

    def condition(self, name: str) -> Condition:
        for c in self.conditions:
            if c.name == name:
                return c
        known = [c.name for c in self.conditions]
        raise ConfigError(f"no condition {name!r}; the design has {known}")

    def plan(self, number: int) -> list[str]:
        """The conditions of participant ``number``'s rounds, in order."""
        n = len(self.conditions)
        if self.assignment == "balanced":
            picks = [(number + k) % n for k in range(self.rounds)]
        else:
            rng = np.random.default_rng([self.seed, number])
            picks = [int(x) for x in rng.integers(0, n, size=self.rounds)]
        return [self.conditions[i].name for i in picks]
