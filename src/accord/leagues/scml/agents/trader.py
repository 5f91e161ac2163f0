"""Placeholder, replaced below."""

from accord.leagues.scml.agents.basic import RandomAgent


class TraderAgent(RandomAgent):
    pass
