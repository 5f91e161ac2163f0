"""A HUMAINE round in fast mode: two sellers and a simulated buyer in virtual time.

Shows: a custom seller (``examples/my_seller.py``) next to a built-in one, a 300 s
round run in milliseconds with the real rules R0-R4 (on a virtual clock), the deals,
the rules' decisions, the utilities (seller: revenue - cost; buyer: value of what it
bakes), and a small fast-mode tournament of seller entries against every buyer type.

    python examples/06_humaine_fast_round.py
"""

import time
from collections import Counter

from my_seller import MarkupSeller  # the script's folder is on sys.path

from accord.leagues.humaine.agents import (
    RegexSeller,
    leaderboard,
    make_buyer,
    run_fast_round,
    run_tournament,
)

start = time.perf_counter()
result = run_fast_round(MarkupSeller("Celia"), RegexSeller("Watson"), make_buyer("fair"), seed=2)
took = time.perf_counter() - start
print(f"one 300 s round in {took * 1000:.0f} ms of real time, {result['events']} events")
for line in result["transcript"][:4]:
    print(f"  {line['t']:6.2f} {line['speaker']}: {line['text']}")
for deal in result["deals"]:
    print(f"  deal with {deal['seller']}: {deal['quantity']} for ${deal['price']:.2f}")
blocked = Counter(d["rule"] for d in result["decisions"] if not d["permitted"])
print(f"decisions: {len(result['decisions'])}, blocked by rule: {dict(blocked)}")
for name, seller in result["sellers"].items():
    print(
        f"  {name} ({seller['agent']}): utility {seller['utility']:.2f}, "
        f"revenue {seller['revenue']:.2f}"
    )
print(
    f"  buyer ({result['buyer']['strategy']}): utility {result['buyer']['utility']:.2f}, "
    f"spent {result['buyer']['cost']:.2f}"
)

rounds = run_tournament(["my_seller:MarkupSeller", "strong", "regex"], seeds=range(2))
print(f"tournament: {len(rounds) // 2} rounds")
print(leaderboard(rounds)[["agent", "rounds", "mean_utility", "win_rate"]].to_string(index=False))
