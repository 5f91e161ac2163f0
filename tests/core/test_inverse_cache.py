"""The shared inverses stay bounded: a long run over many profiles keeps at most
``SHARED_INVERSES`` of them, and a utility no session uses any more is collected."""

from __future__ import annotations

import gc
import weakref

from accord.core import finder, inverse
from accord.core.generate import random_linear_scenario
from accord.core.outcomes import IntegerIssue, OutcomeSpace
from accord.core.utilities import CallableUtility


def _utility(k: int) -> CallableUtility:
    return CallableUtility(OutcomeSpace([IntegerIssue("n", 0, 20)]), lambda o: (o[0] * k) % 7)


def test_inverses_are_shared_bounded_and_their_utilities_collected() -> None:
    inverse.clear_inverses()
    first = _utility(1)
    shared = inverse.inverse_of(first)
    assert inverse.inverse_of(first) is shared  # shared while in use
    gone = weakref.ref(first)
    del first, shared
    for k in range(2, 3 * inverse.SHARED_INVERSES):
        u = _utility(k)
        assert inverse.inverse_of(u).best() == inverse.inverse_of(u).best()
    assert len(inverse._INVERSES) == inverse.SHARED_INVERSES
    gc.collect()
    assert gone() is None  # the weak-keyed dict kept it for ever: its inverse held it
    inverse.clear_inverses()
    assert len(inverse._INVERSES) == 0


def test_finders_are_bounded_too() -> None:
    utilities = [random_linear_scenario(3, 4, 2, seed=s).utilities[0] for s in range(20)]
    first = weakref.ref(utilities[0])
    for u in utilities:
        finder.finder_for(u)
    assert len(finder._FINDERS) == finder._FINDERS.maxsize == 16
    inverse.clear_inverses()
    del utilities, u
    gc.collect()
    assert first() is None
