"""The one SQLite base shared by threads, and the append-only event log on it."""

from __future__ import annotations

import io
import sqlite3
import threading
from pathlib import Path

import pytest

from accord.tournament.sqlite import SqliteFile
from accord.web import EventLog, VirtualClock


def test_the_log_is_append_only_and_survives_reopening(tmp_path: Path) -> None:
    clock = VirtualClock()
    log = EventLog(SqliteFile(tmp_path / "e.sqlite"), clock)
    log.append("r1", "said", {"text": "hi"}, party="human")
    clock.advance(1.5)
    log.append("r2", "said", {"text": "other round"})
    log.append("r1", "deal", {"price": 4.5}, party="Celia")
    for sql in ("UPDATE events SET kind = 'x'", "DELETE FROM events"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            log.file.execute(sql)
    log.file.close()
    again = EventLog(SqliteFile(tmp_path / "e.sqlite"))
    assert [(e.seq, e.kind, e.at - 1_700_000_000) for e in again.read("r1")] == [
        (1, "said", 0.0),
        (3, "deal", 1.5),
    ]
    assert [e.seq for e in again.read(after=1)] == [2, 3]
    assert [e.kind for e in again.read(party="Celia")] == ["deal"]
    assert [e.seq for e in again.read(kinds=("said",))] == [1, 2]
    assert again.last_seq() == 3
    out = io.StringIO()
    assert again.write_csv(out, "r2") == 1
    assert out.getvalue().splitlines()[1] == (
        '2,2023-11-14T22:13:21.500Z,1700000001.5,r2,,said,"{""text"":""other round""}"'
    )


def test_listeners_hear_each_event_after_it_is_stored(tmp_path: Path) -> None:
    log = EventLog(SqliteFile(":memory:"))
    heard: list[int] = []
    log.listeners.append(lambda e: heard.append(len(log.read()) * 100 + e.seq))
    log.append("s", "a")
    log.append("s", "b")
    assert heard == [101, 202]


def test_one_file_serves_many_threads(tmp_path: Path) -> None:
    log = EventLog(SqliteFile(tmp_path / "e.sqlite"))

    def writer(name: str) -> None:
        for i in range(50):
            log.append("s", "tick", {"i": i}, party=name)

    threads = [threading.Thread(target=writer, args=(f"t{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = log.read("s")
    assert [e.seq for e in events] == list(range(1, 201))
    for k in range(4):
        assert [e.data["i"] for e in events if e.party == f"t{k}"] == list(range(50))


def test_memory_files_and_row_dicts() -> None:
    with SqliteFile(":memory:", schema="CREATE TABLE t (a INTEGER, b TEXT);") as f:
        with f.transaction(immediate=True):
            f.execute("INSERT INTO t VALUES (?, ?)", (1, "x"))
        assert f.rows("SELECT * FROM t") == [{"a": 1, "b": "x"}]
        with pytest.raises(RuntimeError), f.transaction():
            f.execute("INSERT INTO t VALUES (2, 'y')")
            raise RuntimeError("roll back")
        assert f.rows("SELECT COUNT(*) AS n FROM t") == [{"n": 1}]
