"""SCML's ``run_tournament`` called from a script without an ``if __name__ ==
"__main__":`` guard: sandboxed agents start (no module re-import of the script) and the
scores are those of the guarded script, never silent zeros from agents that failed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs_bwrap

BODY = """
from accord.leagues.scml.runner import run_tournament
from accord.leagues.scml.tournament import TournamentSpec
spec = TournamentSpec(["random", "trader"], n_configs=1, n_steps=8, levels_range=(2, 2),
                      non_competitors=("donothing",), isolation="competitors")
res = run_tournament(spec, {out!r}, executor="processes", workers=2)
print(json.dumps({{"scores": {{k: v["score"] for k, v in res.scores.items()}},
                  "errors": sum(len(w["agent_exceptions"]) for w in res.worlds)}}))
"""


def _run(tmp: Path, guarded: bool) -> dict:
    out = tmp / f"{guarded}.sqlite"
    body = BODY.format(out=str(out))
    if guarded:
        body = 'if __name__ == "__main__":\n' + "".join(
            "    " + line + "\n" for line in body.strip().splitlines()
        )
    script = tmp / f"script_{guarded}.py"
    script.write_text("import json\n" + body)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp, env=env,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_an_unguarded_script_gets_the_guarded_scripts_scores(tmp_path: Path) -> None:
    unguarded, guarded = _run(tmp_path, False), _run(tmp_path, True)
    assert unguarded == guarded
    assert unguarded["errors"] == 0
    assert any(v != 0.0 for v in unguarded["scores"].values())
