"""GENIUS agents named by path run in the sandbox by default (``evaluate``, round robin):
the same sessions as in process, only their own side's view (never the other side's type)
and none of the organiser's files, and a stalled agent's calls are its recorded invalid
actions while the session runs to its end."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.leagues.genius import sandboxed
from accord.leagues.genius.evaluate import evaluate
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.match import Match
from accord.leagues.genius.pdas import make_agent
from accord.sandbox import AgentFailure, sandbox_available

ENTRIES = Path(__file__).parent / "entries"
needs_os = pytest.mark.skipif(
    sandbox_available() is not None, reason=f"no OS sandbox here: {sandbox_available()}"
)
ONE = {"type_pairs": [(0, 1)]}


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ENTRIES))


def _rows(records: list) -> list[tuple]:  # type: ignore[type-arg]
    return [(r.side, r.utility, r.generosity, r.reason, r.turn) for r in records]


@needs_os
def test_a_sandboxed_agent_plays_the_same_sessions_as_in_process() -> None:
    builtin = evaluate("bayes", ["job_candidate"], ["conceder", "fair"], **ONE)
    inside = evaluate("genius_entries:MyBayes", ["job_candidate"], ["conceder", "fair"], **ONE)
    assert _rows(inside) == _rows(builtin) and len(inside) == 4


@needs_os
def test_a_sandboxed_agent_sees_its_own_side_and_no_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "people.sqlite"
    secret.write_text("every participant")
    monkeypatch.setenv("GENIUS_SECRET", str(secret))
    jc = load_domain("job_candidate")
    inside = Match(jc, [sandboxed.sandboxed("genius_entries:Peeker"), make_agent("conceder")],
                   (0, 1), seed=3).run()  # fmt: skip
    assert inside.invalid == (0, 0)  # it found neither the other's type nor the file
    trusted = Match(jc, [make_agent("genius_entries:Peeker"), make_agent("conceder")],
                    (0, 1), seed=3).run()  # fmt: skip
    assert trusted.invalid[0] > 0  # in process it finds both (each ask raises)
    assert "leaked type,file" in str([e.error for e in trusted.events if not e.ok][0])


@needs_os
def test_a_stalled_agent_is_its_own_failure_and_the_session_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandboxed, "CALL_TIMEOUT", 1.0)
    jc = load_domain("job_candidate")
    r = Match(jc, [sandboxed.sandboxed("genius_entries:Stalling"), make_agent("conceder")],
              (0, 1), seed=3).run()  # fmt: skip
    errors = [e.error for e in r.events if not e.ok]
    assert r.invalid[0] == len(errors) > 0 and r.invalid[1] == 0
    assert "1 s" in str(errors[0]) and r.reason.value in ("deadline", "opt_out", "agreement")


def test_a_bad_sandbox_mode_is_refused() -> None:
    with pytest.raises(ConfigError, match="sandbox must be one of os, process, none, off"):
        evaluate("genius_entries:MyBayes", ["job_candidate"], ["conceder"], sandbox="vm", **ONE)


def test_a_path_that_names_no_genius_agent_is_one_clear_error() -> None:
    # an Accord negotiator (the examples' kind) is not a GENIUS agent: refused, not
    # scored as an agent whose every action was invalid
    with pytest.raises(ConfigError, match="is not a GENIUS agent: expected a subclass"):
        make_agent("accord.agents.timebased:Boulware")


@needs_os
def test_evaluate_stops_on_a_sandboxed_path_that_names_no_genius_agent() -> None:
    with pytest.raises(AgentFailure, match="could not start the agent .* is not a GENIUS agent"):
        evaluate("accord.agents.timebased:Boulware", ["job_candidate"], ["conceder"], **ONE)


def test_none_is_the_in_process_mode_as_in_every_league() -> None:
    assert sandboxed.genius_sandbox("genius_entries:MyBayes", "none") is None
    assert sandboxed.genius_sandbox("genius_entries:MyBayes", "off") is None
    assert sandboxed.genius_sandbox("genius_entries:MyBayes") == "os"
