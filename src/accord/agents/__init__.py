"""Built-in negotiators, the opponent model, the agent registry and the conformance check.

>>> from accord.agents import get_agent, known_agents
>>> sorted(known_agents())[:3]
['Boulware', 'Conceder', 'Frequency']
>>> get_agent("frequency").exponent
0.1
"""

from accord.agents.checker import CheckReport, check_negotiator, default_scenario
from accord.agents.frequency import FrequencyAgent
from accord.agents.models import FrequencyModel
from accord.agents.registry import (
    get_agent,
    known_agents,
    register_agent,
    resolve_agent,
    unregister_agent,
)
from accord.agents.simple import Hardliner, RandomNegotiator
from accord.agents.timebased import Boulware, Conceder, Linear, TimeDependent
from accord.agents.titfortat import TitForTat

__all__ = [
    "Boulware",
    "CheckReport",
    "Conceder",
    "FrequencyAgent",
    "FrequencyModel",
    "Hardliner",
    "Linear",
    "RandomNegotiator",
    "TimeDependent",
    "TitForTat",
    "check_negotiator",
    "default_scenario",
    "get_agent",
    "known_agents",
    "register_agent",
    "resolve_agent",
    "unregister_agent",
]
