"""The JSGF grammar of what a HUMAINE buyer says, built from Accord's own goods list.

An utterance is an optional greeting and seller name, one or two negotiation acts, and an
optional "please"/"thanks" or name at the end. The acts are the spec's (section 3 and
Appendix D): a request for a bundle ("I'd like to buy two eggs and three cups of flour"),
a price question ("how much for five ounces of chocolate"), an offer ("Watson, I'll buy
three eggs for two dollars", "how about four dollars"), an accept ("OK, I accept your
offer") and a reject ("no thanks, that's too much"). A bundle lists up to five goods, each
with an optional quantity and the good's unit ("three cups of flour"); numbers run to 999
and prices are in dollars with optional cents.

The grammar is bounded (no ``*``/``+`` loops): pocketsphinx's FSG search slows down by two
orders of magnitude on looping grammars.

>>> g = domain_grammar()
>>> g.splitlines()[0], "<seller> = celia | watson;" in g
('#JSGF V1.0;', True)
>>> "teaspoons" in g and "blueberries" in g
True
>>> sorted(grammar_words(domain_grammar(sellers=["Ann"], goods=["egg"], units={"egg": "each"})))[:6]
['a', 'about', 'accept', 'afternoon', 'agreed', 'alright']
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from accord.core.errors import InvalidValue

from ..goods import GOODS, PLURALS, UNITS

__all__ = ["domain_grammar", "grammar_words"]

_WORD = re.compile(r"^[a-z][a-z']*$")
_DIGITS = "one two three four five six seven eight nine"
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"

_FIXED = f"""
<digit> = {" | ".join(_DIGITS.split())};
<teen> = {" | ".join(_TEENS.split())};
<tens> = {" | ".join(_TENS.split())};
<below100> = <digit> | <teen> | <tens> [<digit>];
<number> = <below100> | (a | one | <digit>) hundred [[and] <below100>];
<amount> = <number> | a | an | some | more | a few | a couple of;
<item> = [<amount>] [<unit> of] <good> | <amount> <product> [of <good>];
<bundle> = <item> [[and] <item> [[and] <item> [[and] <item> [[and] <item>]]]];
<price> = <number> (dollars | dollar | bucks) [[and] <below100> [cents]] | <below100> cents;
<for_price> = for <price>;
<lead> = i want | i need | i would like | i'd like | i would like to buy | i'd like to buy
  | i want to buy | i'll buy | i will buy | can i have | can i get | can i buy
  | can you sell me | could you sell me | would you sell me | give me | i'm looking for
  | do you have | i'll take | i will take;
<request> = <lead> <bundle> [from you] [<for_price>];
<question> = how much (is | are | for) <bundle> | can (anyone | you) give me a good price on <bundle>
  | what is your price for <bundle> | what's your best price [for <bundle>];
<offer> = (how about | what about | would you take | would you accept | will you take) [<bundle>] <for_price>
  | (how about | what about) <price> | (i'll | i will | i can) pay <price> [for <bundle>]
  | <bundle> <for_price> | i offer <price> [for <bundle>];
<accept> = [ok | okay | yes | great | alright] i accept [your offer | the offer | that | it]
  | it's a deal | deal | agreed | sounds good | i'll take it | yes please | ok | okay | yes;
<reject> = no [thanks | thank you] | i reject [your offer | the offer | that | it]
  | that's too (much | expensive) | too expensive | no deal | i don't accept [that | your offer]
  | i decline [your offer | the offer];
<act> = <request> | <question> | <offer> | <accept> | <reject>;
<greeting> = hello | hi | hey | good morning | good afternoon;
<polite> = please | thanks | thank you;
public <utterance> = [<greeting>] [<seller>] <act> [[and] <act>] [<polite>] [<seller>];
"""


def _alternatives(words: Sequence[str], what: str) -> str:
    out: list[str] = []
    for word in words:
        spoken = str(word).strip().lower()
        if not _WORD.match(spoken):
            raise InvalidValue(f"{what} {word!r} cannot be spoken in the grammar; expected letters")
        if spoken not in out:
            out.append(spoken)
    if not out:
        raise InvalidValue(f"the grammar needs at least one {what}")
    return " | ".join(out)


def domain_grammar(
    sellers: Sequence[str] = ("Celia", "Watson"),
    goods: Sequence[str] = GOODS,
    units: Mapping[str, str] = UNITS,
) -> str:
    """The JSGF grammar (public rule ``<utterance>``) for these sellers, goods and units.

    Units are spoken singular or plural; a good is spoken singular, and also plural
    (``PLURALS`` of :mod:`..goods`) when it is countable, i.e. its unit is ``each`` or
    ``packet`` ("two eggs", "a packet of blueberries"); a good whose unit is ``each`` is
    counted without a unit.
    """
    plural = {good: word for word, good in PLURALS.items()}
    countable = [g for g in goods if units.get(g) in ("each", "packet")]
    good_words = [*goods, *(plural.get(g, g + "s") for g in countable)]
    unit_names = sorted({units[g] for g in goods if g in units and units[g] != "each"})
    unit_words = [w for u in unit_names for w in (u, u + "s")] or ["cup"]
    head = (
        "#JSGF V1.0;\ngrammar humaine;\n"
        f"<seller> = {_alternatives(sellers, 'seller name')};\n"
        f"<good> = {_alternatives(good_words, 'good')};\n"
        f"<unit> = {_alternatives(unit_words, 'unit')};\n"
        "<product> = cake | cakes | pancake | pancakes | batch of pancakes | batches of pancakes;"
    )
    return head + _FIXED


def grammar_words(grammar: str) -> set[str]:
    """Every word the grammar can produce (to check them against a pronunciation dictionary)."""
    body = re.sub(r"<[^<>]+>", " ", grammar.split("grammar", 1)[-1].split(";", 1)[-1])
    tokens = re.sub(r"[|()\[\];=]|\bpublic\b", " ", body).split()
    return {t for t in tokens if _WORD.match(t)}
