"""The Supply Chain Management League (SCML 2021 standard and collusion tracks).

See ``docs/scml.md`` for the rules as implemented and every choice where the spec
leaves a detail open.
"""
