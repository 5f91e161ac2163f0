"""BANDANA deals: order commitments and demilitarised zones (pure, no engine needed).

A deal is a non-empty set of order commitments ``(year, phase, power, order)`` and
demilitarised zones ``(year, phase, powers, provinces)``. It must involve at least one
power besides its proposer. Orders use the engine's notation (``"A PAR - BUR"``,
``"F BRE H"``, ``"A MAR S A PAR - BUR"``, ``"F NTH C A LON - NWY"``).

Example:
    >>> d = Deal.make("FRANCE", [OrderCommitment(1901, "S", "GERMANY", "A MUN H")])
    >>> sorted(d.involved)
    ['FRANCE', 'GERMANY']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from accord.core.errors import InvalidValue

__all__ = [
    "COASTS",
    "POWERS",
    "PROVINCES",
    "SEASONS",
    "Deal",
    "DealError",
    "Dmz",
    "OrderCommitment",
    "ParsedOrder",
    "inconsistency",
    "parse_order",
    "province",
]

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
"""The seven powers of the standard map."""

SEASONS = ("S", "F")
"""Phases a deal may be about: Spring and Fall movement (ANAC)."""

# fmt: off
PROVINCES = frozenset([
    "ADR", "AEG", "ALB", "ANK", "APU", "ARM", "BAL", "BAR", "BEL", "BER", "BLA", "BOH",
    "BOT", "BRE", "BUD", "BUL", "BUR", "CLY", "CON", "DEN", "EAS", "EDI", "ENG", "FIN",
    "GAL", "GAS", "GRE", "HEL", "HOL", "ION", "IRI", "KIE", "LON", "LVN", "LVP", "LYO",
    "MAO", "MAR", "MOS", "MUN", "NAF", "NAO", "NAP", "NTH", "NWG", "NWY", "PAR", "PIC",
    "PIE", "POR", "PRU", "ROM", "RUH", "RUM", "SER", "SEV", "SIL", "SKA", "SMY", "SPA",
    "STP", "SWE", "SWI", "SYR", "TRI", "TUN", "TUS", "TYR", "TYS", "UKR", "VEN", "VIE",
    "WAL", "WAR", "WES", "YOR",
])
# fmt: on
"""The 76 provinces of the standard map (Switzerland included: impassable, but named)."""

COASTS = frozenset({"BUL/EC", "BUL/SC", "SPA/NC", "SPA/SC", "STP/NC", "STP/SC"})
"""Locations naming one coast of a province with two."""


class DealError(InvalidValue):
    """A deal, commitment or DMZ that cannot be made as given."""


def province(location: str) -> str:
    """The province of a location: ``"STP/NC"`` -> ``"STP"``.

    >>> province("spa/sc")
    'SPA'
    """
    return location.upper().split("/")[0]


@dataclass(frozen=True, slots=True)
class ParsedOrder:
    """A movement-phase order split into its parts.

    ``kind`` is ``"H"`` (hold), ``"-"`` (move), ``"S"`` (support) or ``"C"`` (convoy).
    ``target`` is the destination of a move, ``None`` otherwise.
    """

    unit: str
    location: str
    kind: str
    target: str | None

    @property
    def stays(self) -> bool:
        """True when the unit stays in its province this phase (anything but a move)."""
        return self.kind != "-"


def parse_order(order: str) -> ParsedOrder:
    """Parse an order in the engine's notation; raise `DealError` on anything else.

    >>> parse_order("A PAR - BUR VIA").target
    'BUR'
    >>> parse_order("A MAR S A PAR - BUR").kind
    'S'
    """
    words = order.upper().split()
    expected = (
        "an order like 'A PAR H', 'A PAR - BUR', 'A MAR S A PAR - BUR' or 'F NTH C A LON - NWY'"
    )
    if len(words) < 3 or words[0] not in ("A", "F"):
        raise DealError(f"illegal order {order!r}: expected {expected}")
    unit, loc, kind = words[0], words[1], words[2]
    for w in (words[1], words[3] if len(words) > 3 else "", words[4] if len(words) > 4 else ""):
        if w and w not in ("A", "F", "-", "VIA") and not _is_location(w):
            raise DealError(f"illegal order {order!r}: {w!r} is not a location of the standard map")
    if len(words) > 6 and not _is_location(words[6]):
        raise DealError(f"illegal order {order!r}: {words[6]!r} is not a location of the map")
    if kind == "H" and len(words) == 3:
        return ParsedOrder(unit, loc, "H", None)
    if kind == "-" and len(words) in (4, 5) and (len(words) == 4 or words[4] == "VIA"):
        return ParsedOrder(unit, loc, "-", words[3])
    support = kind == "S" and len(words) in (5, 7) and words[3] in ("A", "F")
    if support and (len(words) == 5 or words[5] == "-"):
        return ParsedOrder(unit, loc, "S", None)
    if kind == "C" and unit == "F" and len(words) == 7 and words[3] == "A" and words[5] == "-":
        return ParsedOrder(unit, loc, "C", None)
    raise DealError(f"illegal order {order!r}: expected {expected}")


def _is_location(word: str) -> bool:
    return word in PROVINCES or word in COASTS


def _check_time(year: int, phase: str, what: str) -> None:
    if not isinstance(year, int) or year <= 1900:
        raise DealError(f"{what}: expected a year after 1900, got {year!r}")
    if phase not in SEASONS:
        raise DealError(f"{what}: expected phase 'S' (Spring) or 'F' (Fall), got {phase!r}")


def _check_power(power: str, powers: Iterable[str], what: str) -> None:
    allowed = tuple(powers)
    if power not in allowed:
        raise DealError(f"{what}: power {power!r} is not in the game; expected one of {allowed}")


@dataclass(frozen=True, slots=True)
class OrderCommitment:
    """A promise that ``power`` submits ``order`` in ``phase`` of ``year``."""

    year: int
    phase: str
    power: str
    order: str

    def __post_init__(self) -> None:
        _check_time(self.year, self.phase, f"commitment {self.order!r}")
        parse_order(self.order)

    @property
    def when(self) -> tuple[int, int]:
        """``(year, 0 for Spring / 1 for Fall)``, comparable in time order."""
        return (self.year, SEASONS.index(self.phase))

    @property
    def parsed(self) -> ParsedOrder:
        """The commitment's order, split into its parts."""
        return parse_order(self.order)


@dataclass(frozen=True, slots=True)
class Dmz:
    """No power in ``powers`` may enter or stay in any of ``provinces`` in that phase."""

    year: int
    phase: str
    powers: frozenset[str]
    provinces: frozenset[str]

    def __post_init__(self) -> None:
        _check_time(self.year, self.phase, "DMZ")
        if not self.powers:
            raise DealError("DMZ: expected at least one power, got none")
        if not self.provinces:
            raise DealError("DMZ: expected at least one province, got none")
        provs = frozenset(province(p) for p in self.provinces)
        unknown = sorted(provs - PROVINCES)
        if unknown:
            raise DealError(
                f"DMZ: {unknown} are not provinces of the standard map; expected names "
                "like 'BUR', 'NTH', 'STP'"
            )
        object.__setattr__(self, "provinces", provs)

    @staticmethod
    def of(year: int, phase: str, powers: Iterable[str], provinces: Iterable[str]) -> Dmz:
        """Build a DMZ from any iterables."""
        return Dmz(year, phase, frozenset(powers), frozenset(provinces))

    @property
    def when(self) -> tuple[int, int]:
        """``(year, 0 for Spring / 1 for Fall)``."""
        return (self.year, SEASONS.index(self.phase))


@dataclass(frozen=True, slots=True)
class Deal:
    """A proposed set of commitments and DMZs, accepted or rejected as a whole."""

    proposer: str
    commitments: tuple[OrderCommitment, ...]
    dmzs: tuple[Dmz, ...] = ()

    @staticmethod
    def make(
        proposer: str,
        commitments: Iterable[OrderCommitment] = (),
        dmzs: Iterable[Dmz] = (),
        powers: Iterable[str] = POWERS,
    ) -> Deal:
        """Build and validate a deal (raises `DealError` naming the problem)."""
        deal = Deal(proposer, tuple(commitments), tuple(dmzs))
        deal.validate(powers)
        return deal

    @property
    def involved(self) -> frozenset[str]:
        """The proposer and every power named by a commitment or a DMZ."""
        names = {self.proposer} | {c.power for c in self.commitments}
        for z in self.dmzs:
            names |= z.powers
        return frozenset(names)

    @property
    def times(self) -> frozenset[tuple[int, int]]:
        """Every ``(year, season index)`` the deal is about."""
        return frozenset(c.when for c in self.commitments) | frozenset(z.when for z in self.dmzs)

    def validate(self, powers: Iterable[str] = POWERS) -> None:
        """Raise `DealError` unless the deal is well formed for a game with ``powers``."""
        allowed = tuple(powers)
        _check_power(self.proposer, allowed, "proposer")
        if not self.commitments and not self.dmzs:
            raise DealError("deal: expected at least one order commitment or DMZ, got none")
        for c in self.commitments:
            _check_power(c.power, allowed, f"commitment {c.order!r}")
        for z in self.dmzs:
            for p in z.powers:
                _check_power(p, allowed, "DMZ")
        if self.involved == {self.proposer}:
            raise DealError(
                f"deal: expected it to involve a power besides the proposer {self.proposer}, "
                "got only the proposer"
            )
        problem = inconsistency([self])
        if problem:
            raise DealError(f"deal contradicts itself: {problem}")

    def is_past(self, now: tuple[int, int]) -> bool:
        """True when the deal mentions a phase before ``now`` (it is then void)."""
        return any(t < now for t in self.times)

    def is_expired(self, now: tuple[int, int]) -> bool:
        """True when every phase the deal is about is before ``now``."""
        return all(t < now for t in self.times)

    def to_json(self) -> dict[str, object]:
        """A JSON-ready form."""
        return {
            "proposer": self.proposer,
            "commitments": [[c.year, c.phase, c.power, c.order] for c in self.commitments],
            "dmzs": [[z.year, z.phase, sorted(z.powers), sorted(z.provinces)] for z in self.dmzs],
        }

    @staticmethod
    def from_json(data: dict[str, object]) -> Deal:
        """Inverse of `to_json` (no validation against a game's powers)."""
        cs = data.get("commitments", [])
        zs = data.get("dmzs", [])
        if not isinstance(cs, list) or not isinstance(zs, list):
            raise DealError(f"deal: expected lists of commitments and dmzs, got {data!r}")
        return Deal(
            str(data["proposer"]),
            tuple(OrderCommitment(int(y), str(s), str(p), str(o)) for y, s, p, o in cs),
            tuple(Dmz.of(int(y), str(s), ps, pr) for y, s, ps, pr in zs),
        )


def inconsistency(deals: Iterable[Deal]) -> str | None:
    """Why ``deals`` cannot all be obeyed together, or ``None`` if they can.

    For each phase: (i) one unit committed to two different orders (a hold commitment
    is met by a support from that unit, but not by two different ones), or two different
    units (powers, types or coasts) committed in one province, (ii) a commitment that moves a power's unit into,
    or keeps it in, a province a DMZ forbids to that power, (iii) two units committed
    to move into the same province from the same power.
    """
    orders: dict[tuple[tuple[int, int], str], list[OrderCommitment]] = {}
    dmz: dict[tuple[tuple[int, int], str], set[str]] = {}
    targets: dict[tuple[tuple[int, int], str, str], OrderCommitment] = {}
    commitments = [c for d in deals for c in d.commitments]
    for d in deals:
        for z in d.dmzs:
            for prov in z.provinces:
                dmz.setdefault((z.when, prov), set()).update(z.powers)
    for c in commitments:
        p = c.parsed
        key = (c.when, province(p.location))
        same = orders.setdefault(key, [])
        for other in same:
            q = other.parsed
            if (other.power, q.unit, q.location) != (c.power, p.unit, p.location):
                return (
                    f"{c.year}{c.phase}: {other.power}'s {other.order!r} and {c.power}'s "
                    f"{c.order!r} need two different units in {province(p.location)}"
                )
            if other.order.upper() == c.order.upper():
                continue
            if {q.kind, p.kind} != {"H", "S"}:
                return (
                    f"{c.year}{c.phase}: the unit in {province(p.location)} is committed to "
                    f"both {other.order!r} and {c.order!r}"
                )
        same.append(c)
        where = province(p.target) if p.target else province(p.location)
        banned = dmz.get((c.when, where), set())
        if c.power in banned:
            verb = "moves into" if p.target else "stays in"
            return (
                f"{c.year}{c.phase}: {c.power}'s {c.order!r} {verb} {where}, "
                f"a demilitarised zone for {c.power}"
            )
        if p.target:
            tkey = (c.when, c.power, province(p.target))
            prev = targets.get(tkey)
            if prev is not None and province(prev.parsed.location) != province(p.location):
                return (
                    f"{c.year}{c.phase}: {c.power} is committed to move two units into "
                    f"{province(p.target)} ({prev.order!r}, {c.order!r})"
                )
            targets[tkey] = c
    return None
