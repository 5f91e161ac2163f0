"""The negotiator of docs/diplomacy.md, entered by path (``dip_peaceful:Peaceful``)."""

from __future__ import annotations

from accord.leagues.diplomacy.deals import Deal, Dmz
from accord.leagues.diplomacy.negotiator import Negotiator, Round


class Peaceful(Negotiator):
    name = "peaceful"

    def negotiate(self, rnd: Round) -> None:
        base = rnd.plan()  # my tactical plan under my deals
        for p in rnd.proposals():  # proposals addressed to me
            if rnd.plan([p.deal]).value >= base.value:
                rnd.accept(p.id)
            else:
                rnd.reject(p.id)
        year, season = rnd.when
        deal = Deal(rnd.power, (), (Dmz.of(year, season, [rnd.power, "GERMANY"], ["BUR"]),))
        if rnd.power != "GERMANY" and rnd.plan([deal]).value >= base.value:
            rnd.propose(deal)
