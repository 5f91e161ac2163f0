"""Bridges: run negotiators written for other platforms as Accord negotiators.

A bridge sits beside :mod:`accord.agents`: it imports the core and the agents, nothing
above. Each bridge lives behind an optional extra, because the platform it bridges may
carry its own licence; :mod:`accord.bridges.negmas` needs ``pip install '.[negmas]'``.
"""
