"""What the human's UIs know of each round: the fold of the orchestrator's calls.

:class:`UiRound` applies one call at a time (``/sendRoundMetadata``, ``/setUtility``,
``/startRound``, ``/endRound``, ``/receiveMessage``, ``/receiveLog``,
``/receiveRejection``, ``/confirmAccept``, ``/receiveRoundTotals``, plus the UI's own
``said``, ``decision`` and ``allocation`` events); :class:`HeardLog` keeps every call in
the web layer's event log so the state can be rebuilt after a restart. Times are wall-clock seconds at
receipt (display only: the rules are timed by the orchestrator).

A ``/confirmAccept`` makes a *pending* deal; a ``decision`` event (the person's click,
the timeout, or auto-confirmation) makes it ``confirmed`` or ``declined``. The same body
again while its deal waits is the same deal; after the decision it is a new deal (the
orchestrator asks once per deal, and an old yes must not buy twice). Only
confirmed deals count as bought: an ``unanswered`` one (see
:meth:`UiRound.settle_unanswered`) was not bought, since the orchestrator fails closed.

Example:
    >>> r = UiRound("r1", created=0.0)
    >>> r.apply("sendRoundMetadata", {"durations": {"warmUp": 5, "round": 60, "post": 30},
    ...                               "humanBudget": {"value": 50}}, at=100.0)
    >>> r.apply("startRound", {"roundDuration": 60}, at=105.0)
    >>> r.phase(now=115.0)
    ('active', {'warmUp': 0.0, 'round': 50.0, 'post': None})
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.leagues.humaine.goods import GOODS
from accord.leagues.humaine.notices import shown
from accord.leagues.humaine.private_files import read_private, write_private
from accord.tournament.sqlite import SqliteFile
from accord.web.store import EventLog

__all__ = ["BOOKED", "HeardLog", "UiRound", "call_problem"]

BOOKED = ("confirmed",)
"""Deal statuses whose goods and price count (the orchestrator keeps these deals)."""


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _money(v: Any) -> bool:
    """None, a number, or ``{"value": number}`` (the wire's price and budget forms)."""
    return (
        v is None
        or _number(v)
        or (isinstance(v, dict) and (v.get("value") is None or _number(v["value"])))
    )


def call_problem(route: str, body: dict[str, Any]) -> str | None:
    """What is wrong with a call's ``body`` for :meth:`UiRound.apply` (None: nothing),
    checked before anything changes, so a malformed call is refused whole.

    >>> call_problem("sendRoundMetadata", {"durations": {"round": "soon"}})
    "durations: expected numbers of seconds, got {'round': 'soon'}"
    >>> call_problem("startRound", {"roundId": "r1", "roundDuration": 60}) is None
    True
    """
    rid = body.get("roundId")
    if rid is not None and not isinstance(rid, str):
        return f"roundId: expected a string, got {rid!r:.60}"
    if isinstance(rid, str) and rid.startswith("accord:"):
        return f"roundId: names starting 'accord:' are the server's own, got {rid!r:.60}"
    durations = body.get("durations")
    if route == "sendRoundMetadata":
        if durations is not None and not (
            isinstance(durations, dict) and all(_number(v) and v >= 0 for v in durations.values())
        ):
            return f"durations: expected numbers of seconds, got {durations!r:.60}"
        if not _money(body.get("humanBudget")):
            return f"humanBudget: expected {{'value': number}}, got {body.get('humanBudget')!r:.60}"
    if route == "startRound" and "roundDuration" in body and not _number(body["roundDuration"]):
        return f"roundDuration: expected seconds, got {body['roundDuration']!r:.60}"
    if "uiConfirmWithin" in body and not _number(body["uiConfirmWithin"] or 0):
        return f"uiConfirmWithin: expected seconds, got {body['uiConfirmWithin']!r:.60}"
    bid = body.get("bid")
    if isinstance(bid, dict):
        quantity = bid.get("quantity")
        if quantity is not None and not (
            isinstance(quantity, dict)
            and all(
                isinstance(n, int) and not isinstance(n, bool) and abs(n) < 10**9
                for n in quantity.values()
            )
        ):
            return f"bid quantity: expected whole numbers per good, got {quantity!r:.60}"
        if not _money(bid.get("price")):
            return f"bid price: expected {{'value': number}}, got {bid.get('price')!r:.60}"
    return None


def _stamp(body: dict[str, Any]) -> str:
    return str(body.get("timestamp") or body.get("timeStamp") or "")


def _key(body: dict[str, Any]) -> tuple[str, str, str]:
    return (str(body.get("speaker", "")), str(body.get("text", "")), _stamp(body))


@dataclass
class UiRound:
    """What the human's UIs know of one round (built from the orchestrator's calls)."""

    round_id: str
    created: float
    durations: dict[str, float] = field(default_factory=dict)
    budget: float | None = None
    utility: dict[str, Any] | None = None
    warmup_at: float | None = None
    started_at: float | None = None
    round_duration: float | None = None
    ended_at: float | None = None
    totals: dict[str, Any] | None = None
    transcript: list[dict[str, Any]] = field(default_factory=list)
    offers: dict[str, dict[str, Any]] = field(default_factory=dict)
    deals: list[dict[str, Any]] = field(default_factory=list)
    allocation: dict[str, Any] | None = None
    index: dict[tuple[str, str, str], int] = field(default_factory=dict)
    deal_index: dict[tuple[str, str, str], int] = field(default_factory=dict)
    failed: str | None = None
    """Why the orchestrator stopped the round, when it failed."""
    token: str | None = field(default=None, repr=False)
    """The buyer's secret for this round (from the orchestrator; never in a snapshot)."""
    unauthenticated: list[str] = field(default_factory=list)
    """Speakers the operator admitted without a secret (shown on the pages)."""

    def apply(self, route: str, body: dict[str, Any], at: float) -> None:
        """Fold one call of the orchestrator (or one saved allocation) into the state."""
        if route == "sendRoundMetadata":
            body = self._secret(body)
            self.durations = {k: float(v) for k, v in (body.get("durations") or {}).items()}
            budget = body.get("humanBudget")
            budget = budget.get("value") if isinstance(budget, dict) else budget
            self.budget = None if budget is None else float(budget)
            self.warmup_at = at
        elif route == "setUtility":
            body = self._secret(body)
            self.utility = {"currencyUnit": body.get("currencyUnit", "USD"), **body}
        elif route == "startRound":
            if "roundDuration" in body:
                self.round_duration = float(body["roundDuration"])
            self.started_at = at
            self.warmup_at = self.warmup_at or at
        elif route == "endRound":
            self.ended_at = at
            if body.get("failed"):
                self.failed = str(body["failed"])
        elif route in ("receiveMessage", "receiveLog", "receiveRejection", "said"):
            self._message(route, body, at)
        elif route == "confirmAccept":
            self._message(route, body, at)
            self._deal(body, at)
        elif route == "decision":
            self._decide(body)
        elif route == "receiveRoundTotals":
            self.totals = body.get("roundTotals") or {}
        elif route == "allocation":
            self.allocation = body

    def _secret(self, body: dict[str, Any]) -> dict[str, Any]:
        """Keep the buyer's secret and the unauthenticated speakers a set-up call
        carries; the rest of the body (never shown with the secret)."""
        token = body.get("token")
        if isinstance(token, str) and token:
            self.token = token
        names = body.get("unauthenticated")
        if isinstance(names, list):
            self.unauthenticated = [str(n) for n in names]
        return {k: v for k, v in body.items() if k not in ("token", "unauthenticated")}

    def _message(self, route: str, body: dict[str, Any], at: float) -> None:
        verdict = route in ("receiveLog", "receiveRejection", "receiveMessage")
        permitted: bool | None = True
        if route in ("said", "confirmAccept"):
            permitted = None  # the human's own message, or a deal, until the verdict
        elif verdict:
            permitted = route != "receiveRejection" and body.get("permitted") is not False
        key = _key(body)
        if verdict and permitted is False:
            self._unbook(key)
        if key in self.index:
            entry = self.transcript[self.index[key]]
            if verdict:
                entry["permitted"] = permitted
                entry["rationale"] = None if permitted else body.get("rationale")
            if body.get("authenticated") is False:
                entry["authenticated"] = False
            return
        self.index[key] = len(self.transcript)
        bid = body.get("bid") if isinstance(body.get("bid"), dict) else None
        self.transcript.append(
            {
                "speaker": body.get("speaker", ""),
                "addressee": body.get("addressee", ""),
                "text": body.get("text", ""),
                "bid": bid,
                "permitted": permitted,
                "rationale": None if permitted is not False else body.get("rationale"),
                "at": at,
                "authenticated": body.get("authenticated") is not False,
                "behavior": body.get("behavior", body.get("behaviour")),
            }
        )
        speaker = str(body.get("speaker", ""))
        if permitted and bid and speaker != "Human":
            if bid.get("type") == "SellOffer":
                self.offers[speaker] = {
                    "quantity": bid.get("quantity") or {},
                    "price": (bid.get("price") or {}).get("value"),
                    "text": body.get("text", ""),
                    "at": at,
                }
            elif bid.get("type") in ("Accept", "Reject"):
                self.offers.pop(speaker, None)

    def _unbook(self, key: tuple[str, str, str]) -> None:
        """The orchestrator blocked a held Accept (declined, or nobody confirmed it in
        its time): a deal still waiting here is no deal; the page stops asking."""
        i = self.deal_index.get(key)
        if i is not None and self.deals[i]["status"] == "pending":
            self.deals[i]["status"], self.deals[i]["by"] = "declined", "orchestrator"

    def _deal(self, body: dict[str, Any], at: float) -> None:
        key = _key(body)
        bid = body.get("bid") or {}
        i = self.deal_index.get(key)
        if (i is not None and self.deals[i]["status"] == "pending") or not isinstance(bid, dict):
            return  # the same question again while it waits: the same deal
        self.deal_index[key] = len(self.deals)
        price = (bid.get("price") or {}).get("value") or 0.0
        within = float(body.get("uiConfirmWithin") or 0.0)
        self.deals.append(
            {
                "id": len(self.deals),
                "seller": body.get("speaker", ""),
                "quantity": {g: int(n) for g, n in (bid.get("quantity") or {}).items()},
                "price": float(price),
                "at": at,
                "deadline": at + within,
                "status": "pending",
                "by": None,
            }
        )
        self.offers.pop(str(body.get("speaker", "")), None)

    def _decide(self, body: dict[str, Any]) -> None:
        i = body.get("deal")
        if isinstance(i, int) and 0 <= i < len(self.deals):
            deal = self.deals[i]
            if deal["status"] == "pending":
                deal["status"], deal["by"] = str(body.get("status")), body.get("by")

    def deal_for(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The deal a ``/confirmAccept`` body made (None when it carried no bid)."""
        i = self.deal_index.get(_key(body))
        return None if i is None else self.deals[i]

    def settle_unanswered(self) -> None:
        """After a restart nobody waits for a pending deal's answer any more: the
        orchestrator's call failed, and a deal nobody confirmed is not bought."""
        for deal in self.deals:
            if deal["status"] == "pending":
                deal["status"], deal["by"] = "unanswered", "restart"

    def booked(self) -> list[dict[str, Any]]:
        """The deals that count: those the buyer confirmed."""
        return [d for d in self.deals if d["status"] in BOOKED]

    def have(self) -> dict[str, int]:
        """Goods bought so far (from the confirmed deals)."""
        have = dict.fromkeys(GOODS, 0)
        for d in self.booked():
            for g, n in d["quantity"].items():
                have[g] = have.get(g, 0) + n
        return have

    def phase(self, now: float) -> tuple[str, dict[str, float | None]]:
        """Current phase and the seconds left in each of warm-up, round and post."""
        d = self.durations
        left: dict[str, float | None] = {"warmUp": None, "round": None, "post": None}
        if self.warmup_at is not None:
            left["warmUp"] = max(0.0, d.get("warmUp", 0.0) - (now - self.warmup_at))
        if self.started_at is not None:
            total = self.round_duration if self.round_duration is not None else d.get("round", 0)
            left["warmUp"] = 0.0
            left["round"] = max(0.0, total - (now - self.started_at))
        if self.ended_at is not None:
            left["round"] = 0.0
        if self.ended_at is not None:
            left["post"] = max(0.0, d.get("post", 0.0) - (now - self.ended_at))
            if self.totals is not None:
                left["post"] = 0.0
        if self.failed is not None:
            return "failed", left
        if self.totals is not None:
            return "done", left
        if self.ended_at is not None:
            return "post", left
        if self.started_at is not None:
            return "active", left
        return ("warmup" if self.warmup_at is not None else "setup"), left

    def snapshot(self, now: float) -> dict[str, Any]:
        phase, left = self.phase(now)
        spent = round(sum(d["price"] for d in self.booked()), 2)
        pending = [
            d | {"secondsLeft": round(max(0.0, d["deadline"] - now), 1)}
            for d in self.deals
            if d["status"] == "pending"
        ]
        return {
            "roundId": self.round_id,
            "phase": phase,
            "remaining": left,
            "durations": self.durations,
            "budget": self.budget,
            "spent": spent,
            "left": None if self.budget is None else round(self.budget - spent, 2),
            "utility": self.utility,
            "transcript": [shown(e) for e in self.transcript],
            "offers": self.offers,
            "deals": self.booked(),
            "pending": pending,
            "reserved": round(sum(d["price"] for d in pending), 2),
            "declined": [d for d in self.deals if d["status"] == "declined"],
            "have": self.have(),
            "allocation": self.allocation,
            "totals": self.totals,
            "unauthenticated": self.unauthenticated,
            "failed": self.failed,
            "speaks": self.token is not None or "Human" in self.unauthenticated,
        }


_OLD_TABLE = "humaine_ui_events_v1"
"""Where a file written before the web layer's event log keeps its events until they
are copied (then it is dropped)."""


class HeardLog:
    """Everything the UI server heard, as events of the web layer's append-only log
    (:class:`accord.web.store.EventLog`: stream = round, kind = route, data = body),
    replayed at start-up.

    The buyer's round secrets (``token`` of ``/setUtility`` and ``/sendRoundMetadata``)
    are not written to SQLite: the server must send them, so they go to ``secrets_file``
    (mode 0600, by round) and are put back into those bodies on replay. A file written
    by an earlier version (its own ``events`` table, secrets perhaps in the bodies) is
    copied into the log once, secrets moved out, and its old table dropped.
    """

    def __init__(self, path: str | Path, secrets_file: Path | None = None) -> None:
        self.file = SqliteFile(path)
        self.file.conn.execute("PRAGMA secure_delete = ON")  # moved-out secrets leave no trace
        self.secrets_file = secrets_file
        self._secrets: dict[str, str] = read_private(secrets_file)
        old = self._set_aside_old_table()
        self.events = EventLog(self.file)
        if old:
            self._copy_old_events()

    @property
    def db(self) -> sqlite3.Connection:
        """The SQLite connection (the page keys live in the same file)."""
        return self.file.conn

    def _keep_secret(self, round_id: str, token: Any) -> None:
        if isinstance(token, str) and token and self._secrets.get(round_id) != token:
            self._secrets[round_id] = token
            if self.secrets_file is not None:
                write_private(self.secrets_file, self._secrets)

    def _set_aside_old_table(self) -> bool:
        """Rename an earlier version's ``events`` table (it has ``round_id``)."""
        with self.file.lock:
            cols = {r[1] for r in self.file.conn.execute("PRAGMA table_info(events)")}
            if "round_id" in cols:
                self.file.conn.execute(f"ALTER TABLE events RENAME TO {_OLD_TABLE}")
            found = self.file.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_OLD_TABLE,)
            ).fetchone()
        return found is not None

    def _copy_old_events(self) -> None:
        rows = self.file.rows(f"SELECT round_id, route, body, at FROM {_OLD_TABLE} ORDER BY seq")
        with self.file.transaction(immediate=True):
            for r in rows:
                body = json.loads(r["body"])
                self.append(r["round_id"], r["route"], body, float(r["at"]))
            self.file.execute(f"DROP TABLE {_OLD_TABLE}")
        self.file.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # no old page left behind

    def append(self, round_id: str, route: str, body: dict[str, Any], at: float) -> None:
        if "token" in body and self.secrets_file is not None:
            self._keep_secret(round_id, body["token"])
            body = {k: v for k, v in body.items() if k != "token"}
        self.events.append(round_id, route, body, at=at)

    def replay(self) -> list[tuple[str, str, dict[str, Any], float]]:
        out = []
        for e in self.events.read():
            body = e.data
            secret = self._secrets.get(e.stream)
            if secret and e.kind in ("setUtility", "sendRoundMetadata"):
                body = body | {"token": secret}
            out.append((e.stream, e.kind, body, e.at))
        return out
