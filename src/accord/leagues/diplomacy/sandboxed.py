"""Entered negotiators in the sandbox: the organiser's side of the Diplomacy host.

`SandboxedNegotiator` stands in for an entered negotiator (``pkg.module:Class``) in
`play_game`. At every tick it sends the power's view (its phase, the board, the
proposals addressed to it, its own confirmed deals, the notary's messages to it) to the
negotiator's sandboxed process (`accord.sandbox`, host
`accord.leagues.diplomacy.host:DiplomacyHost`), checks the answer's shape (a list of at
most ``limit`` requests: propose a deal, accept, reject or withdraw a proposal id, vote
for a draw) and makes those requests through the power's own `Round`, so the notary
checks each one as if the power had made it in-process. A call has the round's time
limit (real clock: the seconds left; virtual clock: ``call_seconds``); a negotiator that
does not answer in time is killed and its power plays on without negotiating, one that
raises loses that tick's requests. Every failure is recorded in the game's ``errors``.

Example (needs the engine and bubblewrap)::

    neg = SandboxedNegotiator("my_negotiators:Peaceful", seed=1)
    rec = play_game({"FRANCE": neg}, clock="virtual", last_year=1902)
"""

from __future__ import annotations

from typing import Any

from accord.core.errors import AccordError, ConfigError, ProtocolViolation
from accord.drivers.seats import Interface, start_entrant
from accord.sandbox import AgentFailure, AgentRaised, Limits, Sandbox, SandboxMode

from .deals import Deal
from .negotiator import Negotiator, Round

__all__ = ["HOST", "INTERFACE", "SandboxedNegotiator", "check_answer"]

HOST = "accord.leagues.diplomacy.host:DiplomacyHost"
_OPS = ("propose", "accept", "reject", "withdraw", "draw")


def check_answer(answer: Any) -> dict[str, Any]:
    """The answer to ``negotiate``: ``{"actions": [...], "allies": [...]}`` (each action
    is checked by the notary, one by one, as the power makes it).

    >>> check_answer({"actions": []})
    {'actions': []}
    >>> check_answer([])
    Traceback (most recent call last):
    ...
    accord.core.errors.ProtocolViolation: expected {'actions': [...]}, got []
    """
    if not isinstance(answer, dict) or not isinstance(answer.get("actions"), list):
        raise ProtocolViolation(f"expected {{'actions': [...]}}, got {answer!r:.80}")
    return answer


INTERFACE = Interface(HOST, {"negotiate": check_answer})
"""An entered negotiator's one call: what its power may see in, its requests out."""


class SandboxedNegotiator(Negotiator):
    """An entered negotiator run in its own sandboxed process (see the module docstring)."""

    def __init__(
        self,
        agent: str,
        seed: int | None = None,
        *,
        mode: SandboxMode | str = SandboxMode.OS,
        call_seconds: float = 5.0,
        limits: Limits | None = None,
    ) -> None:
        super().__init__(seed)
        if not call_seconds > 0:
            raise ConfigError(f"call seconds: expected > 0, got {call_seconds}")
        self.agent = agent
        self.name = agent
        self.mode = SandboxMode.parse(mode)
        self.call_seconds = call_seconds
        self.limits = limits or Limits(
            cpu_seconds=600, memory_mb=1024, call_timeout=call_seconds, max_frame_bytes=1 << 18
        )
        self.seed = seed
        self.box: Sandbox | None = None
        self.dead: str | None = None
        self.errors: list[str] = []

    def _start(self) -> Sandbox:
        if self.box is None:
            self.box = start_entrant(
                INTERFACE,
                self.agent,
                limits=self.limits,
                mode=self.mode,
                extra={"seed": self.seed},
                fork=True,  # forked from a zygote: a fraction of the start-up
            )
        return self.box

    def negotiate(self, rnd: Round) -> None:
        if self.dead is not None:
            return
        timeout = self.call_seconds
        if rnd.real_time:
            timeout = max(0.05, min(timeout, rnd.time_left()))
        try:
            box = self._start()
        except AccordError as exc:  # it cannot start (its code is gone): no retry per tick
            self.dead = str(exc)[:300]
            self.errors.append(f"{rnd.power}: {self.dead} (it negotiates no more this game)")
            return
        try:
            answer = box.call("negotiate", view(rnd), timeout=timeout)
        except AgentRaised as exc:
            self.errors.append(f"{rnd.power}: the negotiator raised: {exc.reason[:300]}")
            return
        except AgentFailure as exc:
            self.dead = f"{type(exc).__name__}: {exc.reason[:300]}"
            self.errors.append(f"{rnd.power}: {self.dead} (it negotiates no more this game)")
            self.close()
            return
        self._apply(rnd, answer)

    def _apply(self, rnd: Round, raw: Any) -> None:
        try:
            answer = INTERFACE.check("negotiate", raw)
        except ProtocolViolation as exc:
            self.errors.append(f"{rnd.power}: {exc}")
            return
        allies = answer.get("allies", [])
        if isinstance(allies, list):
            self.allies = {a for a in allies if isinstance(a, str) and a in rnd.powers}
        actions = answer["actions"]
        if len(actions) > rnd.limit:
            self.errors.append(
                f"{rnd.power}: flooding, {len(actions)} requests in one call; "
                f"only the first {rnd.limit} taken"
            )
        for action in actions[: rnd.limit]:
            try:
                _act(rnd, action)
            except AccordError as exc:
                self.errors.append(f"{rnd.power}: {exc}"[:400])
            except (KeyError, TypeError, ValueError) as exc:
                self.errors.append(f"{rnd.power}: malformed request {action!r:.80}: {exc}"[:400])

    def close(self) -> None:
        if self.box is not None:
            self.box.close()
            self.box = None


def _act(rnd: Round, action: Any) -> None:
    if not isinstance(action, dict) or action.get("op") not in _OPS:
        raise ProtocolViolation(f"malformed request: expected an op among {_OPS}")
    op = action["op"]
    if op == "draw":
        rnd.propose_draw()
        return
    if op == "propose":
        deal = action.get("deal")
        if not isinstance(deal, dict):
            raise ProtocolViolation("malformed request: expected a deal object")
        rnd.propose(Deal.from_json(deal))
        return
    pid = action.get("id")
    if not isinstance(pid, str) or len(pid) > 32:
        raise ProtocolViolation("malformed request: expected a proposal id (a short string)")
    if op == "accept":
        rnd.accept(pid)
    else:
        rnd.reject(pid)


def view(rnd: Round) -> dict[str, Any]:
    """What ``rnd.power`` may see this tick, as JSON (the payload of ``negotiate``)."""
    game = rnd.game
    return {
        "power": rnd.power,
        "phase": game.get_current_phase(),
        "time_left": rnd.time_left(),
        "units": {p: list(pw.units) for p, pw in game.powers.items()},
        "centres": {p: list(pw.centers) for p, pw in game.powers.items()},
        "proposals": [
            {"id": p.id, "deal": p.deal.to_json(), "accepted": sorted(p.accepted)}
            for p in rnd.proposals()
        ],
        "confirmed": [d.to_json() for d in rnd.confirmed()],
        "messages": [
            {"kind": e.kind, "id": e.proposal, "from": e.sender, "to": list(e.to)}
            for e in rnd.messages()
        ],
    }


def is_entry(name: str) -> bool:
    """True for an entered negotiator's import path (``pkg.module:Class``).

    >>> is_entry("alliance"), is_entry("mine.negs:Peaceful")
    (False, True)
    """
    return ":" in name


def check_players(names: list[str] | tuple[str, ...]) -> None:
    """Raise `ConfigError` unless each name is built in or an import path."""
    from accord.core.errors import ConfigError

    from .negotiator import NEGOTIATORS

    bad = [n for n in names if n not in NEGOTIATORS and not is_entry(n)]
    if bad:
        raise ConfigError(
            f"negotiators {bad} unknown; expected built-in names {sorted(NEGOTIATORS)} "
            "or entered negotiators as 'package.module:Class'"
        )


def check_entries(names: list[str] | tuple[str, ...]) -> None:
    """`check_players`, and each entered negotiator's module is on the path or in the
    working directory (found without importing it): else one `ConfigError`, before work."""
    from accord.sandbox.locate import agent_code

    check_players(names)
    for name in dict.fromkeys(n for n in names if is_entry(n)):
        agent_code(name)


def negotiator_for(
    name: str,
    seed: int | None,
    *,
    sandbox: SandboxMode | str = SandboxMode.OS,
    call_seconds: float = 5.0,
) -> Negotiator | None:
    """A built-in negotiator in-process (trusted), or an entered one in its sandbox
    (``sandbox="none"``: in this process too, trusted code only)."""
    from .negotiator import NEGOTIATORS

    if name in NEGOTIATORS:
        return NEGOTIATORS[name](seed)
    check_players([name])
    if sandbox == "none":
        from .host import build_negotiator

        neg: Negotiator = build_negotiator(name, seed)
        return neg
    return SandboxedNegotiator(name, seed, mode=sandbox, call_seconds=call_seconds)
