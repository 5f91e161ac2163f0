"""Accord: automated negotiation research and competitions."""

__version__ = "0.1.0"
