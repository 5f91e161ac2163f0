"""Deals bind in every phase they concern; later phases are validated; runs reproduce."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from accord.leagues.diplomacy.checks import random_deal_games  # noqa: E402
from accord.leagues.diplomacy.deals import (  # noqa: E402
    Deal,
    DealError,
    Dmz,
    OrderCommitment,
    inconsistency,
)
from accord.leagues.diplomacy.engine import new_game  # noqa: E402
from accord.leagues.diplomacy.notary import Notary  # noqa: E402
from accord.leagues.diplomacy.runner import board_check  # noqa: E402
from accord.leagues.diplomacy.tactics import Tactics, obeys  # noqa: E402

SRC = Path(__file__).resolve().parents[3] / "src"


def test_random_deal_games_keep_every_deal_another_order_could_keep() -> None:
    audit = random_deal_games(4, last_year=1903, seed=5)
    assert audit.deals > 100 and audit.later_deals > 30  # half are about the next phase
    assert audit.checked > 100 and audit.later_checked > 30
    assert audit.broken == 0, audit.examples
    assert audit.made_impossible == 0, audit.examples


@pytest.mark.slow
def test_25_random_deal_games_to_1905_keep_every_keepable_deal() -> None:
    """A quarter of docs/diplomacy.md's 100-game audit (about 5 s of CPU instead of 20;
    the full figures come from ``bench/bench_diplomacy.py --audit 100``): about 1,500
    deals, half of them about a later phase, every one kept where it could be."""
    audit = random_deal_games(25, last_year=1905, seed=7)
    assert audit.games == 25 and audit.later_deals > 600
    assert audit.broken == 0 and audit.made_impossible == 0, audit.examples


def test_the_audit_counts_a_commitment_broken_by_another_order() -> None:
    """The audit can fail: in a played game's first phase, one power's order for a unit
    with a confirmed commitment is swapped for another legal order; the audit of the
    changed record counts exactly that commitment as broken (the record as played: 0)."""
    from accord.leagues.diplomacy.board import board
    from accord.leagues.diplomacy.checks import DealTester, audit
    from accord.leagues.diplomacy.deals import POWERS, parse_order, province
    from accord.leagues.diplomacy.runner import play_game

    possible = board(new_game()).possible
    for seed in range(20):
        negs = {p: DealTester(seed * 7 + i) for i, p in enumerate(POWERS)}
        row = play_game(negs, seed=seed, clock="virtual", last_year=1901).to_json()["phases"][0]
        confirmed = [row["deals"][e["id"]] for e in row["events"] if e["kind"] == "confirm"]
        musts = [
            c
            for d in map(Deal.from_json, confirmed)
            for c in d.commitments
            if (c.year, c.phase) == (1901, "S")
        ]
        if musts:
            break
    assert musts, "no first-phase commitment confirmed in 20 games"
    must = musts[0]
    loc = parse_order(must.order).location
    other = next(
        o for o in possible[loc] if o != must.order and not o.startswith(must.order[:-1] + "S")
    )
    assert audit({"phases": [row]}).broken == 0
    changed = {**row, "orders": {**row["orders"]}}
    changed["orders"][must.power] = [
        o for o in row["orders"][must.power] if province(parse_order(o).location) != province(loc)
    ] + [other]
    result = audit({"phases": [changed]})
    assert result.broken == 1, result.examples
    assert repr(must.order) in result.examples[0] and repr(other) in result.examples[0]


def test_a_dmz_on_atlantis_is_refused() -> None:
    with pytest.raises(DealError, match="ATL"):
        Dmz.of(1901, "F", ["FRANCE"], ["ATLANTIS"])
    with pytest.raises(DealError, match="not a location"):
        OrderCommitment(1901, "F", "FRANCE", "A PAR - ATL")


def test_hold_plus_two_different_supports_is_inconsistent_in_any_phase() -> None:
    cs = [
        OrderCommitment(1902, "S", "FRANCE", "A PAR H"),
        OrderCommitment(1902, "S", "FRANCE", "A PAR S A MAR - BUR"),
        OrderCommitment(1902, "S", "FRANCE", "A PAR S A PIC - BUR"),
    ]
    assert inconsistency([Deal("GERMANY", (cs[0], cs[1]))]) is None
    assert "committed to both" in (inconsistency([Deal("GERMANY", tuple(cs))]) or "")
    with pytest.raises(DealError):
        Deal.make("GERMANY", cs)
    n = Notary()
    assert n.accept("FRANCE", n.propose("GERMANY", Deal.make("GERMANY", cs[:2])))
    pid = n.propose("GERMANY", Deal.make("GERMANY", [cs[2]]))
    n.accept("FRANCE", pid)
    assert n.find(pid) is not None and n.find(pid).status == "inconsistent"  # type: ignore[union-attr]


def test_notary_checks_later_phases_on_the_map() -> None:
    game = new_game()
    n = Notary(check=board_check(game))
    with pytest.raises(DealError, match="cannot reach"):
        n.propose(
            "GERMANY", Deal.make("GERMANY", [OrderCommitment(1901, "F", "FRANCE", "A PAR - LON")])
        )
    with pytest.raises(DealError, match="no army can be"):
        n.propose(
            "GERMANY", Deal.make("GERMANY", [OrderCommitment(1901, "F", "FRANCE", "A NTH H")])
        )
    with pytest.raises(DealError, match="no unit of FRANCE"):
        n.propose(
            "GERMANY", Deal.make("GERMANY", [OrderCommitment(1901, "F", "FRANCE", "A MOS H")])
        )
    ok = n.propose(
        "GERMANY", Deal.make("GERMANY", [OrderCommitment(1901, "F", "FRANCE", "A BUR - MUN")])
    )
    assert ok


def test_one_impossible_commitment_drops_only_itself() -> None:
    game = new_game()
    deals = [
        # impossible: PAR holds an army, not a fleet
        Deal("GERMANY", (OrderCommitment(1901, "S", "FRANCE", "F PAR H"),)),
        Deal("GERMANY", (), (Dmz.of(1901, "S", ["FRANCE"], ["BUR", "PIC", "GAS"]),)),
    ]
    plan = Tactics(candidates=3, seed=1).plan(game, "FRANCE", deals)
    par = next(o for o in plan.orders if o.startswith("A PAR"))
    assert par.split()[-1] not in ("BUR", "PIC", "GAS")
    assert not obeys("FRANCE", plan.orders, deals, (1901, 0))  # the impossible one is broken
    assert obeys("FRANCE", plan.orders, deals[1:], (1901, 0))  # the DMZ is kept


def test_a_later_commitment_keeps_its_unit_in_reach() -> None:
    game = new_game()
    later = Deal("GERMANY", (OrderCommitment(1901, "F", "FRANCE", "A PAR S A MAR - BUR"),))
    for seed in range(5):
        plan = Tactics(candidates=4, seed=seed).plan(game, "FRANCE", [later])
        assert "A PAR - " not in " ".join(plan.orders)
        mar = next(o for o in plan.orders if o.startswith("A MAR"))
        assert " - " not in mar or mar.endswith(("BUR", "GAS", "PIE", "SPA"))


_SCRIPT = """
import hashlib, json
from accord.leagues.diplomacy.deals import POWERS
from accord.leagues.diplomacy.negotiator import AllianceNegotiator, RandomNegotiator
from accord.leagues.diplomacy.checks import DealTester
from accord.leagues.diplomacy.runner import play_game
kinds = [AllianceNegotiator, RandomNegotiator, DealTester]
negs = {p: kinds[i % 3](i) for i, p in enumerate(POWERS)}
rec = play_game(negs, seed=4, clock="virtual", last_year=1903, candidates=3)
print(hashlib.sha256(json.dumps(rec.to_json(), sort_keys=True).encode()).hexdigest())
"""


def test_same_seed_same_record_under_three_hash_seeds_and_two_processes() -> None:
    digests = []
    for hash_seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(SRC)}
        out = subprocess.run(
            [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, out.stderr[-2000:]
        digests.append(out.stdout.strip())
    # and a second process under the first hash seed
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(SRC)}
    again = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=600
    )
    digests.append(again.stdout.strip())
    assert len(digests[0]) == 64
    assert len(set(digests)) == 1, digests
    _ = hashlib, json
