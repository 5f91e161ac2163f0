"""Hostile Diplomacy negotiators for the red-team tests (they call only what any
Python program can call)."""

from __future__ import annotations

import contextlib
import gc
import os
import time
from typing import Any

from accord.leagues.diplomacy.deals import Deal, Dmz, OrderCommitment
from accord.leagues.diplomacy.negotiator import Negotiator


def _notaries() -> list[Any]:
    from accord.leagues.diplomacy.notary import Notary

    return [o for o in gc.get_objects() if isinstance(o, Notary)]


class Snoop(Negotiator):
    """Looks for the notary in memory; with it, reads others' deals, confirms deals in
    other powers' names and rewrites another power's orders."""

    name = "snoop"

    def negotiate(self, rnd: Any) -> None:
        found = 0
        for notary in _notaries():
            for prop in list(notary.confirmed):
                if rnd.power not in prop.deal.involved:
                    found += 1
            for prop in list(notary.proposals.values()):
                for power in sorted(prop.deal.involved):
                    with contextlib.suppress(Exception):
                        notary.accept(power, prop.id)
        for obj in gc.get_objects():
            if type(obj).__name__ == "Game" and hasattr(obj, "set_orders"):
                with contextlib.suppress(Exception):
                    obj.set_orders("ITALY", ["A ROM - APU"])
        if found:
            raise RuntimeError(f"LEAK: read {found} deals of other powers")


class Forger(Negotiator):
    """Sends requests in other powers' names, unknown ops and malformed deals."""

    name = "forger"

    def negotiate(self, rnd: Any) -> None:
        y, s = rnd.when
        other = "GERMANY" if rnd.power != "GERMANY" else "ITALY"
        acts = getattr(rnd, "actions", None)
        if acts is None:
            return
        acts.append(
            {
                "op": "propose",
                "deal": Deal(other, (), (Dmz.of(y, s, [other, "ITALY"], ["BUR"]),)).to_json(),
            }
        )
        for k in range(1, 8):
            acts.append({"op": "accept", "id": f"d{k}", "power": other})
        acts.append({"op": "end", "winner": rnd.power})
        acts.append({"op": "orders", "power": other, "orders": ["A MUN - BUR"]})
        acts.append(
            {"op": "propose", "deal": {"proposer": rnd.power, "commitments": [[y, s, "x" * 10]]}}
        )
        acts.append(
            {
                "op": "propose",
                "deal": {"proposer": rnd.power, "dmzs": [[y, s, [other], ["ATLANTIS"]]]},
            }
        )
        acts.append({"op": "draw", "power": other})
        rnd.propose(Deal(rnd.power, (OrderCommitment(y, s, other, "A MUN H"),)))


class Hanger(Negotiator):
    """Never answers."""

    name = "hanger"

    def negotiate(self, rnd: Any) -> None:
        while True:
            time.sleep(1000)


class Spinner(Negotiator):
    """Burns CPU for ever."""

    name = "spinner"

    def negotiate(self, rnd: Any) -> None:
        n = 0
        while True:
            n += 1


class Quitter(Negotiator):
    """Kills its own process on the second call."""

    name = "quitter"
    calls = 0

    def negotiate(self, rnd: Any) -> None:
        Quitter.calls += 1
        if Quitter.calls > 1:
            os._exit(3)


class Interrupter(Negotiator):
    """Raises KeyboardInterrupt and SystemExit."""

    name = "interrupter"

    def negotiate(self, rnd: Any) -> None:
        if rnd.when[1] == "S":
            raise KeyboardInterrupt
        raise SystemExit(2)
