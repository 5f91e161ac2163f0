"""Competition mode: every SCML agent runs in a spawned process of its own (spec 5.1).

:class:`IsolatedAgent` stands in for the agent inside the world. The real agent lives in
a child process started with ``spawn`` (a fresh interpreter: nothing of the world is in
its memory) under a CPU-time limit (``RLIMIT_CPU``, for the whole world) and an
address-space limit (``RLIMIT_AS``). It gets a :class:`RemoteAWI` with the same
information and actions as the in-process AWI, and nothing else: every read and every
action is a message over a pipe, answered by the stand-in from the agent's own AWI in
the world process. The agent's negotiators stay in the child too; the world's sessions
talk to them through :class:`RemoteNegotiator` stand-ins.

Messages from the world to the agent are pickled (the child trusts the world); messages
from the agent to the world are JSON, checked before use (the world never unpickles what
an agent sends). Every call has a timeout. An exception in agent code is recorded with
its message and traceback, as in-process; a crash, a broken limit or a hang kills the
child, is recorded once, and the factory goes on as a do-nothing agent (it signs
nothing, accepts no negotiation, schedules nothing).

Example (a spawned process per agent: slow to start, so not run here):
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
import multiprocessing as mp
import signal
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import Any, cast

import numpy as np

from accord.core import CallableUtility, Negotiator, NegotiatorView, Outcome, Response
from accord.core.errors import AccordError, ConfigError, UsageError
from accord.core.negotiator import OfferLog
from accord.core.protocols.result import SessionResult
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.awi import AWI
from accord.leagues.scml.contracts import ContractStatus
from accord.leagues.scml.negotiation import outcome_space, utility_of
from accord.leagues.scml.registry import agent_path, load_agent_type
from accord.leagues.scml.state import Phase
from accord.leagues.scml.world import World
from accord.tournament.lifeline import apply_limits, die_with_parent

__all__ = ["Limits", "IsolatedAgent", "IsolatedAgentError", "RemoteAWI", "RemoteNegotiator"]

_MAX_MESSAGE = 1 << 22  # bytes an agent may send in one message

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
        memory_mb: megabytes of address space it may add to what it maps after start.
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


def _send_json(conn: Connection, msg: Any) -> None:
    conn.send_bytes(json.dumps(msg, default=_jsonable).encode())


def _outcome(x: Any) -> Outcome | None:
    """An outcome sent by an agent: None or a list of ints (anything else is refused)."""
    if x is None:
        return None
    if isinstance(x, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in x):
        return tuple(x)
    raise IsolatedAgentError(f"expected an outcome (a list of ints) or null, got {x!r:.80}")


# ---------------------------------------------------------------------------------------
# the world's side
# ---------------------------------------------------------------------------------------
class IsolatedAgent:
    """Stands in for the agent ``spec`` (a built-in name or ``module:Class``) in the world.

    The agent's module is imported only in the child, never in the world process.
    """

    def __init__(self, spec: str, limits: Limits | None = None) -> None:
        self.spec = spec
        self.path = agent_path(spec)
        self.limits = limits or Limits()
        self.name = ""
        self._cls = self.path.partition(":")[2]
        self._awi: AWI | None = None
        self._proc: Any = None
        self._conn: Connection | None = None
        self._ready = False
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
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self._proc = ctx.Process(
            target=_child_main,
            args=(child, self.path, self.limits, self.name, static, rng),
            daemon=True,
            name=f"scml-agent-{self.name}",
        )
        self._proc.start()
        child.close()
        self._conn = parent

    def unbind(self) -> None:
        """Stop the agent's process (idempotent)."""
        if self._proc is None:
            return
        if self._dead is None and self._ready and self._conn is not None:
            with contextlib.suppress(OSError, ValueError):
                self._conn.send(("stop",))
            self._proc.join(1.0)
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join(1.0)
        if self._conn is not None:
            self._conn.close()
        if self._dead is None:
            self._dead = "the agent process was closed"

    # -- callbacks -----------------------------------------------------------------------
    def _callback(self, method: str, *args: Any) -> Any:
        default = _DEFAULTS.get(method, _no_answer)(args)
        if self._dead is not None:
            return default
        kind, value = self._request(("call", method, args, self._context()))
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
        kind, value = self._request(("neg", nid, op, state, extra, self._context()))
        return value

    # -- plumbing ------------------------------------------------------------------------
    def _context(self) -> tuple[int, str]:
        """What every message carries: today and the phase (saves two requests a call)."""
        awi = self._awi
        assert awi is not None
        return awi.current_step, awi.phase.value

    def _request(self, msg: tuple[Any, ...]) -> tuple[str, Any]:
        """Send ``msg``, serve the agent's AWI requests until it answers; ``(kind, value)``."""
        conn = self._conn
        assert conn is not None, "bind() first"
        if not self._ready:
            self._wait_ready()
        deadline = time.perf_counter() + self.limits.call_timeout
        what = f"{msg[1]}()" if msg[0] == "call" else f"negotiator {msg[2]}()"
        try:
            conn.send(msg)
            while True:
                left = deadline - time.perf_counter()
                if left <= 0 or not conn.poll(left):
                    self._kill(
                        f"{what} did not answer within {self.limits.call_timeout:g} s; "
                        "the process was killed"
                    )
                reply = json.loads(conn.recv_bytes(_MAX_MESSAGE))
                kind = reply[0]
                if kind == "awi":
                    conn.send(self._serve(reply[1], reply[2]))
                elif kind in ("ok", "negotiator"):
                    return kind, reply[1]
                elif kind == "exc":
                    raise IsolatedAgentError(str(reply[1]), str(reply[2]))
                else:
                    self._kill(f"the agent sent an unknown message {kind!r:.40}")
        except (EOFError, OSError, ValueError, IndexError, KeyError, TypeError) as exc:
            self._kill(self._death(exc))
            raise  # (unreachable: _kill raises)

    def _wait_ready(self) -> None:
        assert self._conn is not None
        try:
            if not self._conn.poll(self.limits.start_timeout):
                self._kill(
                    f"the agent did not start within {self.limits.start_timeout:g} s; "
                    "the process was killed"
                )
            reply = json.loads(self._conn.recv_bytes(_MAX_MESSAGE))
        except (EOFError, OSError, ValueError) as exc:
            self._kill(self._death(exc))
        if reply[0] != "ready":
            self._kill(str(reply[1]), str(reply[2]) if len(reply) > 2 else "")
        self._ready = True

    def _kill(self, why: str, trace: str = "") -> None:
        """Stop the process for good and raise (the world records it once)."""
        if self._proc is not None and self._proc.is_alive():
            self._proc.kill()
            self._proc.join(1.0)
        self._dead = why
        raise IsolatedAgentError(why, trace)

    def _death(self, exc: BaseException) -> str:
        self._proc.join(1.0)
        code = self._proc.exitcode
        if code is not None and code < 0:
            sig = signal.Signals(-code).name
            why = {
                "SIGXCPU": f" (CPU-time limit of {self.limits.cpu_seconds:g} s exceeded)",
                "SIGKILL": " (killed)",
            }.get(sig, "")
            return f"the agent process died from {sig}{why}"
        if code is not None:
            return f"the agent process exited unexpectedly (exit code {code})"
        return f"the agent sent a malformed message ({type(exc).__name__}: {exc})"

    def _serve(self, name: Any, args: Any) -> tuple[str, Any]:
        """Answer one AWI request of the agent from its own AWI (never anything else)."""
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

    def __init__(self, conn: Connection, static: dict[str, Any], rng: np.random.Generator):
        self._conn = conn
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
        _send_json(self._conn, ["awi", name, args])
        kind, value = self._conn.recv()
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


def _child_main(
    conn: Connection,
    path: str,
    limits: Limits,
    name: str,
    static: dict[str, Any],
    rng: np.random.Generator,
) -> None:
    """The agent's process: build the agent, then answer the world until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    try:
        cls = load_agent_type(path)
        agent: SCMLAgent = cls()
        agent.name = name
        awi = RemoteAWI(conn, static, rng)
        agent.awi = cast(AWI, awi)
        apply_limits(limits.cpu_seconds, limits.memory_mb)
    except BaseException as exc:  # noqa: BLE001 - reported to the world as a failure
        with contextlib.suppress(Exception):
            msg = f"could not create agent {path!r}: {type(exc).__name__}: {exc}"
            _send_json(conn, ["fatal", msg, traceback.format_exc()])
        return
    _send_json(conn, ["ready"])
    views: dict[int, NegotiatorView] = {}
    offers: dict[int, OfferLog] = {}
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] == "stop":
            return
        try:
            awi.new_call(msg[-1])
            if msg[0] == "call":
                _, method, args, _ = msg
                out = getattr(agent, method)(*args)
                if isinstance(out, Negotiator):
                    _send_json(conn, ["negotiator", awi.register(out)])
                    continue
                if method == "sign_all_contracts" and isinstance(out, list | tuple):
                    out = [bool(x) for x in out]
                _send_json(conn, ["ok", out])
            else:
                _, nid, op, state, extra, _ = msg
                neg = awi.negotiator(nid)
                if op == "start":
                    space, index, names, vrng = extra
                    fn = utility_of(neg)
                    utility = CallableUtility(space, fn if fn is not None else _zero)
                    offers[nid] = OfferLog()
                    views[nid] = NegotiatorView(utility, index, names, offers[nid], vrng)
                view = views[nid]
                _update_view(view, state, offers[nid])
                out = None
                if op == "start":
                    neg.on_start(view)
                elif op == "propose":
                    out = neg.propose(view)
                    out = None if out is None else [int(v) for v in out]
                elif op == "respond":
                    out = neg.respond(view, extra[0])
                else:
                    neg.on_end(view, extra[0])
                    views.pop(nid, None)
                    offers.pop(nid, None)
                _send_json(conn, ["ok", out])
        except BaseException as exc:  # noqa: BLE001 - includes MemoryError, SystemExit
            with contextlib.suppress(Exception):
                _send_json(conn, ["exc", f"{type(exc).__name__}: {exc}", traceback.format_exc()])


def _zero(_: Outcome) -> float:
    return 0.0


def _update_view(view: NegotiatorView, state: tuple[Any, ...], log: OfferLog) -> None:
    """Bring the agent's copy of its view up to the session's state."""
    t, step, rnd, standing, proposer, new = state
    view.update(t, step, rnd, None if standing is None else tuple(standing), proposer)
    for k, outcome in new:  # the agent's side owns its copy of the log
        log._append(int(k), tuple(outcome))
