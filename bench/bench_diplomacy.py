"""Diplomacy benchmark: fast games per second with 7 negotiators (virtual clock).

Plays games to Winter ``--last-year`` with every power negotiating (alternately the
``alliance`` and ``random-deals`` example negotiators, 3 ticks a round, 3 tactical
candidates) and prints games per second, phases per second and the mean time of one
tactical-module call. There is no peer figure: BANDANA (Java) runs 30 s real rounds.

    python bench/bench_diplomacy.py              # 3 games to 1905
    python bench/bench_diplomacy.py --games 1 --last-year 1920
"""

from __future__ import annotations

import argparse
import time

from accord.leagues.diplomacy.deals import POWERS
from accord.leagues.diplomacy.negotiator import AllianceNegotiator, Negotiator, RandomNegotiator
from accord.leagues.diplomacy.runner import play_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--last-year", type=int, default=1905)
    args = ap.parse_args()
    t0 = time.perf_counter()
    phases = 0
    for g in range(args.games):
        negs: dict[str, Negotiator | None] = {
            p: (AllianceNegotiator(g * 7 + i) if i % 2 else RandomNegotiator(g * 7 + i))
            for i, p in enumerate(POWERS)
        }
        rec = play_game(negs, seed=g, clock="virtual", last_year=args.last_year, candidates=3)
        phases += len(rec.phases) - 1
    dt = time.perf_counter() - t0
    print(f"{args.games} games to W{args.last_year}, 7 negotiators: {dt:.1f} s")
    print(f"games/s {args.games / dt:.3f}   phases/s {phases / dt:.2f}")


if __name__ == "__main__":
    main()
