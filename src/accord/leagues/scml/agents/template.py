"""A template SCML agent to copy: every callback, the AWI's information and actions.

Copy this file, rename the class, and change the four decisions marked DECIDE. As it
stands it is a small, honest agent that breaks even: it buys inputs (at no more than the
catalog price) only when the catalog prices leave a margin, and only while what it holds
and has coming stays within half a day of production and its unsold outputs within half
a day's make; it sells the outputs it holds at no less than its break-even price (input
at catalog plus its cost), signs what it can pay for and deliver, and runs its lines on
the inputs it holds.

Run it (``docs/writing-an-agent.md``, section "An SCML factory manager"):

    accord scml run --days 10 --agents accord.leagues.scml.agents.template:TemplateAgent,market

Example:
    >>> from accord.leagues.scml.generate import generate_config
    >>> from accord.leagues.scml.world import World
    >>> cfg = generate_config(n_steps=8, factories_per_level=[2, 2], seed=3)
    >>> w = World(cfg, [TemplateAgent, "market", TemplateAgent, "market"], seed=3).run()
    >>> w.history.exceptions
    []
"""

from __future__ import annotations

from accord.core import Negotiator, Outcome
from accord.leagues.scml.agent import EmpoweredNegotiator, SCMLAgent
from accord.leagues.scml.contracts import QUANTITY, TIME, UNIT_PRICE, Agenda, Contract

__all__ = ["TemplateAgent"]


class TemplateAgent(SCMLAgent):
    """Buys what its lines can turn into outputs, sells what it holds, at catalog prices."""

    # -- the main loop ----------------------------------------------------------------
    def init(self) -> None:
        """Once, before day 0: read the fixed facts of the factory (its *profile*)."""
        awi = self.awi
        self.input, self.output = awi.my_input_product, awi.my_output_product
        self.cat_in = awi.catalog_prices[self.input]
        self.cat_out = awi.catalog_prices[self.output]
        # the least it sells for: what an output cost it; it buys only when the catalog
        # prices leave a margin (else it would make outputs that sell at a loss)
        self.floor = max(1, self.cat_in + awi.cost)
        self.worth_making = self.cat_out > self.floor
        self.coming: dict[int, int] = {}  # inputs bought, by delivery day
        self.owed: dict[int, int] = {}  # outputs sold, by delivery day
        # also: awi.cost, awi.n_lines, awi.my_suppliers, awi.my_consumers, awi.level,
        # awi.is_first_level, awi.is_last_level, awi.n_steps, awi.horizon, awi.bb.settings

    def before_step(self) -> None:
        """Each day, first: exogenous contracts of today are revealed (signed later)."""

    def step(self) -> None:
        """Each day, after execution: produce, then ask for tomorrow's negotiations."""
        awi = self.awi
        held = awi.current_inventory  # a tuple: units of every product this factory holds
        self.coming.pop(awi.current_step, None)  # delivered today
        self.owed.pop(awi.current_step, None)
        # DECIDE production: run a line per input unit held (up to the lines and the cash)
        runs = min(awi.n_lines, held[self.input], awi.current_balance // max(1, awi.cost))
        awi.set_production(int(runs))
        day = awi.current_step
        if day + 1 >= awi.n_steps:
            return  # nothing can be delivered after the last day
        when = (day + 1, min(awi.n_steps - 1, day + 3))  # delivery days (an inclusive range)
        # DECIDE what to buy and sell: inputs for half the lines; every output held
        for partner in awi.my_suppliers if self._room_to_buy() > 0 else ():
            awi.request_negotiation(
                True, self.input, (1, awi.n_lines // 2 or 1), (1, self.cat_in), when,
                partner, self._negotiator(is_buy=True),
            )  # fmt: skip
        free = self._free_outputs()
        if free > 0:
            for partner in awi.my_consumers:
                awi.request_negotiation(
                    False, self.output, (1, free), (self.floor, 2 * self.cat_out),
                    when, partner, self._negotiator(is_buy=False),
                )  # fmt: skip

    # -- negotiation ------------------------------------------------------------------
    def _negotiator(self, is_buy: bool) -> Negotiator:
        """DECIDE how to negotiate: here an empowered negotiator with its own utility.

        An offer is ``(unit_price, quantity, time)`` (indices ``UNIT_PRICE``, ``QUANTITY``,
        ``TIME``). The negotiator proposes its best offer and accepts offers within 10 %
        of its utility range from the best, whatever the sign of the utilities.
        """
        cat = self.cat_in if is_buy else self.floor

        def utility(offer: Outcome) -> float:
            gain = cat - offer[UNIT_PRICE] if is_buy else offer[UNIT_PRICE] - cat
            return float(gain * offer[QUANTITY] - 0.1 * offer[TIME])

        # a seller accepts half-way down its range: buyers pay near the catalog price, and
        # at 0.9 it sold nothing and lost the value of its stock (issue 26)
        return EmpoweredNegotiator(utility, accept_fraction=0.9 if is_buy else 0.5)

    def respond_to_negotiation_request(self, initiator: str, agenda: Agenda) -> Negotiator | None:
        """A partner asks to negotiate ``agenda`` (``agenda.is_buy`` is from *its* side)."""
        i_buy = not agenda.is_buy
        if not i_buy and self._free_outputs() < agenda.quantity[0]:
            return None  # DECIDE: refuse what it cannot deliver
        return self._negotiator(is_buy=i_buy)

    def on_negotiation_success(self, contract: Contract, agenda: Agenda) -> None:
        """An agreement (signed or not at the end of the day's negotiations)."""

    def on_negotiation_failure(self, partner: str, agenda: Agenda, reason: str) -> None:
        """A negotiation ended without agreement (``reason`` says why)."""

    # -- contracts --------------------------------------------------------------------
    def sign_all_contracts(self, contracts: list[Contract]) -> list[bool]:
        """DECIDE which agreements and revealed exogenous contracts to sign.

        ``contract.exogenous`` marks a contract with the simulator (seller or buyer
        ``SIMULATOR``): raw supply for the first level, final demand for the last.
        """
        awi = self.awi
        cash = awi.current_balance
        stock = self._free_outputs()
        room = self._room_to_buy()
        answer = []
        for c in contracts:
            if c.buyer == awi.agent:  # a purchase: sign if it can pay and use it soon
                late = c.delivery > awi.n_steps - 3  # its outputs could not be sold in time
                ok = (
                    c.value <= cash
                    and c.unit_price <= self.cat_in
                    and c.quantity <= room
                    and not late
                )
                cash -= c.value if ok else 0
                room -= c.quantity if ok else 0
            else:  # a sale: sign if unsold units are in stock (no spot-market purchases)
                ok = c.quantity <= stock and c.unit_price >= self.floor
                stock -= c.quantity if ok else 0
            answer.append(ok)
        return answer

    def _free_outputs(self) -> int:
        """Outputs held and not yet sold (a sale signed on an earlier day for a later
        delivery still holds its units: selling them twice was a breach)."""
        return max(0, self.awi.current_inventory[self.output] - sum(self.owed.values()))

    def _room_to_buy(self) -> int:
        """Inputs it may still buy: half a day of production, less what it holds and has
        coming; nothing while half a day's make of outputs is unsold or making loses."""
        awi = self.awi
        held = awi.current_inventory
        if held[self.output] >= awi.n_lines // 2 or not self.worth_making:
            return 0
        return max(0, awi.n_lines // 2 - held[self.input] - sum(self.coming.values()))

    def on_contracts_finalized(
        self, signed: list[Contract], cancelled: list[Contract], rejectors: list[list[str]]
    ) -> None:
        """After signing: what was signed, and what was cancelled and by whom."""
        for c in signed:
            if c.buyer == self.awi.agent:
                self.coming[c.delivery] = self.coming.get(c.delivery, 0) + c.quantity
            else:
                self.owed[c.delivery] = self.owed.get(c.delivery, 0) + c.quantity

    def on_agent_bankrupt(
        self, agent: str, nullified: list[Contract], reduced: list[Contract]
    ) -> None:
        """A factory went bankrupt: its contracts with this one were nullified or reduced."""

    def on_failure(self, day: int, lines: list[int], reason: str) -> None:
        """Production on ``lines`` failed today (no inputs or no cash)."""
