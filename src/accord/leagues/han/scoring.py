"""Per-game data rows (IAGO's CSV log), the survey, and a likeability proxy.

:func:`csv_row` turns a finished game into one row with IAGO's columns, in order: ids
and points (BATNAs on timeout or quit), counts of offers, preference statements,
queries, messages, lies and expressions, the study and game, the time, BATNA lies, the
first and last offer's allocations (−1 when there was none), one count per message
meaning, then the survey answers.

:func:`likeability_proxy` stands in for the survey with simulated participants:
``4 ± 1`` for a deal or none, ``+2·(min/max − ½)`` for how even the points are,
``+0.25`` per friendly act (happy face, positive or favour message), ``−0.5`` per
angry face or negative message, ``−0.75`` per threat and ``−0.5`` per lie, clipped to 1..7.

    >>> from accord.leagues.han.play import play
    >>> from accord.leagues.han.agents import FairSplitter
    >>> from accord.leagues.han.participants import Cooperative
    >>> from accord.leagues.han.domain import EXAMPLE_1
    >>> rec = play(EXAMPLE_1, FairSplitter, Cooperative)
    >>> row = csv_row(rec, "g1")
    >>> row["userPoints"], row["vhPoints"], row["timedout"], row["numVHOffers"]
    (27, 27, 0, 1)
    >>> likeability_proxy(rec)
    6.5
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.core.protocols.result import EndReason
from accord.leagues.han.domain import Role
from accord.leagues.han.events import SubClass
from accord.leagues.han.play import MatchRecord

__all__ = ["BASE_COLUMNS", "SURVEY", "columns", "csv_row", "likeability_proxy", "survey_score"]

SURVEY = (
    ("use_again", "I would use the system again in the future.", False),
    ("not_recommend", "I cannot recommend this system to others.", True),
    ("use_frequently", "I think that I would like to use this system frequently.", False),
    ("liked_partner", "I liked my negotiation partner.", False),
    ("trusted_partner", "I felt like I could trust my negotiation partner.", False),
)
"""The five 2017 items (key, text, reverse-scored), answered on a 7-point scale."""

_EMO = ("Neutral", "Happy", "Angry", "Sad", "Surprised")
BASE_COLUMNS: tuple[str, ...] = (
    "id", "agent0", "agent1", "userPoints", "vhPoints", "timedout", "formallyQuit",
    "numUserOffers", "numVHOffers", "numUserPref", "numVHPref", "numUserQuery", "numVHQuery",
    "numUserMsg", "numVHMsg", "numUserLie", "numVHLie",
    *(f"numUser{e}" for e in _EMO), *(f"numVH{e}" for e in _EMO),
    "numVHDisgusted", "numVHInsincere", "numVHAfraid",
    "studyName", "currentGame", "gameEndTime", "gameAllottedTime", "numUserBATNALies", "numVHBATNALies",
    *(f"initialOfferUserAlloc{i}" for i in range(1, 6)), *(f"finalOfferUserAlloc{i}" for i in range(1, 6)),
    *(f"initialOfferVHAlloc{i}" for i in range(1, 6)), *(f"finalOfferVHAlloc{i}" for i in range(1, 6)),
)  # fmt: skip
_SUB = sorted(s.value for s in SubClass)
SUBCLASS_COLUMNS = tuple(c for s in _SUB for c in (f"numUser{s}", f"numVH{s}"))


def columns() -> list[str]:
    """All columns of a row, survey answers last."""
    return [*BASE_COLUMNS, *SUBCLASS_COLUMNS, *(k for k, _, _ in SURVEY), "likeability"]


def csv_row(
    rec: MatchRecord,
    game_id: str,
    study: str = "",
    survey: Mapping[str, int] | None = None,
    me: Role = "person",
) -> dict[str, Any]:
    """One game's row (see the module docstring), seen from side ``me``: the "User"
    columns are ``me``'s, the "VH" ones the other side's (``me="agent"`` for the person
    who sat on the agent's side of a person-vs-person game)."""
    g, r = rec.game, rec.result
    other: Role = "agent" if me == "person" else "person"
    swap = {"User": "VH", "VH": "User"} if me == "agent" else {"User": "User", "VH": "VH"}
    c = g.counts
    row: dict[str, Any] = {
        "id": game_id,
        "agent0": rec.names.get(me, me),
        "agent1": rec.names.get(other, other),
        "userPoints": r.points[me],
        "vhPoints": r.points[other],
        "timedout": int(r.reason is EndReason.DEADLINE),
        "formallyQuit": int(r.reason is EndReason.WALKAWAY),
        "studyName": study,
        "currentGame": rec.game_index,
        "gameEndTime": round(r.end_time, 3),
        "gameAllottedTime": g.spec.total_time,
    }
    for who, tag in (("User", swap["User"]), ("VH", swap["VH"])):
        for k in ("Offers", "Pref", "Query", "Msg", "Lie", "BATNALies", *_EMO):
            key = f"num{who}{k}"
            if key in BASE_COLUMNS:
                row[key] = c[f"{tag}{k}"]
    for k in ("Disgusted", "Insincere", "Afraid"):
        row[f"numVH{k}"] = 0  # not among the five expressions of this league
    for which, offer in (("initial", g.first_offer), ("final", g.last_offer)):
        for side, col in (("User", 2 if me == "person" else 0), ("VH", 0 if me == "person" else 2)):
            for i in range(5):
                has = offer is not None and i < len(offer.rows)
                row[f"{which}Offer{side}Alloc{i + 1}"] = offer.rows[i][col] if has else -1  # type: ignore[union-attr]
    for s in _SUB:
        row[f"numUser{s}"] = c[f"{swap['User']}{s}"]
        row[f"numVH{s}"] = c[f"{swap['VH']}{s}"]
    for k, _, _ in SURVEY:
        row[k] = (survey or {}).get(k, "")
    row["likeability"] = survey_score(survey) if survey else ""
    return {k: row.get(k, "") for k in columns()}


def survey_score(answers: Mapping[str, int]) -> float:
    """Mean of the five 7-point answers, the reverse-scored item turned (8 − answer)."""
    vals = [(8 - int(answers[k])) if rev else int(answers[k]) for k, _, rev in SURVEY]
    return sum(vals) / len(vals)


def likeability_proxy(rec: MatchRecord) -> float:
    """A 1..7 stand-in for the survey from what the agent did (module docstring)."""
    c, r = rec.game.counts, rec.result
    a, p = r.points["agent"], r.points["person"]
    score = 5.0 if r.reason is EndReason.AGREEMENT else 3.0
    score += 2 * (min(a, p) / max(a, p, 1) - 0.5)
    friendly = c["VHHappy"] + c["VHGENERIC_POS"] + c["VHFAVOR_ACCEPT"] + c["VHFAVOR_RETURN"]
    hostile = c["VHAngry"] + c["VHGENERIC_NEG"]
    threats = c["VHTHREAT_POS"] + c["VHTHREAT_NEG"]
    score += 0.25 * friendly - 0.5 * hostile - 0.75 * threats - 0.5 * c["VHLie"]
    return round(min(7.0, max(1.0, score)), 3)
