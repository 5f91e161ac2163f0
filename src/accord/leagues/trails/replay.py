"""A self-contained page replaying a stored agent-vs-agent game turn by turn.

The page uses the play page's board view (same stylesheet: coloured squares, letters, goals
★/☆, positions) and shows each turn's proposals, promised and sent chips and moves, with
Previous / Next / Play. The record is the JSON of ``accord trails play --json``. The page
carries its own Content-Security-Policy (a file opened from disk has no server to send
one): only its one script, pinned by its SHA-256, may run; the record is data, shown as
text.

    >>> from accord.leagues.trails.generator import generate
    >>> from accord.leagues.trails.match import play
    >>> page = replay_html(play(generate("mutual", 1), ["purb", "reliable"]))
    >>> page.startswith("<!doctype html>"), 'id="board"' in page
    (True, True)
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.web.safety import script_source

__all__ = ["load_record", "replay_html"]

STATIC = Path(__file__).resolve().parent / "static"
_NEEDED = ("agents", "scores", "end", "history", "setup")


def load_record(source: str | Path, game: str | None = None) -> dict[str, Any]:
    """A game record from a JSON file (``play --json``) or, with ``game`` (a task id such
    as ``mutual-0-purb-reliable``), from a tournament's SQLite file."""
    import sqlite3

    path = Path(source)
    if not path.is_file():
        raise ConfigError(
            f"expected a game record (JSON) or a tournament file; {path} is not a file"
        )
    if game is None:
        try:
            record = json.loads(path.read_text())
        except (UnicodeDecodeError, ValueError) as exc:
            raise ConfigError(
                f"expected a game record (accord trails play --json) in {path}; "
                f"not JSON ({exc}); for a tournament file give --game"
            ) from None
        if not isinstance(record, dict):
            raise ConfigError(f"expected a game record (a JSON object) in {path}")
        return record
    try:  # read-only: a file that is not a tournament's is left as it was
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT record FROM tasks WHERE id = ?", (game,)).fetchone()
            ids = [r[0] for r in conn.execute("SELECT id FROM tasks ORDER BY idx LIMIT 3")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise ConfigError(f"expected a tournament's SQLite file; {path}: {exc}") from None
    if row is None:
        some = ", ".join(ids)
        raise ConfigError(f"no game {game!r} in {path}; ids look like: {some or '(none stored)'}")
    stored: dict[str, Any] = json.loads(row[0])
    return stored


def replay_html(record: dict[str, Any]) -> str:
    """The replay page of a game ``record`` (needs agents, scores, end, history, setup)."""
    missing = [k for k in _NEEDED if k not in record]
    if missing:
        raise ConfigError(
            f"a game record (accord trails play --json) has {list(_NEEDED)}; missing {missing}"
        )
    data = json.dumps(record).replace("</", "<\\/")
    css = (STATIC / "trails.css").read_text()
    js = (STATIC / "replay.js").read_text()
    csp = (
        f"default-src 'none'; script-src {script_source(js)}; style-src 'unsafe-inline'; "
        "base-uri 'none'; form-action 'none'"
    )
    title = html.escape(" vs ".join(str(a) for a in record["agents"]))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<title>Colored Trails replay: {title}</title>
<style>{css}</style></head>
<body>
<header><b id="title"></b><span id="frame"></span></header>
<main>
<section>
<div id="board"></div>
<button id="prev">Previous</button> <button id="next">Next</button> <button id="play">Play</button>
<p id="final" class="notice" hidden></p>
</section>
<section>
<h3>Chips</h3>
<p>player 0 at <span id="pos-0"></span>: <span id="chips-0"></span></p>
<p>player 1 at <span id="pos-1"></span>: <span id="chips-1"></span></p>
<div id="turn-box" hidden>
<h3>This turn</h3>
<ul id="offers"></ul>
<p>promised (0 | 1): <span id="promised"></span></p>
<p>sent (0 | 1): <span id="sent"></span></p>
<p>squares moved (0 | 1): <span id="moved"></span></p>
</div>
</section>
</main>
<script type="application/json" id="record">{data}</script>
<script>{js}</script>
</body></html>
"""
