"""A fast movement-phase adjudicator for order sets without convoys (pure Python).

The tactical module values each candidate order set by adjudicating it; doing that on a
copy of the engine's game costs a deep copy, a state reload and a full engine pass. This
module resolves holds, moves and supports directly, with Kruijswijk's partial-information
algorithm (each move's success is a decision; a cycle of guesses is settled by trying
both answers, and two consistent answers of a move cycle mean circular movement, which
succeeds). Its definitions of attack, hold, defend and prevent strength, support cuts
(not by the supporter's own power, not from the province the support goes into unless
that attack dislodges the supporter) and self-dislodgement follow the DATC's. Convoys
are out of scope: `direct_only` says whether an order set qualifies, and the tactical
module hands any other set to the engine. ``tests/leagues/diplomacy`` checks the
results against the ``diplomacy`` engine's on thousands of random legal order sets.

Example:
    >>> units = {"PAR": ("FRANCE", "A PAR"), "MAR": ("FRANCE", "A MAR"),
    ...          "MUN": ("GERMANY", "A MUN")}
    >>> out = resolve_moves(units, ["A PAR - BUR", "A MAR S A PAR - BUR", "A MUN - BUR"])
    >>> out["PAR"], out["MUN"]
    ('BUR', 'MUN')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

__all__ = ["direct_only", "resolve_moves"]

_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2


@lru_cache(maxsize=65536)
def _split(order: str) -> tuple[str, str, str, str, str]:
    """``(province, kind, target province, target location, supported province)``.

    kind is H, -, S or C; for a support, target is where the support goes ("" for a
    hold support) and supported is the supported unit's province."""
    w = order.upper().split()
    prov = w[1][:3]
    kind = w[2] if len(w) > 2 else "H"
    if kind == "-":
        return (prov, "-", w[3][:3], w[3], "")
    if kind == "S":
        sup = w[4][:3]
        if len(w) >= 7 and w[5] == "-":
            return (prov, "S", w[6][:3], w[6], sup)
        return (prov, "S", "", "", sup)
    if kind == "C":
        return (prov, "C", "", "", w[4][:3])
    return (prov, "H", "", "", "")


def direct_only(orders: Iterable[str]) -> bool:
    """True when no order is a convoy or a move by convoy (``VIA``).

    >>> direct_only(["A PAR - BUR", "F NTH C A LON - NWY"])
    False
    """
    for o in orders:
        if o.endswith(" VIA") or " C " in o:
            return False
    return True


class _Resolver:
    def __init__(self, units: Mapping[str, tuple[str, str]], orders: Iterable[str]) -> None:
        self.power = {prov: p for prov, (p, _u) in units.items()}
        self.order: dict[str, tuple[str, str, str, str, str]] = {}
        for o in orders:
            s = _split(o)
            if s[0] in self.power:
                self.order[s[0]] = s
        for prov in self.power:
            self.order.setdefault(prov, (prov, "H", "", "", ""))
        self.into: dict[str, list[str]] = {}
        for prov, s in self.order.items():
            if s[1] == "-":
                self.into.setdefault(s[2], []).append(prov)
        # valid supports per supported province, with whether they are cut statically
        self.supports: dict[str, list[str]] = {}
        self.cut: dict[str, bool] = {}
        for prov, s in self.order.items():
            if s[1] != "S":
                continue
            target = self.order.get(s[4])
            if target is None:
                continue
            if s[2]:
                if target[1] != "-" or target[2] != s[2]:
                    continue
                into = s[2]
            else:
                if target[1] == "-":
                    continue
                into = s[4]
            self.supports.setdefault(s[4], []).append(prov)
            mine = self.power[prov]
            self.cut[prov] = any(
                a != into and self.power[a] != mine for a in self.into.get(prov, ())
            )
        self.state: dict[str, int] = {}
        self.res: dict[str, bool] = {}
        self.deps: list[str] = []

    # -- strengths ------------------------------------------------------------------------
    def _support(self, prov: str, exclude: str | None = None) -> int:
        n = 0
        for s in self.supports.get(prov, ()):
            if self.cut[s] or (exclude is not None and self.power[s] == exclude):
                continue
            if any(self.resolve(a) for a in self.into.get(s, ())):
                continue  # the supporter is dislodged
            n += 1
        return n

    def _h2h(self, prov: str) -> str | None:
        dest = self.order[prov][2]
        o = self.order.get(dest)
        if o is not None and o[1] == "-" and o[2] == prov:
            return dest
        return None

    def _attack(self, prov: str) -> int:
        dest = self.order[prov][2]
        occ = self.order.get(dest)
        if occ is None or (occ[1] == "-" and self._h2h(prov) is None and self.resolve(dest)):
            return 1 + self._support(prov)
        if self.power[dest] == self.power[prov]:
            return 0
        return 1 + self._support(prov, exclude=self.power[dest])

    def _hold(self, prov: str) -> int:
        o = self.order.get(prov)
        if o is None:
            return 0
        if o[1] == "-":
            return 0 if self.resolve(prov) else 1
        return 1 + self._support(prov)

    def _prevent(self, prov: str) -> int:
        opp = self._h2h(prov)
        if opp is not None and self.resolve(opp):
            return 0
        return 1 + self._support(prov)

    def _adjudicate(self, prov: str) -> bool:
        dest = self.order[prov][2]
        attack = self._attack(prov)
        opp = self._h2h(prov)
        if opp is not None:
            if attack <= 1 + self._support(opp):
                return False
        elif attack <= self._hold(dest):
            return False
        for other in self.into.get(dest, ()):
            if other != prov and attack <= self._prevent(other):
                return False
        return True

    # -- Kruijswijk's guessing resolution --------------------------------------------------
    def resolve(self, prov: str) -> bool:
        st = self.state.get(prov, _UNRESOLVED)
        if st == _RESOLVED:
            return self.res[prov]
        if st == _GUESSING:
            if prov not in self.deps:
                self.deps.append(prov)
            return self.res[prov]
        old = len(self.deps)
        self.res[prov] = False
        self.state[prov] = _GUESSING
        first = self._adjudicate(prov)
        if len(self.deps) == old:
            if self.state[prov] != _RESOLVED:
                self.res[prov] = first
                self.state[prov] = _RESOLVED
            return first
        if self.deps[old] != prov:
            self.deps.append(prov)
            self.res[prov] = first
            return first
        for p in self.deps[old:]:
            self.state[p] = _UNRESOLVED
        del self.deps[old:]
        self.res[prov] = True
        self.state[prov] = _GUESSING
        second = self._adjudicate(prov)
        if first == second:
            for p in self.deps[old:]:
                self.state[p] = _UNRESOLVED
            del self.deps[old:]
            self.res[prov] = first
            self.state[prov] = _RESOLVED
            return first
        # Without convoys, a cycle with two consistent answers is circular movement:
        # every move in it succeeds.
        for p in self.deps[old:]:
            self.res[p] = True
            self.state[p] = _RESOLVED
        del self.deps[old:]
        self.res[prov] = True
        self.state[prov] = _RESOLVED
        return True


def resolve_moves(units: Mapping[str, tuple[str, str]], orders: Iterable[str]) -> dict[str, str]:
    """Adjudicate direct orders; return where each unit ends, by its starting province.

    ``units`` maps a province to ``(power, unit)`` (``"F STP/SC"``); ``orders`` are in the
    engine's notation, one per unit at most (a unit without an order holds). The result
    maps each starting province to the unit's final location (``"BUR"``, ``"SPA/SC"``)
    or to ``""`` when it is dislodged. Orders must be legal and `direct_only`.
    """
    r = _Resolver(units, orders)
    out: dict[str, str] = {}
    for prov, s in r.order.items():
        if s[1] == "-" and r.resolve(prov):
            out[prov] = s[3]
    for prov in r.order:
        if prov in out:
            continue
        if any(r.resolve(a) for a in r.into.get(prov, ())):
            out[prov] = ""
        else:
            out[prov] = units[prov][1].split()[1]
    return out
