"""How the HUMAINE commands start (issue 23, item 6): ``accord humaine up`` prints the
whole buyer's link, on a line of its own, at any terminal width (80 columns here), and
the link works; ``orchestrator`` and ``ui`` on a taken port stop with one clear line
before printing any link."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from accord.leagues.humaine.cli import app
from accord.web.runner import bound_socket
from accord.web.testing import wait_until

pytestmark = pytest.mark.timeout(120)

CLI = [sys.executable, "-c", "from accord.cli import app; app()"]


def test_up_prints_the_whole_buyer_link_at_80_columns_and_it_opens_the_page(
    tmp_path: Path,
) -> None:
    env = os.environ | {"COLUMNS": "80", "TERM": "dumb"}
    args = ["humaine", "up", "--port-base", "0", "--data", str(tmp_path), "--no-agents"]
    proc = subprocess.Popen(
        [*CLI, *args, "--exit-after", "60"], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # the link is printed before the servers run
            lines.append(line)
            if "press Ctrl-C" in line or "stopping after" in line:
                break
        out = "".join(lines)
        links = [ln for ln in lines if "the buyer's link" in ln]
        assert len(links) == 1, out
        link = re.search(r"(http://127\.0\.0\.1:\d+/join\?key=\S+)$", links[0].rstrip("\n"))
        assert link is not None, links[0]  # whole, at the end of its own line
        table = [ln for ln in lines if ln[:1] in "┏┃┡│└"]
        assert table and all(len(ln.rstrip("\n")) <= 80 for ln in table), out
        with httpx.Client(trust_env=False, timeout=10) as c:

            def opens() -> httpx.Response | None:  # the servers start just after the links
                try:
                    return c.get(link.group(1), follow_redirects=False)
                except httpx.TransportError:
                    return None

            opened = wait_until(opens, f"the buyer's link of {out}")
            assert opened.status_code == 303, opened.text
            assert opened.headers["location"] == "chat.html"
            page = c.get(link.group(1), follow_redirects=True)
            assert page.status_code == 200 and "text/html" in page.headers["content-type"]
            assert c.get(link.group(1).split("/join")[0] + "/api/state").status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


@pytest.mark.parametrize("command", ["orchestrator", "ui", "utility-generator", "manager"])
def test_a_taken_port_is_one_clear_line_before_any_link(tmp_path: Path, command: str) -> None:
    from accord.leagues.humaine.manager.cli import app as manager_app

    taken = bound_socket("127.0.0.1", 0, listen=1)
    port = taken.getsockname()[1]
    try:
        cli = app if command in ("orchestrator", "utility-generator") else manager_app
        extra = {
            "orchestrator": ["--db", str(tmp_path / "o.sqlite")],
            "ui": ["--db", str(tmp_path / "u.sqlite")],
            "manager": ["--db", str(tmp_path / "m.sqlite")],
            "utility-generator": [],
        }[command]
        result = CliRunner().invoke(cli, [command, "--port", str(port), *extra])
    finally:
        taken.close()
    assert result.exit_code == 2, result.output
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert "is another server using it?" in result.output
    assert "key=" not in result.output and "http://" not in result.output
    assert list(tmp_path.iterdir()) == []  # nothing made either
