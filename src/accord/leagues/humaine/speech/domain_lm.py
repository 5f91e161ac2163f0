"""A statistical language model of the HUMAINE domain, built from its JSGF grammar.

pocketsphinx's grammar (FSG) search is slow on a grammar this size (its cost grows with
the grammar's states) and brittle at the end of an utterance: when the audio's last word
does not reach a final state of the grammar it returns a partial path ("Celia no i can"
for "Celia, I accept") or nothing. An n-gram search over the same sentences is about ten
times faster and always ends on its best word sequence. This module samples sentences
from the grammar (seeded, so the model is the same on every run) and writes an ARPA
trigram model with absolute discounting and back-off weights.

>>> g = "#JSGF V1.0;\\ngrammar humaine;\\npublic <u> = [celia] (yes | no [thanks]);"
>>> sorted({" ".join(s) for s in sample_sentences(g, 50)})
['celia no', 'celia no thanks', 'celia yes', 'no', 'no thanks', 'yes']
>>> arpa = arpa_model(sample_sentences(g, 50))
>>> arpa.splitlines()[:2], "-99.0000 <s>" in arpa
(['\\\\data\\\\', 'ngram 1=6'], True)
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Sequence

from accord.core.errors import InvalidValue

__all__ = ["arpa_model", "sample_sentences", "sentence_matcher"]

_Item = tuple[str, object]  # ("w", word) | ("ref", rule) | ("opt"/"grp", alternatives)
_RULE = re.compile(r"(?:public\s+)?<(\w+)>\s*=\s*(.*?);", re.S)
_TOKEN = re.compile(r"<\w+>|[()\[\]|]|[a-z][a-z']*")
DISCOUNT = 0.5
"""Absolute discount taken from every seen n-gram count for the back-off mass."""


def _parse(tokens: list[str], i: int, close: str | None) -> tuple[list[list[_Item]], int]:
    alternatives: list[list[_Item]] = [[]]
    while i < len(tokens):
        token = tokens[i]
        if token == close:
            return alternatives, i + 1
        if token == "|":
            alternatives.append([])
            i += 1
        elif token in ("(", "["):
            inner, i = _parse(tokens, i + 1, ")" if token == "(" else "]")
            alternatives[-1].append(("opt" if token == "[" else "grp", inner))
        else:
            alternatives[-1].append(("ref", token[1:-1]) if token[0] == "<" else ("w", token))
            i += 1
    if close is not None:
        raise InvalidValue(f"the grammar has an unclosed group: expected {close!r}")
    return alternatives, i


def sample_sentences(grammar: str, count: int, *, seed: int = 0) -> list[list[str]]:
    """``count`` sentences drawn from the grammar's public rule (each choice uniform, each
    optional part taken half the time)."""
    body = grammar.split("grammar", 1)[-1].split(";", 1)[-1]
    rules = {
        m.group(1): _parse(_TOKEN.findall(m.group(2)), 0, None)[0] for m in _RULE.finditer(body)
    }
    public = re.search(r"public\s+<(\w+)>", body)
    if public is None:
        raise InvalidValue("the grammar has no public rule to sample sentences from")
    rng = random.Random(seed)

    def expand(alternatives: list[list[_Item]], out: list[str]) -> None:
        for kind, value in rng.choice(alternatives):
            if kind == "w":
                out.append(str(value))
            elif kind == "ref":
                if value not in rules:
                    raise InvalidValue(f"the grammar refers to <{value}>, which it does not define")
                expand(rules[str(value)], out)
            elif kind == "grp" or rng.random() < 0.5:
                expand(value, out)  # type: ignore[arg-type]

    sentences = []
    for _ in range(count):
        out: list[str] = []
        expand(rules[public.group(1)], out)
        sentences.append(out)
    return sentences


def arpa_model(sentences: Sequence[Sequence[str]], order: int = 3) -> str:
    """The ARPA text of an ``order``-gram model of ``sentences`` (absolute discounting)."""
    counts: list[Counter[tuple[str, ...]]] = [Counter() for _ in range(order + 1)]
    for sentence in sentences:
        w = ("<s>", *sentence, "</s>")
        for n in range(1, order + 1):
            for i in range(len(w) - n + 1):
                counts[n][w[i : i + n]] += 1
    if not counts[1]:
        raise InvalidValue("a language model needs at least one sentence")
    total = sum(c for k, c in counts[1].items() if k != ("<s>",))
    vocab = len(counts[1])
    prob: dict[tuple[str, ...], float] = {
        k: (0 if k == ("<s>",) else c + 1) / (total + vocab) for k, c in counts[1].items()
    }
    backoff: dict[tuple[str, ...], float] = {}
    for n in range(2, order + 1):
        seen: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
        for k in counts[n]:
            seen.setdefault(k[:-1], []).append(k)
        for context, grams in seen.items():
            context_total = sum(counts[n][k] for k in grams)
            for k in grams:
                prob[k] = (counts[n][k] - DISCOUNT) / context_total
            left = DISCOUNT * len(grams) / context_total
            lower = sum(_p(prob, backoff, k[1:]) for k in grams)
            backoff[context] = left / max(1e-9, 1.0 - lower)
    lines = ["\\data\\"]
    by_order = [sorted(k for k in prob if len(k) == n) for n in range(1, order + 1)]
    lines += [f"ngram {n}={len(grams)}" for n, grams in enumerate(by_order, 1)]
    for n, grams in enumerate(by_order, 1):
        lines += ["", f"\\{n}-grams:"]
        for k in grams:
            p = -99.0 if k == ("<s>",) else math.log10(prob[k])
            b = f" {math.log10(backoff[k]):.4f}" if n < order and k in backoff else ""
            lines.append(f"{p:.4f} {' '.join(k)}{b}")
    return "\n".join([*lines, "", "\\end\\", ""])


def _p(
    prob: dict[tuple[str, ...], float], backoff: dict[tuple[str, ...], float], k: tuple[str, ...]
) -> float:
    if k in prob:
        return prob[k]
    return backoff.get(k[:-1], 1.0) * _p(prob, backoff, k[1:])


def sentence_matcher(grammar: str) -> re.Pattern[str]:
    """A compiled pattern that full-matches the sentences of the grammar's public rule
    (words joined by single spaces, plus a trailing space).

    >>> g = "#JSGF V1.0;\\ngrammar humaine;\\npublic <u> = [celia] (yes | no [thanks]);"
    >>> m = sentence_matcher(g)
    >>> bool(m.fullmatch("celia no thanks ")), bool(m.fullmatch("thanks "))
    (True, False)
    """
    body = grammar.split("grammar", 1)[-1].split(";", 1)[-1]
    rules = {
        m.group(1): _parse(_TOKEN.findall(m.group(2)), 0, None)[0] for m in _RULE.finditer(body)
    }
    public = re.search(r"public\s+<(\w+)>", body)
    if public is None:
        raise InvalidValue("the grammar has no public rule")
    memo: dict[str, str] = {}

    def pattern(alternatives: list[list[_Item]]) -> str:
        out = []
        for sequence in alternatives:
            parts = []
            for kind, value in sequence:
                if kind == "w":
                    parts.append(re.escape(str(value)) + " ")
                elif kind == "ref":
                    if value not in memo:
                        memo[str(value)] = "(?:" + pattern(rules[str(value)]) + ")"
                    parts.append(memo[str(value)])
                else:
                    inner = "(?:" + pattern(value) + ")"  # type: ignore[arg-type]
                    parts.append(inner + "?" if kind == "opt" else inner)
            out.append("".join(parts))
        return "|".join(out)

    return re.compile(pattern(rules[public.group(1)]))
