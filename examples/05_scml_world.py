"""A small SCML supply-chain world stepped day by day (the 2021 standard track rules).

Shows: a generated basic configuration (Appendix A.2), one agent type per factory
(built-in short names, cycled), stepping the world one day at a time, the conservation
checks, eq. 3 profits per factory and per agent type, and that the same seed gives the
same world. See docs/scml.md for the rules as implemented.

    python examples/05_scml_world.py
"""

from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.world import World

DAYS = 10
config = generate_config(n_steps=DAYS, factories_per_level=[3, 2], seed=4)
agents = ["trader", "random", "trader", "donothing", "trader"]  # one per factory
print(
    f"{config.n_factories} factories on {len(config.factories_per_level)} levels, "
    f"{config.n_products} products, {DAYS} days"
)

world = World(config, agents, seed=4)
while world.day < DAYS:
    world.step()  # the seven steps of one simulated day
    world.check_invariants()  # money and goods are conserved
    if world.day % 5 == 0:
        print(
            f"  day {world.day:2d}: {int(world.history.signed[: world.day].sum())} contracts "
            f"signed, balances {world.current_balances().tolist()}"
        )

for name, score in world.scores().items():
    print(f"  {name}: profit {score:+.4f}")
for agent_type, score in world.type_scores().items():
    print(f"  {agent_type.rsplit(':', 1)[-1]}: {score:+.4f}")

same = World(generate_config(n_steps=DAYS, factories_per_level=[3, 2], seed=4), agents, seed=4)
print(f"same seed, same scores: {same.run().scores() == world.scores()}")
