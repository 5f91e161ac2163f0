"""The JSGF grammar of what a HUMAINE buyer says, built from Accord's own goods list.

An utterance is an optional greeting and seller name, then one act, then an optional
"please"/"thanks". The acts are the spec's (section 3 and Appendix D):

- a request, question or offer about a bundle and/or a price: "I'd like to buy two eggs
  and three cups of flour", "how much for five ounces of chocolate", "Watson, I'll buy
  three eggs for two dollars", "how about four dollars", "I'll pay ten dollars for milk";
- an accept: "OK, I accept your offer", "it's a deal";
- a reject, alone or before a counter-offer: "no thanks, that's too much", "no, how about
  three dollars".

A bundle lists up to four goods, each with an optional quantity (a number up to 99, "a",
"some", "a few") and the good's unit ("three cups of flour"), or a number of cakes or
pancakes; prices are in dollars (up to 999) with optional cents.

The shape is chosen for pocketsphinx's FSG search, whose cost grows with the number of
grammar states (each rule reference is copied where it is used): the bundle and the price
appear once, and there are no ``*``/``+`` loops (a looping grammar of the same words took
two orders of magnitude longer to decode).

>>> g = domain_grammar()
>>> g.splitlines()[0], "<seller> = celia | watson;" in g
('#JSGF V1.0;', True)
>>> "<units> = cups | ounces | packets | teaspoons;" in g and "<one_noun> = egg | blueberry;" in g
True
>>> sorted(grammar_words(domain_grammar(sellers=["Ann"], goods=["egg"], units={"egg": "each"})))[:6]
['a', 'about', 'accept', 'afternoon', 'agreed', 'all']
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
<count> = <digit> | <teen> | <tens> [<digit>];
<many> = two | three | four | five | six | seven | eight | nine | <teen> | <tens> [<digit>];
<item> = (a | an | one) (<unit> of <noun> | <one_noun>) | <many> [<units> of] <noun>
  | [some | any | more | a few] [<units> of] <noun>;
<bundle> = <item> [[and] <item> [[and] <item> [[and] <item>]]]
  | [enough for] (a | one) (cake | batch of pancakes) | [enough for] <many> (cakes | batches of pancakes);
<price> = (<count> | [<digit>] hundred [[and] <count>]) (dollars | dollar | bucks) [[and] <count> [cents]];
<lead> = i want | i need | i would like | i'd like | i would like to buy | i'd like to buy
  | i want to buy | i'll buy | i will buy | can i have | can i get | can i buy
  | can you sell me | could you sell me | would you sell me | give me | i'm looking for
  | do you have | i'll take | i will take | how much is | how much are | how much for
  | can anyone give me a good price on | can you give me a good price on
  | what is your price for | what's your best price for | how about | what about
  | would you take | would you accept | i offer;
<accept> = [ok | okay | yes | great | alright] i accept [your offer | the offer | that | it]
  | it's a deal | deal | agreed | sounds good | i'll take it | yes please | ok | okay | yes;
<reject> = no [thanks | thank you] | i reject [your offer | the offer | that | it]
  | that's too (much | expensive) | too expensive | no deal | i don't accept [that | your offer]
  | i decline [your offer | the offer];
<pay> = (i'll | i will | i can) pay;
<deal> = [<lead>] <bundle> [from you] [for <price>]
  | [<lead> | <pay>] <price> [for (<bundle> | all of it | everything)];
<greeting> = hello | hi | hey | good morning | good afternoon;
<polite> = please | thanks | thank you;
public <utterance> = [<greeting>] [<seller>] (<accept> | <reject> [<reject>] | [<reject>] <deal>) [<polite>];
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

    Numbers agree with what they count: "one cup", "two cups", "an egg", "three eggs". A
    good is countable when its unit is ``each`` or ``packet``: it is spoken plural
    (``PLURALS`` of :mod:`..goods`: "eggs", "a packet of blueberries") except after
    "a"/"one" ("an egg"); the other goods are mass nouns, always singular ("two cups of
    flour"). A good whose unit is ``each`` is counted without a unit.
    """
    plural = {good: word for word, good in PLURALS.items()}
    countable = [g for g in goods if units.get(g) in ("each", "packet")]
    nouns = [plural.get(g, g + "s") if g in countable else g for g in goods]
    unit_names = sorted({units[g] for g in goods if g in units and units[g] != "each"})
    unit_names = unit_names or ["cup"]
    head = (
        "#JSGF V1.0;\ngrammar humaine;\n"
        f"<seller> = {_alternatives(sellers, 'seller name')};\n"
        f"<noun> = {_alternatives(nouns, 'good')};\n"
        f"<one_noun> = {_alternatives(countable or goods, 'good')};\n"
        f"<unit> = {_alternatives(unit_names, 'unit')};\n"
        f"<units> = {_alternatives([u + 's' for u in unit_names], 'unit')};"
    )
    return head + _FIXED


def grammar_words(grammar: str) -> set[str]:
    """Every word the grammar can produce (to check them against a pronunciation dictionary)."""
    body = re.sub(r"<[^<>]+>", " ", grammar.split("grammar", 1)[-1].split(";", 1)[-1])
    tokens = re.sub(r"[|()\[\];=]|\bpublic\b", " ", body).split()
    return {t for t in tokens if _WORD.match(t)}
