"""The exceptions Accord raises.

Hierarchy::

    AccordError
    ├── InvalidOutcome        an outcome that does not belong to its outcome space
    ├── InvalidScenario       a scenario/domain/profile that cannot be built or read
    │   └── FormatError       a file that cannot be parsed (names the file and element)
    ├── ProtocolViolation     a negotiator broke the protocol (wrong action, wrong turn)
    │   ├── InvalidOffer      a proposal outside the outcome space
    │   └── NegotiatorTimeout a response that took longer than allowed
    ├── ConfigError           bad user configuration (agents, tournaments, CLI)
    │   └── CapabilityError   a negotiator lacks a capability its protocol needs
    ├── InvalidValue          a value outside what an API accepts (an amount, a quantity)
    ├── ParseError            text that cannot be read (an utterance, a number word)
    ├── UsageError            an argument of the wrong kind given to an API
    └── StateError            an operation the current state does not allow

Each class also derives from the built-in exception callers used to catch before the
tree existed (``ValueError``, ``TypeError``, ``RuntimeError``), so ``except ValueError``
still works. Messages say what was expected and what arrived.
"""

from __future__ import annotations


class AccordError(Exception):
    """Base class of every error Accord raises on purpose."""


class InvalidOutcome(AccordError, ValueError):
    """An outcome that does not belong to its outcome space."""


class InvalidScenario(AccordError, ValueError):
    """A scenario, domain or profile that cannot be built as given."""


class FormatError(InvalidScenario):
    """A file that cannot be read; the message names the file and the element."""


class ProtocolViolation(AccordError):
    """A negotiator broke the rules of the protocol."""


class InvalidOffer(ProtocolViolation):
    """A proposal that is not a valid outcome of the negotiation's space."""


class NegotiatorTimeout(ProtocolViolation):
    """A negotiator answered later than its time limit allows."""


class ConfigError(AccordError, ValueError):
    """Bad configuration given by the user."""


class CapabilityError(ConfigError):
    """A negotiator lacks a capability (an API beyond propose/respond) its protocol needs."""


class InvalidValue(AccordError, ValueError):
    """A value outside what an API accepts (an amount of money, a quantity of goods)."""


class ParseError(AccordError, ValueError):
    """Text that cannot be read: the message names the text and what was expected."""


class UsageError(AccordError, TypeError):
    """An API was given an argument of the wrong kind."""


class StateError(AccordError, RuntimeError):
    """An operation the current state does not allow (a finished world, a started round)."""
