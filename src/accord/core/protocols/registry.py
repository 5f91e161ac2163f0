"""Find protocols by short name, versioned id or import path, and build sessions.

Every protocol is registered with its :class:`~accord.core.protocols.base.ProtocolInfo`
and a factory (usually the :class:`~accord.core.protocols.base.Mechanism` class) that
takes ``(space, negotiators, utilities, deadline, seed=..., time_limit=...,
memories=...)`` plus its own keyword parameters. Names are case-insensitive; ``-`` and
``_`` are ignored. A protocol that is not registered is reached by its import path
``package.module:Class`` (the class must carry ``info``).

Every protocol Accord ships, the leagues' included, is also a row of :data:`TABLE`:
its id, short names and the import paths of its info, factory and rules. Names are
found in the table without importing anything; the module behind a row is imported
the first time the protocol is used (so ``accord tournament --protocol genius`` works
in a fresh process, and nothing in the core imports a league).

    >>> protocol_info("saop").id
    'aop-v1'
    >>> {"aop-simultaneous-v1", "aop-v1", "ultimatum-v1"} <= set(known_protocols())
    True
    >>> protocol_info("ultimatm")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: unknown protocol 'ultimatm'. Did you mean 'ultimatum'? Known protocols: alternating, aop, ...

:func:`make_session` is how every caller builds a session: it checks the number of
parties and the negotiators' capabilities against the info, then calls the factory.
:func:`check_protocol_agents` runs the same capability check on agent *classes*, so a
tournament fails before it starts, not in its first session.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.core.errors import ConfigError
from accord.core.imports import import_object, is_import_path
from accord.core.negotiator import Negotiator
from accord.core.outcomes import OutcomeSpace
from accord.core.protocols.alternating import AOP, AOP_SIMULTANEOUS, Session
from accord.core.protocols.base import Mechanism, ProtocolInfo
from accord.core.protocols.ultimatum import Ultimatum
from accord.core.time import Deadline
from accord.core.utilities import UtilityFunction

ProtocolFactory = Callable[..., Mechanism]
DEFAULT_PROTOCOL = "aop-v1"


@dataclass(frozen=True)
class RegisteredProtocol:
    """A protocol's capability record and the factory that builds its sessions."""

    info: ProtocolInfo
    factory: ProtocolFactory


@dataclass(frozen=True)
class TableEntry:
    """One row of the protocol table: where a protocol lives, found without importing it.

    Args:
        id: the versioned id.
        names: short names (the id without its version is always one).
        info: import path of its :class:`ProtocolInfo`.
        factory: import path of its session factory.
        rules: import path of its :class:`~accord.core.protocols.rules.Rules` (a class
            made with no arguments, or an instance); None while it has none.
        description: one line for listings.
    """

    id: str
    names: tuple[str, ...]
    info: str
    factory: str
    rules: str | None
    description: str


_CORE = "accord.core.protocols"
TABLE: tuple[TableEntry, ...] = (
    TableEntry(
        "aop-v1",
        ("aop", "alternating", "saop"),
        f"{_CORE}.alternating:AOP",
        f"{_CORE}.alternating:Session",
        f"{_CORE}.alternating:AOPRules",
        "alternating offers (bilateral AOP, multilateral SAOP)",
    ),
    TableEntry(
        "aop-simultaneous-v1",
        ("aop-simultaneous", "simultaneous-start"),
        f"{_CORE}.alternating:AOP_SIMULTANEOUS",
        f"{_CORE}.registry:simultaneous_start",
        f"{_CORE}.alternating:SIMULTANEOUS_RULES",
        "alternating offers with a simultaneous first round (SCML)",
    ),
    TableEntry(
        "ultimatum-v1",
        ("ultimatum",),
        f"{_CORE}.ultimatum:ULTIMATUM",
        f"{_CORE}.ultimatum:Ultimatum",
        f"{_CORE}.ultimatum:UltimatumRules",
        "the one-shot ultimatum game",
    ),
    TableEntry(
        "genius-partial-v1",
        ("genius-partial", "genius"),
        "accord.leagues.genius.rules:GENIUS_PARTIAL",
        "accord.leagues.genius.mechanism:PartialOffersSession",
        "accord.leagues.genius.rules:GeniusRules",
        "GENIUS partial offers with opt-out (accord.leagues.genius)",
    ),
    TableEntry(
        "han-v1",
        ("han", "iago"),
        "accord.leagues.han.protocol:HAN",
        "accord.leagues.han.protocol:_factory",
        "accord.leagues.han.rules:HanRules",
        "human-agent negotiation, IAGO style (accord.leagues.han)",
    ),
    TableEntry(
        "colored-trails-v1",
        ("colored-trails", "trails"),
        "accord.leagues.trails.protocol:COLORED_TRAILS",
        "accord.leagues.trails.protocol:_board_game",
        "accord.leagues.trails.rules:TrailsRules",
        "Colored Trails (accord.leagues.trails)",
    ),
    TableEntry(
        "colored-trails-oneshot-v1",
        ("colored-trails-oneshot",),
        "accord.leagues.trails.protocol:COLORED_TRAILS_ONESHOT",
        "accord.leagues.trails.protocol:_board_game",
        None,
        "Colored Trails one-shot (accord.leagues.trails.oneshot)",
    ),
    TableEntry(
        "diplomacy-anac2017-v1",
        ("diplomacy", "bandana"),
        "accord.leagues.diplomacy:PROTOCOL",
        f"{_CORE}.registry:league_game",
        "accord.leagues.diplomacy.notary_rules:NotaryRules",
        "ANAC 2017 Diplomacy with a notary (accord.leagues.diplomacy)",
    ),
)
"""Every protocol Accord ships, by import path (see the module)."""

_BY_ID: dict[str, RegisteredProtocol] = {}
_NAMES: dict[str, str] = {}  # short name or id (normalised) -> id
_TABLE: dict[str, TableEntry] = {e.id: e for e in TABLE}
_SOURCES: dict[str, str] = {}  # id -> the import path a protocol was reached by


def _key(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def _load(entry: TableEntry) -> RegisteredProtocol:
    """Import a table row's module (which may register itself) and register it."""
    registered = _BY_ID.get(entry.id)
    if registered is None:
        info = import_object(entry.info, "protocol info")
        factory = import_object(entry.factory, "protocol factory")
        if not isinstance(info, ProtocolInfo) or info.id != entry.id:
            raise ConfigError(
                f"protocol table row {entry.id!r}: {entry.info} is {info!r}, "
                f"not the ProtocolInfo of {entry.id!r}"
            )
        registered = _BY_ID.get(entry.id)
        if registered is None:
            register_protocol(factory, info, names=entry.names)
            registered = _BY_ID[entry.id]
    return registered


def register_protocol(
    factory: ProtocolFactory, info: ProtocolInfo | None = None, names: Sequence[str] = ()
) -> None:
    """Register ``factory`` under ``info.id`` (and the id without its version) and ``names``.

    ``info`` defaults to ``factory.info``. Registering an id again replaces it.

        >>> register_protocol(Ultimatum, names=["take-it-or-leave-it"])
        >>> protocol_info("Take_it_or_leave_it").id
        'ultimatum-v1'
        >>> unregister_protocol("take-it-or-leave-it")
    """
    info = info if info is not None else getattr(factory, "info", None)
    if not isinstance(info, ProtocolInfo):
        raise ConfigError(
            f"a protocol needs a ProtocolInfo (pass info= or set {factory!r}.info); got {info!r}"
        )
    _BY_ID[info.id] = RegisteredProtocol(info, factory)
    base = info.id.rsplit("-v", 1)[0]
    for name in (info.id, base, *names):
        key = _key(name)
        if not key or ":" in key or "." in key:
            raise ConfigError(f"a protocol name must be a plain word, got {name!r}")
        _NAMES[key] = info.id


def unregister_protocol(name: str) -> None:
    """Remove one short name, or a whole protocol when given its id (no error if absent)."""
    key = _key(name)
    pid = _NAMES.pop(key, None)
    if pid is not None and key == pid:
        _BY_ID.pop(pid, None)
        for k in [k for k, v in _NAMES.items() if v == pid]:
            del _NAMES[k]


def known_protocols() -> dict[str, ProtocolInfo]:
    """Every registered protocol's info, by id, sorted (the table's rows whose modules
    are not imported yet are not here; :func:`protocol_ids` lists every id without
    importing anything, :func:`load_all` imports every row)."""
    return {pid: _BY_ID[pid].info for pid in sorted(_BY_ID)}


def protocol_ids() -> list[str]:
    """Every protocol id: the table's and those registered at run time, sorted."""
    return sorted(set(_TABLE) | set(_BY_ID))


def table_entry(name: str) -> TableEntry | None:
    """The table row of protocol ``name`` (short name or id), or None; imports nothing."""
    pid = _NAMES.get(_key(name), _key(name))
    return _TABLE.get(pid)


def load_all() -> dict[str, ProtocolInfo]:
    """Import every row of the table; then every protocol's info, by id, sorted."""
    for entry in TABLE:
        _load(entry)
    return known_protocols()


def protocol_source(name: str) -> str:
    """What a worker process should resolve to reach protocol ``name``: its id if the
    table or the core registers it, else the import path it was first reached by."""
    entry = resolve_protocol(name)
    pid = entry.info.id
    if pid in _TABLE:
        return pid
    return _SOURCES.get(pid, pid)


def resolve_protocol(name: str) -> RegisteredProtocol:
    """The registered protocol ``name`` (short name, id or import path) refers to."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"a protocol must be named by a non-empty string, got {name!r}")
    pid = _NAMES.get(_key(name))
    if pid is not None:
        registered = _BY_ID.get(pid)
        return registered if registered is not None else _load(_TABLE[pid])
    if is_import_path(name):
        obj = import_object(name, "protocol")
        info = getattr(obj, "info", None)
        if not callable(obj) or not isinstance(info, ProtocolInfo):
            raise ConfigError(
                f"protocol {name!r} must be a Mechanism class with a ProtocolInfo 'info'; "
                f"got {type(obj).__name__} {obj!r}"
            )
        _SOURCES.setdefault(info.id, name)
        if info.id not in _BY_ID:  # known by its id from now on, in this process
            register_protocol(obj, info)
        return _BY_ID[info.id] if _BY_ID[info.id].factory is obj else RegisteredProtocol(info, obj)
    known = sorted(_NAMES)
    close = difflib.get_close_matches(_key(name), known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ConfigError(
        f"unknown protocol {name!r}.{hint} Known protocols: {', '.join(known)}; "
        "or give an import path 'package.module:Class'"
    )


def protocol_info(name: str) -> ProtocolInfo:
    """The capability record of protocol ``name``."""
    return resolve_protocol(name).info


def check_protocol_agents(
    protocol: str | ProtocolInfo, agents: Mapping[str, object], isolated: bool = False
) -> None:
    """Fail early if any agent (name -> class, factory or instance) lacks a capability.

    A factory that is not a class cannot be checked here; :func:`make_session` checks
    what it builds. Isolated agents carry only ``propose``/``respond`` across the process
    boundary, so a protocol that needs more cannot run them isolated.

        >>> from accord.core.capabilities import OptsOut
        >>> from accord.core.protocols.base import TurnStyle
        >>> from accord.core.protocols.result import Action
        >>> info = ProtocolInfo("exit-v1", "exit", TurnStyle.SEQUENTIAL,
        ...                     frozenset({Action.OFFER}), needs=(OptsOut,))
        >>> check_protocol_agents(info, {"Plain": Negotiator})
        Traceback (most recent call last):
        ...
        accord.core.errors.CapabilityError: protocol 'exit-v1' needs negotiators with OptsOut (opt_out); Plain lacks OptsOut (opt_out)
    """
    info = protocol if isinstance(protocol, ProtocolInfo) else protocol_info(protocol)
    if isolated and info.needs:
        raise ConfigError(
            f"protocol {info.id!r} needs {[c.__name__ for c in info.needs]}, which isolated "
            "agents do not carry across processes; run it with --sandbox none (trusted "
            "agents only)"
        )
    checkable = {
        name: a for name, a in agents.items() if isinstance(a, type | Negotiator)
    }  # a factory function shows what it builds only when called
    info.check_negotiators(list(checkable.values()), list(checkable))


def make_session(
    protocol: str | ProtocolInfo,
    space: OutcomeSpace,
    negotiators: Sequence[Negotiator],
    utilities: Sequence[UtilityFunction],
    deadline: Deadline,
    *,
    seed: int | None = 0,
    time_limit: float | None = None,
    memories: Sequence[Any] | None = None,
    **params: Any,
) -> Mechanism:
    """A new session of ``protocol`` (a name, id, import path or registered info).

    ``params`` are the protocol's own keyword parameters (``first=1``). Raises
    :class:`ConfigError` (or its subclass
    :class:`~accord.core.errors.CapabilityError`) before any negotiator is called.
    """
    pid = protocol.id if isinstance(protocol, ProtocolInfo) else protocol
    entry = resolve_protocol(pid)
    entry.info.check_parties(len(negotiators))
    entry.info.check_negotiators(negotiators)
    try:
        return entry.factory(
            space,
            negotiators,
            utilities,
            deadline,
            seed=seed,
            time_limit=time_limit,
            memories=memories,
            **params,
        )
    except TypeError as exc:
        if params:
            raise ConfigError(
                f"protocol {entry.info.id!r} does not take parameters {params}: {exc}"
            ) from None
        raise


def league_game(*args: Any, **kwargs: Any) -> Mechanism:
    """The factory of a protocol that a league plays with its own game objects, not on
    an outcome space: asking it for a session says where to go."""
    raise ConfigError(
        "this protocol is played through its league (see `accord --help`), not through "
        "make_session on an outcome space"
    )


def simultaneous_start(
    space: OutcomeSpace,
    negotiators: Sequence[Negotiator],
    utilities: Sequence[UtilityFunction],
    deadline: Deadline,
    **kwargs: Any,
) -> Session:
    """A session of ``aop-simultaneous-v1`` (alternating offers, simultaneous start)."""
    return Session(space, negotiators, utilities, deadline, simultaneous_start=True, **kwargs)


register_protocol(Session, AOP, names=["alternating", "saop"])
register_protocol(simultaneous_start, AOP_SIMULTANEOUS, names=["simultaneous-start"])
register_protocol(Ultimatum)
for _entry in TABLE:  # every table name is known before its module is imported
    for _name in (_entry.id, _entry.id.rsplit("-v", 1)[0], *_entry.names):
        _NAMES.setdefault(_key(_name), _entry.id)
