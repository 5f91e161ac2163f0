"""A complete negotiator: time-based concession, random bids above target, learning.

Used by docs/writing-an-agent.md and examples/02_custom_agent.py. Import path:
``my_agent:Aspirant`` (with ``examples/`` on ``PYTHONPATH``).
"""

import numpy as np

from accord.core import Negotiator, Response


class Aspirant(Negotiator):
    """Concedes from its best utility to a floor; learns the floor from past deals."""

    def __init__(self, exponent: float = 0.5, name: str | None = None) -> None:
        super().__init__(name)
        self.exponent = exponent

    def on_start(self, view):
        utils = view.utility.all()  # every outcome's utility, in flat-index order
        self.order = np.argsort(-utils, kind="stable")  # flat indices, best first
        self.sorted = utils[self.order]
        self.top = float(self.sorted[0])
        self.floor = max(view.reservation, float(self.sorted[-1]))
        past = view.memory.relevant() if view.memory is not None else []
        deals = [s.utility for s in past if s.agreed]  # my utility in earlier deals
        if deals:  # do not settle for less than 90% of what these opponents gave before
            self.floor = min(self.top, max(self.floor, 0.9 * float(np.mean(deals))))

    def target(self, t: float) -> float:
        return self.floor + (self.top - self.floor) * (1.0 - t ** (1.0 / self.exponent))

    def propose(self, view):
        # any outcome at least as good as the target, drawn with the session's own rng
        good = int(np.searchsorted(-self.sorted, -self.target(view.time), side="right"))
        pick = self.order[view.rng.integers(max(good, 1))]
        return view.space.outcome_at(int(pick))

    def respond(self, view, offer):
        if view.utility(offer) >= self.target(view.time):
            return Response.ACCEPT
        return Response.REJECT
