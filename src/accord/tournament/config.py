"""Tournament configuration: the competitors, the scenarios and how sessions run.

A configuration is a small frozen value object. It reads from YAML or a dict and writes
back to a JSON-ready dict; its :meth:`TournamentConfig.fingerprint` identifies the
sessions it schedules, so a results file can tell whether a run resumes the same
tournament.

    >>> cfg = TournamentConfig.from_dict({
    ...     "agents": ["accord.agents.timebased:Boulware",
    ...                {"name": "Hard", "type": "accord.agents.timebased:TimeDependent",
    ...                 "params": {"exponent": 0.1}}],
    ...     "scenarios": ["builtin:tiny"], "reps": 2})
    >>> [a.name for a in cfg.agents], cfg.reps
    (['Boulware', 'Hard'], 2)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.core.protocols import DEFAULT_PROTOCOL, protocol_info
from accord.core.scenario import Scenario

PAIRINGS = ("product", "combinations")
FAILURE_SCORES = ("zero", "reservation")
SESSIONS_PER_SANDBOX = ("many", "one")


@dataclass(frozen=True)
class AgentSpec:
    """A competitor: its name in the tournament, its type and its constructor parameters.

    ``type`` is an import path ``package.module:Class`` or a name the agent registry
    knows (``Boulware``).

        >>> AgentSpec.parse("accord.agents.timebased:Conceder").name
        'Conceder'
    """

    name: str
    type: str
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @classmethod
    def parse(cls, data: str | Mapping[str, Any] | AgentSpec) -> AgentSpec:
        """From ``"pkg.mod:Class"``, ``"Name=pkg.mod:Class"`` or ``{name, type, params}``."""
        if isinstance(data, AgentSpec):
            return data
        if isinstance(data, str):
            name, _, target = data.rpartition("=")
            target = target.strip()
            if not target:
                raise ConfigError(f"an agent needs a type such as 'pkg.module:Class'; got {data!r}")
            return cls(name.strip() or _short(target), target, {})
        if isinstance(data, Mapping):
            unknown = set(data) - {"name", "type", "params"}
            if unknown or "type" not in data:
                raise ConfigError(
                    "an agent entry needs 'type' (and optionally 'name', 'params'); "
                    f"got keys {sorted(data)}"
                )
            params = data.get("params") or {}
            if not isinstance(params, Mapping):
                raise ConfigError(f"agent params must be a mapping, got {params!r}")
            target = str(data["type"])
            return cls(str(data.get("name") or _short(target)), target, dict(params))
        raise ConfigError(f"cannot read an agent from {type(data).__name__} {data!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"name": self.name, "type": self.type, "params": dict(self.params)}


_TYPES: dict[str, tuple[type, ...]] = {
    "reps": (int,),
    "rounds": (int,),
    "seed": (int,),
    "memory_limit": (int,),
    "seconds": (int, float, type(None)),
    "time_limit": (int, float, type(None)),
    "protocol_path": (str, type(None)),
    "cpu_limit": (int, float),
    "call_timeout": (int, float),
    "discretize": (int, type(None)),
    "self_play": (bool,),
    "rotate": (bool,),
    "learning": (bool,),
    "isolated": (bool,),
    "pairing": (str,),
    "sandbox": (str,),
    "failure_score": (str,),
    "sessions_per_sandbox": (str,),
    "name": (str,),
}


def _check_types(cfg: TournamentConfig) -> None:
    """Each setting has its type (YAML ``reps: two`` is an error naming ``reps``)."""
    for key, types in _TYPES.items():
        v = getattr(cfg, key)
        numeric = bool not in types and isinstance(v, bool)
        if numeric or not isinstance(v, types):
            want = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise ConfigError(f"setting {key!r} must be {want}; got {type(v).__name__} {v!r}")


def _short(target: str) -> str:
    """The agent's one name (``Frequency`` for ``frequency`` or ``...:FrequencyAgent``)."""
    try:
        from accord.agents.registry import display_name
    except ImportError:  # pragma: no cover - the agents layer ships with the core
        return target.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
    return display_name(target)


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides which sessions run and what they produce.

    Args:
        agents: the competitors (names must be unique).
        scenarios: scenario names/paths (read by ``accord.formats.load_scenario``),
            ``builtin:<name>`` for the fallback scenarios, :class:`Scenario` objects, or
            ``{scenario: NAME, profiles: ...}`` to choose the profiles that negotiate
            (a list of names, a list of lists, ``pairs`` or ``{sides: [[...], [...]]}``,
            see :func:`accord.formats.profiles.profile_groups`).
        reps: repetitions of every session.
        self_play: allow an agent to meet itself.
        rotate: give every agent every profile (profile rotation).
        pairing: ``product`` (every ordered group: who starts matters) or
            ``combinations`` (every unordered group; rotation still covers every role).
        rounds: deadline in rounds; ``seconds``: optional wall-clock deadline.
        time_limit: seconds one ``propose``/``respond`` call may take (None: no limit).
        seed: the tournament seed; every session's seed derives from it.
        learning: pass each agent its own earlier sessions (``view.memory``) and run the
            repetitions in order.
        sandbox: where agents run (:mod:`accord.sandbox`): ``none`` (in-process: trusted
            code only), ``os`` (every agent in a bubblewrap sandbox), ``process`` (every
            agent in a plain child process: weaker, see ``docs/sandbox.md``) or ``auto``
            (``os`` for agents whose code lies outside the installed packages, built-ins
            in-process). The command line uses ``auto``; this API ``none``.
        isolated: the older switch: True means ``sandbox="os"`` when ``sandbox`` is
            ``none``.
        cpu_limit: CPU seconds per agent per session (sandboxed agents).
        memory_limit: megabytes of address space an agent may use beyond the
            interpreter's own (sandboxed agents).
        call_timeout: seconds to wait for one call of a sandboxed agent when
            ``time_limit`` is not set.
        discretize: grid values per real issue (and per huge integer issue) for
            scenarios that cannot be enumerated; None: 10 when needed; 0: never (then
            only agents that handle real issues can play).
        failure_score: what the agent that failed a session scores in it: ``zero``
            (default: 0, the lowest utility of a normalised profile, so a failure never
            pays) or ``reservation`` (its reservation value, as NegMAS does: an agent that
            fails often can then outrank agents that negotiate). Its opponents get their
            reservation value either way, as for no agreement.
        sessions_per_sandbox: ``many`` (default: a sandbox serves many of its agent's
            live sessions at once, :mod:`accord.tournament.multiplex`; while it plays one
            it holds the others, on the same side only: one sandbox per side, never given
            a profile its opponents play, :mod:`accord.tournament.admission`) or ``one``
            (one session at a time: no other live session is reachable, but one sandbox
            plays every side in turn; one round trip per call, several times slower). The
            results file stores the mode that ran (``one`` where nothing multiplexes:
            a deadline in seconds, an executor built with ``multiplex=False``).
        name: a label for reports.
        protocol: the negotiation protocol, by short name (``aop``, ``ultimatum``),
            versioned id (``aop-v1``) or import path ``package.module:Class``; stored as
            the versioned id (see :mod:`accord.core.protocols.registry`).
        protocol_path: set from ``protocol`` when that is an import path (the workers
            import it; results name the id).
    """

    agents: tuple[AgentSpec, ...]
    scenarios: tuple[str | Scenario | Mapping[str, Any], ...]
    reps: int = 1
    self_play: bool = True
    rotate: bool = True
    pairing: str = "product"
    rounds: int = 100
    seconds: float | None = None
    time_limit: float | None = None
    seed: int = 0
    learning: bool = False
    isolated: bool = False
    sandbox: str = "none"
    cpu_limit: float = 60.0
    memory_limit: int = 2048
    call_timeout: float = 10.0
    name: str = "tournament"
    protocol: str = DEFAULT_PROTOCOL
    discretize: int | None = None
    failure_score: str = "zero"
    sessions_per_sandbox: str = "many"
    protocol_path: str | None = None

    def __post_init__(self) -> None:
        _check_types(self)
        if not isinstance(self.protocol, str):
            raise ConfigError(f"protocol must be a name such as 'aop', got {self.protocol!r}")
        if ":" in self.protocol:  # results name the id; workers import the path
            object.__setattr__(self, "protocol_path", self.protocol)
        object.__setattr__(self, "protocol", protocol_info(self.protocol_path or self.protocol).id)
        object.__setattr__(self, "agents", tuple(AgentSpec.parse(a) for a in self.agents))
        object.__setattr__(self, "scenarios", tuple(self.scenarios))
        if not self.agents:
            raise ConfigError("a tournament needs at least one agent; got none")
        names = [a.name for a in self.agents]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ConfigError(f"agent names must be unique; repeated: {dup} (give each a name)")
        if not self.scenarios:
            raise ConfigError("a tournament needs at least one scenario; got none")
        if self.reps < 1:
            raise ConfigError(f"reps must be >= 1, got {self.reps}")
        if self.rounds < 1:
            raise ConfigError(f"rounds must be >= 1, got {self.rounds}")
        if self.pairing not in PAIRINGS:
            raise ConfigError(f"pairing must be one of {PAIRINGS}, got {self.pairing!r}")
        for what in ("time_limit", "seconds"):
            v = getattr(self, what)
            if v is not None and not v > 0:
                raise ConfigError(f"{what} must be > 0 seconds or unset, got {v}")
        if self.sandbox not in ("auto", "os", "process", "none"):
            raise ConfigError(
                f"sandbox must be one of auto, os, process, none; got {self.sandbox!r}"
            )
        if self.failure_score not in FAILURE_SCORES:
            raise ConfigError(
                f"failure_score must be one of {FAILURE_SCORES}, got {self.failure_score!r}"
            )
        if self.sessions_per_sandbox not in SESSIONS_PER_SANDBOX:
            raise ConfigError(
                f"sessions_per_sandbox must be 'many' or 'one', got {self.sessions_per_sandbox!r}"
            )
        if self.discretize is not None and self.discretize != 0 and self.discretize < 2:
            raise ConfigError(
                f"discretize must be 0 (keep real issues) or >= 2 levels, got {self.discretize}"
            )
        for entry in self.scenarios:
            if isinstance(entry, Mapping) and (
                "scenario" not in entry or set(entry) - {"scenario", "profiles"}
            ):
                raise ConfigError(
                    "a scenario entry written as a mapping needs 'scenario' (and optionally "
                    f"'profiles'); got keys {sorted(entry)}"
                )
        if not self.self_play and len(self.agents) < 2:
            raise ConfigError("without self-play a tournament needs at least 2 agents")

    # -- reading -----------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentConfig:
        """Build from a mapping with the field names above (unknown keys are an error)."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown tournament settings {unknown}; known: {sorted(known)}")
        for key in ("agents", "scenarios"):
            if key not in data:
                raise ConfigError(f"a tournament configuration needs '{key}'")
            if isinstance(data[key], str | bytes) or not isinstance(data[key], Sequence):
                raise ConfigError(f"'{key}' must be a list, got {data[key]!r}")
        return cls(**dict(data))

    @classmethod
    def from_yaml(cls, path: str | Path) -> TournamentConfig:
        """Read a YAML file (same keys as :meth:`from_dict`)."""
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"tournament configuration {str(p)!r} does not exist")
        import yaml  # here: a sandboxed agent's process imports this module, never YAML

        try:
            data = yaml.safe_load(p.read_text())
        except yaml.YAMLError as exc:
            raise ConfigError(f"{p}: not valid YAML: {exc}") from exc
        if not isinstance(data, Mapping):
            raise ConfigError(f"{p}: expected a mapping of settings, got {type(data).__name__}")
        return cls.from_dict(data)

    @property
    def sandbox_choice(self) -> str:
        """The sandbox setting in force (``isolated=True`` counts as ``os``)."""
        return "os" if self.isolated and self.sandbox == "none" else self.sandbox

    def with_(self, **changes: Any) -> TournamentConfig:
        """A copy with some fields changed."""
        return replace(self, **changes)

    # -- writing -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; scenario objects appear by name."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "agents":
                v = [a.to_dict() for a in v]
            elif f.name == "scenarios":
                v = [s.name if isinstance(s, Scenario) else s for s in v]
            elif f.name == "protocol_path" and v is None:
                continue  # a protocol known by its id: as written before the setting
            out[f.name] = v
        return out

    def fingerprint(self) -> str:
        """Hash of the settings that decide the sessions and their results."""
        d = self.to_dict()
        d.pop("name", None)
        d.pop("sandbox", None)  # where agents run does not change what they do
        d.pop("sessions_per_sandbox", None)  # nor how many sessions a sandbox holds at once
        if d.get("discretize") is None:  # files written before the setting existed resume
            d.pop("discretize", None)
        if d["protocol"] == DEFAULT_PROTOCOL:
            d.pop("protocol")  # results written before protocols were selectable resume
        if d.get("failure_score") == "reservation":
            d.pop("failure_score")  # results written before the setting scored failures so
        text = json.dumps(d, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]
