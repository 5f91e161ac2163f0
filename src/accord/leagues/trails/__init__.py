"""Colored Trails: a board of coloured squares, chips, non-binding agreements, the PURB agent.

Modules: :mod:`rules` (board, paths, score), :mod:`engine` (the state machine),
:mod:`generator` (boards by dependency class), :mod:`agent`, :mod:`purb`,
:mod:`baselines`, :mod:`match` (one game), :mod:`tournament`, :mod:`oneshot` (OpenSpiel's
variant), :mod:`analysis`, :mod:`server` (people in the browser), :mod:`cli`.
"""

from accord.leagues.trails import protocol as protocol  # registers colored-trails-v1
