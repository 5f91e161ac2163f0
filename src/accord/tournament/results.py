"""Reading a tournament's results file as pandas DataFrames; CSV and Parquet export.

    >>> import tempfile, pathlib
    >>> from accord.tournament.config import TournamentConfig
    >>> from accord.tournament.runner import run_tournament
    >>> cfg = TournamentConfig(["accord.agents.timebased:Boulware",
    ...                         "accord.agents.timebased:Conceder"], ["builtin:tiny"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = run_tournament(cfg, pathlib.Path(d) / "t.sqlite")
    ...     res = Results(pathlib.Path(d) / "t.sqlite")
    ...     len(res.sessions), len(res.parties), sorted(res.parties.agent.unique())
    (8, 16, ['Boulware', 'Conceder'])

``parties`` has one row per party per session with the scores of that session:
``utility`` (final, discounted), ``welfare`` (sum of the session's utilities), ``nash``
(product of the session's utilities, the ANAC 2017 Nash-product score) and
``nash_gain`` (product of ``max(utility - reservation, 0)``, the bargaining-theory form).
"""

from __future__ import annotations

import importlib.util
import json
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accord.core.errors import ConfigError
from accord.core.outcomes import OutcomeSpace
from accord.core.scenario import Scenario
from accord.tournament.scenarios import scenario_from_dict
from accord.tournament.sqlite import SqliteFile
from accord.tournament.store import ACTIONS

_EVENT_COLUMNS = ("session_id", "step", "party", "action", "outcome", "time", "utilities")
_MISSING: Any = object()


class Results:
    """The contents of one tournament results file (read when first asked for)."""

    def __init__(self, path: str | Path) -> None:
        from accord.tournament.resultsfile import check_results_file

        self.path = check_results_file(path)
        self.file = SqliteFile(self.path)
        self.conn = self.file.conn
        tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}
        if not {"meta", "specs", "sessions", "parties"} <= tables:
            raise ConfigError(f"{self.path} is not an Accord tournament results file")

    def close(self) -> None:
        """Close the database connection."""
        self.file.close()

    def _df(self, sql: str) -> pd.DataFrame:
        return pd.read_sql_query(sql, self.conn)

    @cached_property
    def config(self) -> dict[str, Any]:
        """The tournament configuration as stored."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        return {} if row is None else dict(json.loads(row[0]))

    @cached_property
    def specs(self) -> pd.DataFrame:
        """The schedule: one row per scheduled session."""
        return self._df("SELECT * FROM specs ORDER BY idx")

    @cached_property
    def sessions(self) -> pd.DataFrame:
        """One row per finished session (result, failure, timings)."""
        df = self._df("SELECT * FROM sessions ORDER BY idx")
        df["agreed"] = df["agreement"].notna()
        return df

    @cached_property
    def parties(self) -> pd.DataFrame:
        """One row per party per finished session, with the session's scores."""
        df = self._df(
            "SELECT p.session_id, s.idx, s.scenario, s.rep, s.rotation, p.position, p.agent, "
            "p.profile, p.profile_name, p.utility, p.reservation, s.agreement IS NOT NULL "
            "AS agreed, s.reason, s.failure_agent, sp.agents FROM parties p "
            "JOIN sessions s ON s.id = p.session_id JOIN specs sp ON sp.id = p.session_id "
            "ORDER BY s.idx, p.position"
        )
        df["agreed"] = df["agreed"].astype(bool)
        df["failed"] = df["failure_agent"] == df["agent"]
        g = df.groupby("session_id", sort=False)
        df["n_parties"] = g["utility"].transform("size")
        df["welfare"] = g["utility"].transform("sum")
        df["nash"] = g["utility"].transform("prod")
        gain = (df["utility"] - df["reservation"]).clip(lower=0.0)
        df["nash_gain"] = gain.groupby(df["session_id"], sort=False).transform("prod")
        return df

    @cached_property
    def events(self) -> pd.DataFrame:
        """Every offer, accept and end of every session, oldest first per session.

        ``outcome`` is the outcome as JSON values; ``utilities`` lists every party's
        undiscounted utility of it (NaN for an end)."""
        rows = self.conn.execute(
            "SELECT t.*, s.scenario FROM traces t JOIN sessions s ON s.id = t.session_id "
            "ORDER BY s.idx"
        ).fetchall()
        cache: dict[tuple[str, Any], str | None] = {}
        frames = [self._decode(r, cache) for r in rows if r[1] > 0]
        if not frames:
            return pd.DataFrame(columns=list(_EVENT_COLUMNS))
        return pd.concat(frames, ignore_index=True)

    def trace(self, session_id: str) -> pd.DataFrame:
        """The events of one session."""
        row = self.conn.execute(
            "SELECT t.*, s.scenario FROM traces t JOIN sessions s ON s.id = t.session_id "
            "WHERE t.session_id = ?",
            (session_id,),
        ).fetchone()
        if row is None or row[1] == 0:
            return pd.DataFrame(columns=list(_EVENT_COLUMNS))
        return self._decode(row, {})

    def _decode(
        self, row: tuple[Any, ...], cache: dict[tuple[str, Any], str | None]
    ) -> pd.DataFrame:
        sid, n, parties, actions, times, outcomes, utils, scenario = row
        space = self.spaces.get(scenario)
        texts = []
        for code in json.loads(outcomes):
            key = (scenario, code if not isinstance(code, list) else json.dumps(code))
            text = cache.get(key, _MISSING)
            if text is _MISSING:
                text = _outcome_text(code, space)
                cache[key] = text
            texts.append(text)
        table = np.frombuffer(utils, dtype=np.float64).reshape(n, -1)
        return pd.DataFrame(
            {
                "session_id": sid,
                "step": np.arange(n),
                "party": np.frombuffer(parties, dtype=np.uint8).astype(np.int64),
                "action": [ACTIONS[a] for a in actions],
                "outcome": texts,
                "time": np.frombuffer(times, dtype=np.float64),
                "utilities": table.tolist(),
            }
        )

    @cached_property
    def scenarios(self) -> dict[str, Scenario | None]:
        """The scenarios stored in the file (None where a scenario could not be written)."""
        out: dict[str, Scenario | None] = {}
        for name, data in self.conn.execute("SELECT name, data FROM scenarios"):
            out[name] = None if data is None else scenario_from_dict(json.loads(data))
        return out

    @cached_property
    def spaces(self) -> dict[str, OutcomeSpace]:
        """The outcome space of every stored scenario."""
        return {
            name: OutcomeSpace.from_list(json.loads(data))
            for name, data in self.conn.execute("SELECT name, space FROM scenarios")
        }

    def export(self, directory: str | Path, fmt: str = "csv") -> list[Path]:
        """Write specs, sessions, parties and events as ``csv`` or ``parquet`` files."""
        if fmt not in ("csv", "parquet"):
            raise ConfigError(f"export format must be 'csv' or 'parquet', got {fmt!r}")
        if fmt == "parquet" and importlib.util.find_spec("pyarrow") is None:
            raise ConfigError(
                "parquet export needs pyarrow: pip install '.[parquet]' (in the Accord clone)"
            )
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        written = []
        for name in ("specs", "sessions", "parties", "events"):
            df: pd.DataFrame = getattr(self, name)
            p = d / f"{name}.{fmt}"
            if fmt == "csv":
                df.to_csv(p, index=False)
            else:
                df.to_parquet(p, index=False)
            written.append(p)
        return written


def _outcome_text(code: Any, space: OutcomeSpace | None) -> str | None:
    """The outcome of a stored code as JSON values (flat index decoded)."""
    if code is None or code == -1:
        return None
    if isinstance(code, int):
        if space is None:
            return json.dumps({"index": code})
        return json.dumps(list(space.outcome_at(code)))
    return json.dumps(code)
