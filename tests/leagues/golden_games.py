"""Golden playthroughs of the GENIUS, HAN and Colored Trails leagues.

Seeded games of built-in agents, recorded with the code before the port to the shared
``Rules`` contract and drivers, so that the port can be checked game by game. Each
``*_games()`` yields ``(key, record)`` with a JSON-able record: the inputs that name the
game and everything observable about how it went (events, result, violations).

Regenerate (only when a behaviour change is intended and reviewed)::

    PYTHONPATH=src python -m tests.leagues.golden_games
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FILES = {
    "han": HERE / "han" / "golden" / "han.json",
    "genius": HERE / "genius" / "golden" / "genius.json",
    "trails": HERE / "trails" / "golden" / "trails.json",
}


# the agents of the recording (agents added later are not in the fixtures)
GENIUS_AGENTS = ("conceder", "fair", "bayes", "issues", "threats", "optout", "coin", "qo",
                 "graft", "complete", "kbagent")  # fmt: skip
HAN_AGENTS = ("fair", "tough", "ledger", "liar")
HAN_PEOPLE = ("cooperative", "greedy", "emotional", "impatient")
TRAILS_AGENTS = ("purb", "reliable", "unreliable", "greedy", "random", "sim-cooperative",
                 "sim-reciprocal", "sim-opportunist", "sim-forgetful")  # fmt: skip


def _round(x: Any) -> Any:
    if isinstance(x, float):
        return round(x, 9)
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_round(v) for v in x]
    return x


def digest(items: Any) -> str:
    """A short fingerprint of a long JSON-able list (the full list is kept for a few games)."""
    text = json.dumps(_round(json.loads(json.dumps(items))), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def han_record(rec: Any, full: bool = False) -> dict[str, Any]:
    g = rec.game
    feed = [[t, e.to_json()] for t, e in _feed(rec)]
    return {
        "outcome": rec.result.outcome,
        "points": rec.result.points,
        "offer": None if rec.result.offer is None else rec.result.offer.to_list(),
        "end": rec.result.end_time,
        "left_by": rec.result.left_by,
        "n_feed": len(feed),
        "feed_sha": digest(feed),
        **({"feed": feed} if full else {}),
        "violations": [[v.side, v.time, v.reason] for v in rec.result.violations],
        "counts": dict(sorted(g.counts.items())),
    }


def _feed(rec: Any) -> list[Any]:
    return list(rec.extra.get("feed", [])) or [(t, e) for t, e in rec.game.history]


def han_games() -> Iterator[tuple[str, dict[str, Any]]]:
    from accord.leagues.han.agents import EXAMPLE_AGENTS
    from accord.leagues.han.domain import domain
    from accord.leagues.han.participants import PARTICIPANTS
    from accord.leagues.han.play import play

    for game in ("example-1", "example-2"):
        for a in HAN_AGENTS:
            acls = EXAMPLE_AGENTS[a]
            for p in HAN_PEOPLE:
                pcls = PARTICIPANTS[p]
                for seed in (0, 1):
                    rec = play(domain(game), acls, pcls, seed=seed)
                    full = game == "example-1" and seed == 0 and p == "cooperative"
                    yield f"{game}|{a}|{p}|{seed}", han_record(rec, full)
    yield from han_person_games()


def han_person_games() -> Iterator[tuple[str, dict[str, Any]]]:
    """An agent against a scripted person whose events arrive through ``submit``."""
    from accord.leagues.han.agents import EXAMPLE_AGENTS
    from accord.leagues.han.domain import EXAMPLE_1, Offer
    from accord.leagues.han.events import Event, EventKind, SubClass
    from accord.leagues.han.game import LiveGame

    script = [
        (3.0, Event(EventKind.SEND_EXPRESSION, "person", emotion="happy")),
        (
            7.5,
            Event(
                EventKind.SEND_MESSAGE,
                "person",
                text="I just want to be fair.",
                subclass=SubClass.GENERIC_POS,
            ),
        ),
        (
            12.0,
            Event(
                EventKind.SEND_OFFER,
                "person",
                offer=Offer.of([(2, 0, 3), (1, 0, 4), (2, 0, 3), (3, 0, 2)]),
            ),
        ),
        (30.0, Event(EventKind.SEND_MESSAGE, "person", text="free text is refused")),
        (41.0, Event(EventKind.FORMAL_ACCEPT, "person")),
        (
            60.0,
            Event(
                EventKind.SEND_OFFER,
                "person",
                offer=Offer.of([(3, 0, 2), (2, 0, 3), (2, 0, 3), (3, 0, 2)]),
            ),
        ),
        (75.0, Event(EventKind.FORMAL_ACCEPT, "person")),
    ]
    for a in HAN_AGENTS:
        agent = EXAMPLE_AGENTS[a]()
        m = LiveGame(EXAMPLE_1.with_time(120.0), agent)
        m.advance(0.0)
        for t, ev in script:
            m.advance(t)
            if m.game.ended:
                break
            m.submit("person", ev, t)
        while not m.game.ended:
            m.advance(m.next_due())
        rec = m.record()
        rec.extra["feed"] = m.feed
        yield f"person|{a}", han_record(rec, True)


def genius_games() -> Iterator[tuple[str, dict[str, Any]]]:
    from accord.leagues.genius.loading import load_domain
    from accord.leagues.genius.match import Match
    from accord.leagues.genius.pdas import agent_names, make_agent

    names = [n for n in GENIUS_AGENTS if n in agent_names()]
    pairs = [(a, b) for a in names for b in names if a != b]
    for dom in ("job_candidate", "england_zimbabwe"):
        d = load_domain(dom)
        for i, (a, b) in enumerate(pairs):
            if i % 3 != 0 and dom == "england_zimbabwe":
                continue
            types = (i % 3, (i // 3) % 3)
            seed = i % 5
            m = Match(d, (make_agent(a, seed), make_agent(b, seed + 1)), types=types, seed=seed)
            r = m.run()
            events = [
                [e.turn, e.elapsed, e.party, e.kind, e.offer, e.values, e.index, e.ok, e.error]
                for e in r.events
            ]
            full = i < 12 and dom == "job_candidate"
            yield (
                f"{dom}|{a}|{b}|{types[0]}{types[1]}|{seed}",
                {
                    "result": r.to_dict(),
                    "n_events": len(events),
                    "events_sha": digest(events),
                    **({"events": events} if full else {}),
                },
            )


def trails_games() -> Iterator[tuple[str, dict[str, Any]]]:
    try:
        from accord.leagues.trails.board import Settings
    except ImportError:  # the code before the port (to record the fixtures with it)
        from accord.leagues.trails.rules import Rules as Settings  # type: ignore[no-redef]
    from accord.leagues.trails.generator import generate
    from accord.leagues.trails.match import AGENTS, play

    names = [n for n in TRAILS_AGENTS if n in AGENTS]
    k = 0
    for cls in ("mutual", "unilateral", "independent"):
        for protocol in ("alternating", "counter"):
            for a in names:
                for b in names:
                    k += 1
                    if k % 4:
                        continue
                    board = k % 7
                    r = play(
                        generate(cls, board), [a, b], rules=Settings(protocol=protocol), seed=k
                    )
                    r.pop("setup")
                    yield f"{cls}|{board}|{protocol}|{a}|{b}|{k}", r


GAMES = {"han": han_games, "genius": genius_games, "trails": trails_games}


def load(league: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FILES[league].read_text(encoding="utf-8"))
    return data


def record(league: str) -> dict[str, Any]:
    return {key: _round(json.loads(json.dumps(rec))) for key, rec in GAMES[league]()}


if __name__ == "__main__":
    import sys

    for league in sys.argv[1:] or list(GAMES):
        data = record(league)
        FILES[league].write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
        print(league, len(data), FILES[league].stat().st_size)
