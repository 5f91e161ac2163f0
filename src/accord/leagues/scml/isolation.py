"""Competition mode: every SCML agent runs in a sandbox of its own (spec 5.1, issue 22).

:class:`IsolatedAgent` stands in for the agent inside the world. The real agent lives in
an :mod:`accord.sandbox` process (``os`` mode by default: bubblewrap, only its own code
visible, hard CPU, memory, file and process limits set before its code is imported),
built there by :class:`SCMLHost`, for the whole world. It gets a :class:`RemoteAWI` with
the same information and actions as the in-process AWI, and nothing else: every read
and every action is a question to the world during a call, answered by the stand-in
from the agent's own AWI in the world process. The agent's negotiators stay in the
sandbox too; the world's sessions talk to them through :class:`RemoteNegotiator`
stand-ins.

What the world sends the agent is pickled (the sandbox trusts the world); what the agent
sends the world is JSON in size-capped frames, checked before use (the world never
unpickles what an agent sends). Every call has a deadline. An exception in agent code
is recorded with its message and traceback, as in-process; a crash, a broken limit, a
bad frame or a hang kills the process, is recorded once, and the factory goes on as a
do-nothing agent (it signs nothing, accepts no negotiation, schedules nothing).

Example (a process per agent: slow to start, so not run here):
    >>> from accord.leagues.scml.generate import generate_config
    >>> from accord.leagues.scml.world import World
    >>> cfg = generate_config(n_steps=5, factories_per_level=[2, 2], seed=1)
    >>> agents = [IsolatedAgent("trader", Limits(call_timeout=30)) for _ in range(4)]
    >>> World(cfg, agents, seed=1).run().day  # doctest: +SKIP
    5
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from accord.core import CallableUtility, Negotiator, NegotiatorView, Outcome, Response
from accord.core.errors import AccordError, ConfigError, ProtocolViolation, UsageError
from accord.core.negotiator import OfferLog
from accord.core.protocols.result import SessionResult
from accord.drivers.seats import BASE_MB, Interface, start_entrant
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.awi import AWI
from accord.leagues.scml.contracts import ContractStatus
from accord.leagues.scml.negotiation import outcome_space, utility_of
from accord.leagues.scml.registry import agent_path, load_agent_type
from accord.leagues.scml.state import Phase
from accord.leagues.scml.world import World
from accord.sandbox import (
    AgentFailure,
    AgentRaised,
    AgentTimeout,
    Host,
    HostContext,
    Sandbox,
    SandboxMode,
)
from accord.sandbox import Limits as SandboxLimits

__all__ = [
    "IsolatedAgent",
    "IsolatedAgentError",
    "Limits",
    "RemoteAWI",
    "RemoteNegotiator",
    "SCMLHost",
]

_MAX_MESSAGE = 1 << 22  # bytes an agent may send in one message
HOST = "accord.leagues.scml.isolation:SCMLHost"

#: AWI properties the agent reads; those in _STATIC never change during a world
_STATIC = (
    "agent",
    "level",
    "my_input_product",
    "my_output_product",
    "process",
    "cost",
    "n_lines",
    "my_suppliers",
    "my_consumers",
    "is_first_level",
    "is_last_level",
    "n_steps",
    "horizon",
    "catalog_prices",
)
#: read again after every call into the agent (the world moved on meanwhile)
_PER_CALL = ("current_step", "phase", "trading_prices")
#: read on every access (the agent's own actions change them)
_LIVE = ("state", "current_balance", "current_inventory", "quota_left")
_METHODS = (
    "next_negotiator_number",
    "contracts",
    "request_negotiation",
    "available_for_production",
    "schedule_production",
    "cancel_production",
    "set_production",
)


def _no_answer(args: tuple[Any, ...]) -> Any:
    return None


#: what a do-nothing agent answers (None unless listed)
_DEFAULTS: dict[str, Callable[[tuple[Any, ...]], Any]] = {
    "sign_all_contracts": lambda args: [False] * len(args[0]),
}


class IsolatedAgentError(AccordError):
    """The isolated agent raised, crashed, broke a limit or hung (the message says which)."""

    def __init__(self, message: str, agent_traceback: str = "") -> None:
        super().__init__(message)
        self.agent_message = message
        self.agent_traceback = agent_traceback


@dataclass(frozen=True)
class Limits:
    """Per-agent limits in isolated mode.

    Args:
        cpu_seconds: CPU time the agent's process may use over the whole world.
        memory_mb: megabytes of address space it may use beyond the interpreter's own
            (:data:`BASE_MB`).
        call_timeout: seconds one call into the agent (a callback or a negotiator's
            move, with the AWI requests it makes meanwhile) may take.
        start_timeout: seconds the process may take to start and build the agent.
    """

    cpu_seconds: float = 600.0
    memory_mb: int = 2048
    call_timeout: float = 60.0
    start_timeout: float = 120.0

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_mb", "call_timeout", "start_timeout"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"Limits.{name} must be > 0, got {getattr(self, name)!r}")

    def sandbox(self) -> SandboxLimits:
        """The :class:`~accord.sandbox.Limits` of the agent's process."""
        return SandboxLimits(
            cpu_seconds=self.cpu_seconds,
            memory_mb=BASE_MB + self.memory_mb,
            call_timeout=self.call_timeout,
            startup_timeout=self.start_timeout,
            max_frame_bytes=_MAX_MESSAGE,
        )


def _jsonable(x: Any) -> Any:
    if isinstance(x, np.integer | np.bool_):
        return x.item()
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, Response | ContractStatus | Phase):
        return x.value
    raise UsageError(f"cannot send a {type(x).__name__} to the world")


def _json(value: Any) -> Any:
    """``value`` as plain JSON values (numpy numbers, enums converted)."""
    return json.loads(json.dumps(value, default=_jsonable))


def _outcome(x: Any) -> Outcome | None:
    """An outcome sent by an agent: None or a list of ints (anything else is refused)."""
    if x is None:
        return None
    if isinstance(x, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in x):
        return tuple(x)
    raise IsolatedAgentError(f"expected an outcome (a list of ints) or null, got {x!r:.80}")


def check_reply(reply: Any) -> tuple[str, Any]:
    """The answer to ``call`` or ``neg``: ``["ok", value]`` or ``["negotiator", id]``
    (what the value must be is checked where it is used).

    >>> check_reply(["ok", 3])
    ('ok', 3)
    >>> check_reply({"ok": 3})
    Traceback (most recent call last):
    ...
    accord.core.errors.ProtocolViolation: the agent sent a malformed answer {'ok': 3}
    """
    if isinstance(reply, list) and len(reply) == 2 and reply[0] in ("ok", "negotiator"):
        return reply[0], reply[1]
    raise ProtocolViolation(f"the agent sent a malformed answer {reply!r:.60}")


INTERFACE = Interface(HOST, {"setup": None, "call": check_reply, "neg": check_reply})
"""An SCML factory's calls: its callbacks and its negotiators' moves (the AWI questions
it asks meanwhile are answered by :meth:`IsolatedAgent._serve`)."""


# ---------------------------------------------------------------------------------------
# the world's side
# ---------------------------------------------------------------------------------------
class IsolatedAgent:
    """Stands in for the agent ``spec`` (a built-in name or ``module:Class``) in the world.

    The agent's module is imported only in its sandbox, never in the world process.
    ``mode`` is the sandbox's (``os``: bubblewrap; ``process``: weaker).
    """

    def __init__(
        self, spec: str, limits: Limits | None = None, mode: SandboxMode | str = SandboxMode.OS
    ) -> None:
        self.spec = spec
        self.path = agent_path(spec)
        self.limits = limits or Limits()
        self.mode = SandboxMode.parse(mode)
        self.name = ""
        self._cls = self.path.partition(":")[2]
        self._awi: AWI | None = None
        self._box: Sandbox | None = None
        self._setup: dict[str, Any] | None = None
        self._dead: str | None = None
        self._negotiators: dict[int, RemoteNegotiator] = {}

    # -- the Manager protocol ------------------------------------------------------------
    @property
    def short_type(self) -> str:
        return self._cls.removesuffix("Agent")[:3] or "Agt"

    @property
    def type_name(self) -> str:
        return self.path

    @property
    def failure(self) -> str | None:
        """Why the agent's process was stopped (None while it runs)."""
        return self._dead

    def bind(self, world: World, index: int, rng: np.random.Generator) -> None:
        self._awi = AWI(world, index, rng)
        awi = self._awi
        static = {k: getattr(awi, k) for k in _STATIC}
        self._box = start_entrant(
            INTERFACE,
            self.path,
            limits=self.limits.sandbox(),
            mode=self.mode,
            fork=True,  # forked from a zygote: a fraction of the start-up, the same isolation
        )
        self._setup = {"name": self.name, "static": static, "rng": rng}

    def unbind(self) -> None:
        """Stop the agent's process (idempotent)."""
        if self._box is None:
            return
        self._box.close()
        if self._dead is None:
            self._dead = "the agent process was closed"

    # -- callbacks -----------------------------------------------------------------------
    def _callback(self, method: str, *args: Any) -> Any:
        default = _DEFAULTS.get(method, _no_answer)(args)
        if self._dead is not None:
            return default
        kind, value = self._request("call", {"method": method, "args": args}, f"{method}()")
        if kind == "negotiator":  # respond_to_negotiation_request accepted
            return self._negotiator(value)
        if method == "sign_all_contracts" and not (
            isinstance(value, list) and all(isinstance(v, bool) for v in value)
        ):
            raise IsolatedAgentError(
                f"sign_all_contracts must return a list of booleans, got {value!r:.80}"
            )
        return value

    def init(self) -> None:
        self._callback("init")

    def before_step(self) -> None:
        self._callback("before_step")

    def step(self) -> None:
        self._callback("step")

    def respond_to_negotiation_request(self, initiator: str, agenda: Any) -> Any:
        return self._callback("respond_to_negotiation_request", initiator, agenda)

    def sign_all_contracts(self, contracts: list[Any]) -> Any:
        return self._callback("sign_all_contracts", contracts)

    def on_negotiation_success(self, contract: Any, agenda: Any) -> None:
        self._callback("on_negotiation_success", contract, agenda)

    def on_negotiation_failure(self, partner: str, agenda: Any, reason: str) -> None:
        self._callback("on_negotiation_failure", partner, agenda, reason)

    def on_negotiation_request_answered(self, partner: str, agenda: Any, accepted: bool) -> None:
        self._callback("on_negotiation_request_answered", partner, agenda, accepted)

    def on_contracts_finalized(self, signed: Any, cancelled: Any, rejectors: Any) -> None:
        self._callback("on_contracts_finalized", signed, cancelled, rejectors)

    def on_agent_bankrupt(self, agent: str, nullified: Any, reduced: Any) -> None:
        self._callback("on_agent_bankrupt", agent, nullified, reduced)

    def on_failure(self, day: int, lines: list[int], reason: str) -> None:
        self._callback("on_failure", day, lines, reason)

    # -- negotiators ---------------------------------------------------------------------
    def _negotiator(self, nid: Any) -> RemoteNegotiator:
        if not isinstance(nid, int) or isinstance(nid, bool):
            raise IsolatedAgentError(f"expected a negotiator id, got {nid!r:.80}")
        neg = self._negotiators.get(nid)
        if neg is None:
            neg = self._negotiators[nid] = RemoteNegotiator(self, nid)
        return neg

    def negotiator_call(self, nid: int, op: str, state: tuple[Any, ...], *extra: Any) -> Any:
        """One move of negotiator ``nid`` (used by :class:`RemoteNegotiator`)."""
        if self._dead is not None:
            raise IsolatedAgentError(self._dead)
        payload = {"nid": nid, "op": op, "state": state, "extra": extra}
        kind, value = self._request("neg", payload, f"negotiator {op}()")
        return value

    # -- plumbing ------------------------------------------------------------------------
    def _context(self) -> tuple[int, str]:
        """What every message carries: today and the phase (saves two requests a call)."""
        awi = self._awi
        assert awi is not None
        return awi.current_step, awi.phase.value

    def _request(self, op: str, payload: dict[str, Any], what: str) -> tuple[str, Any]:
        """Send one call, serving the agent's AWI questions meanwhile; ``(kind, value)``."""
        box = self._box
        assert box is not None, "bind() first"
        payload["ctx"] = self._context()
        if self._setup is not None:  # the first call builds the agent in its sandbox
            setup, self._setup = self._setup, None
            self._guarded(box, "setup", setup, "the agent's start")
        reply = self._guarded(box, op, payload, what)
        try:
            checked: tuple[str, Any] = INTERFACE.check(op, reply)
        except ProtocolViolation as exc:
            self._kill(str(exc))
            raise AssertionError("unreachable") from None  # pragma: no cover
        return checked

    def _guarded(self, box: Sandbox, op: str, payload: Any, what: str) -> Any:
        try:
            return box.call(op, payload, serve=self._serve, trusted_pickle=True)
        except AgentRaised as exc:
            raise IsolatedAgentError(exc.reason, exc.agent_traceback) from None
        except AgentTimeout:
            self._kill(
                f"{what} did not answer within {self.limits.call_timeout:g} s; "
                "the process was killed"
            )
        except AgentFailure as exc:
            self._kill(exc.reason, exc.agent_traceback)
        raise AssertionError("unreachable")  # pragma: no cover

    def _kill(self, why: str, trace: str = "") -> None:
        """Stop the process for good and raise (the world records it once)."""
        if self._box is not None:
            self._box.close()
        self._dead = why
        raise IsolatedAgentError(why, trace)

    def _serve(self, name: str, args: Any) -> tuple[str, Any]:
        """Answer one AWI request of the agent from its own AWI (never anything else):
        ``("ok", value)`` or ``("raise", exception)``, pickled back to the sandbox."""
        awi = self._awi
        assert awi is not None
        try:
            if not isinstance(name, str) or not isinstance(args, list):
                raise IsolatedAgentError(f"malformed AWI request {name!r:.40}")
            if name == "bb":
                return "ok", awi.bb  # pickled: the agent gets a copy of the board
            if name in _STATIC or name in _PER_CALL or name in _LIVE:
                return "ok", getattr(awi, name)
            if name not in _METHODS:
                raise AttributeError(f"the AWI has no {name!r:.40}")
            if name == "contracts":
                status = None if not args or args[0] is None else ContractStatus(args[0])
                return "ok", awi.contracts(status)
            if name == "request_negotiation":
                if len(args) != 7 or not isinstance(args[0], bool):
                    raise UsageError("request_negotiation takes 7 arguments, is_buy a bool")
                is_buy, product, quantity, price, days, partner, nid = args
                neg = self._negotiator(nid)
                return "ok", awi.request_negotiation(
                    is_buy, product, quantity, price, days, partner, neg
                )
            return "ok", getattr(awi, name)(*args)
        except Exception as exc:  # noqa: BLE001 - the agent's own error, raised in its process
            return "raise", exc


class RemoteNegotiator(Negotiator):
    """Stands in for one of an isolated agent's negotiators in the world's session.

    It brings no utility function: the world never sees the agent's preferences.
    """

    def __init__(self, agent: IsolatedAgent, nid: int) -> None:
        super().__init__(f"{agent.name}#{nid}")
        self.agent = agent
        self.nid = nid
        self._sent = 0

    def _state(self, view: NegotiatorView) -> tuple[Any, ...]:
        offers = view.offers
        new = list(offers[self._sent :])
        self._sent = len(offers)
        return (*view.state(), new)

    def on_start(self, view: NegotiatorView) -> None:
        self.agent.negotiator_call(
            self.nid, "start", self._state(view), view.space, view.index, view.names, view.rng
        )

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return _outcome(self.agent.negotiator_call(self.nid, "propose", self._state(view)))

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        answer = self.agent.negotiator_call(self.nid, "respond", self._state(view), offer)
        try:
            return Response(answer)
        except ValueError:
            raise IsolatedAgentError(f"expected a Response, got {answer!r:.40}") from None

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        private = replace(result, utilities=())  # the other party's utility is not the agent's
        with contextlib.suppress(IsolatedAgentError):
            self.agent.negotiator_call(self.nid, "end", self._state(view), private)


# ---------------------------------------------------------------------------------------
# the agent's side (the child process)
# ---------------------------------------------------------------------------------------
class RemoteAWI:
    """The AWI of an isolated agent: the in-process AWI's information and actions, each a
    message to the world (static facts are cached; the bulletin board is a copy)."""

    def __init__(self, conn: Any, static: dict[str, Any], rng: np.random.Generator):
        self._conn = conn  # the channel: ``conn(name, args)`` asks the world
        self._static = dict(static)
        self._cache: dict[str, Any] = {}
        self._negotiators: dict[int, Negotiator] = {}
        self._by_object: dict[int, int] = {}
        self.rng = rng

    def __getattr__(self, name: str) -> Any:
        static = self.__dict__.get("_static")
        if name == "_w":  # what an in-process agent might reach for: there is no world here
            raise AttributeError("an isolated agent has no world, only its AWI")
        if static is None or name.startswith("_"):
            raise AttributeError(name)
        if name in static:
            return static[name]
        if name in _PER_CALL or name == "bb":
            if name not in self._cache:
                value = self._ask(name, [])
                if name == "phase":
                    value = Phase(value)
                self._cache[name] = value
            return self._cache[name]
        if name in _LIVE:
            return self._ask(name, [])
        if name in _METHODS:
            return lambda *args: self._method(name, list(args))
        raise AttributeError(f"the AWI has no attribute {name!r}")

    def new_call(self, context: tuple[int, str]) -> None:
        """The world moved on: forget what was read during the previous call."""
        self._cache.clear()
        self._cache["current_step"] = context[0]
        self._cache["phase"] = Phase(context[1])

    def _ask(self, name: str, args: list[Any]) -> Any:
        kind, value = self._conn(name, _json(args))
        if kind == "raise":
            raise value
        return value

    def _method(self, name: str, args: list[Any]) -> Any:
        if name == "request_negotiation":
            return self.request_negotiation(*args)
        if name == "contracts" and args and isinstance(args[0], ContractStatus):
            args = [args[0].value]
        return self._ask(name, args)

    def register(self, negotiator: Negotiator) -> int:
        """The id under which the world knows ``negotiator``."""
        key = id(negotiator)
        nid = self._by_object.get(key)
        if nid is None:
            nid = len(self._negotiators) + 1
            self._negotiators[nid] = negotiator
            self._by_object[key] = nid
        return nid

    def negotiator(self, nid: int) -> Negotiator:
        return self._negotiators[nid]

    def request_negotiation(
        self,
        is_buy: bool,
        product: int,
        quantity: Any,
        unit_price: Any,
        time: Any,
        partner: str,
        negotiator: Negotiator,
    ) -> bool:
        if not isinstance(negotiator, Negotiator):
            raise UsageError(
                f"negotiator must be an accord.core.Negotiator, got {type(negotiator).__name__}"
            )
        nid = self.register(negotiator)
        args = [bool(is_buy), product, quantity, unit_price, time, partner, nid]
        return bool(self._ask("request_negotiation", args))

    def request_negotiations(
        self,
        is_buy: bool,
        product: int,
        quantity: Any,
        unit_price: Any,
        time: Any,
        partners: list[str] | tuple[str, ...],
        controller: Any = None,
        negotiators: list[Negotiator] | None = None,
    ) -> list[bool]:
        return AWI.request_negotiations(
            cast(AWI, self), is_buy, product, quantity, unit_price, time, partners, controller,
            negotiators,
        )  # fmt: skip

    def outcome_space(self, agenda: Any) -> Any:
        return outcome_space(agenda)


class SCMLHost(Host):
    """Runs in the sandbox: builds the agent with its :class:`RemoteAWI`, then answers the
    world's callbacks and its negotiators' moves (JSON out)."""

    def __init__(self, agent: str, context: HostContext) -> None:
        super().__init__(agent, context)
        self.cls = load_agent_type(agent)  # import now: a module that cannot load fails here
        self.agent: SCMLAgent | None = None
        self.awi: RemoteAWI | None = None
        self.views: dict[int, NegotiatorView] = {}
        self.offers: dict[int, OfferLog] = {}

    def handle(self, op: str, payload: Any) -> Any:
        if op == "setup":
            awi = RemoteAWI(self.context.ask, payload["static"], payload["rng"])
            agent: SCMLAgent = self.cls()
            agent.name = payload["name"]
            agent.awi = cast(AWI, awi)
            self.agent, self.awi = agent, awi
            return None
        agent_, awi_ = self.agent, self.awi
        assert agent_ is not None and awi_ is not None, "setup first"
        awi_.new_call(payload["ctx"])
        if op == "call":
            method = payload["method"]
            out = getattr(agent_, method)(*payload["args"])
            if isinstance(out, Negotiator):
                return ["negotiator", awi_.register(out)]
            if method == "sign_all_contracts" and isinstance(out, list | tuple):
                out = [bool(x) for x in out]
            return ["ok", _json(out)]
        nid, nop, state, extra = payload["nid"], payload["op"], payload["state"], payload["extra"]
        neg = awi_.negotiator(nid)
        if nop == "start":
            space, index, names, vrng = extra
            fn = utility_of(neg)
            utility = CallableUtility(space, fn if fn is not None else _zero)
            self.offers[nid] = OfferLog()
            self.views[nid] = NegotiatorView(utility, index, names, self.offers[nid], vrng)
        view = self.views[nid]
        _update_view(view, state, self.offers[nid])
        out = None
        if nop == "start":
            neg.on_start(view)
        elif nop == "propose":
            out = neg.propose(view)
            out = None if out is None else [int(v) for v in out]
        elif nop == "respond":
            out = int(neg.respond(view, extra[0]))
        else:
            neg.on_end(view, extra[0])
            self.views.pop(nid, None)
            self.offers.pop(nid, None)
        return ["ok", _json(out)]


def _zero(_: Outcome) -> float:
    return 0.0


def _update_view(view: NegotiatorView, state: tuple[Any, ...], log: OfferLog) -> None:
    """Bring the agent's copy of its view up to the session's state."""
    t, step, rnd, standing, proposer, new = state
    view.update(t, step, rnd, None if standing is None else tuple(standing), proposer)
    for k, outcome in new:  # the agent's side owns its copy of the log
        log._append(int(k), tuple(outcome))
