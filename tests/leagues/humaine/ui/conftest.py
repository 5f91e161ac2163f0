"""Real services on loopback for the UI tests: orchestrator, UI server, two tiny agents."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for hui_kit (no package here)

from hui_kit import CHROMIUM_ARGS, KEYS, FixedUtilities, tiny_agent  # noqa: E402

from accord.leagues.humaine.testing import ServerThread, loopback_socket  # noqa: E402
from accord.web.testing import SkipClock, chromium_env  # noqa: E402

UNCONFIRMED_AFTER = 3.0
"""Seconds the orchestrator waits for a confirmation in the ``unconfirmed`` platform."""


@pytest.fixture
def celia_app() -> Any:
    """Makes Celia's service from the orchestrator's URL; a test module overrides this
    fixture to seat another seller (a hostile one) in Celia's chair."""
    return lambda orch: tiny_agent("Celia", 6.0, orch)


@pytest.fixture(params=["plain"])
def platform(
    request: pytest.FixtureRequest, tmp_path: Path, celia_app: Any
) -> Iterator[dict[str, Any]]:
    """Orchestrator + UI server + Celia (6.00) and Watson (7.50), all on loopback; with
    ``@pytest.mark.parametrize("platform", ["manager"], indirect=True)`` also the
    competition manager (admin password ``manager-pw``); with ``["fast"]`` R0's gap
    between two human utterances is 0.3 s instead of 5 s (the orchestrator's clock,
    ``platform["clock"]``, is a :class:`SkipClock`: ``skip(0.3)`` passes the gap); with ``["unconfirmed"]`` too, and
    the orchestrator waits only ``UNCONFIRMED_AFTER`` seconds for a deal's confirmation."""
    from accord.leagues.humaine.orchestrator import create_orchestrator_app
    from accord.leagues.humaine.rules import RuleConfig
    from accord.leagues.humaine.ui_server import create_ui_app

    socks = {k: loopback_socket() for k in ("orch", "ui", "Celia", "Watson")}
    ports = {k: s.getsockname()[1] for k, s in socks.items()}
    urls = {k: f"http://127.0.0.1:{p}" for k, p in ports.items()}
    fast = request.param in ("fast", "unconfirmed")
    rules = RuleConfig(human_gap=0.3) if fast else None
    clock = SkipClock()  # a test skips R0's gap instead of sleeping through it
    orch_app = create_orchestrator_app(
        clock=clock,
        db_path=tmp_path / "orch.sqlite",
        human_uis=[urls["ui"]],
        rule_config=rules,
        confirm_timeout=UNCONFIRMED_AFTER if request.param == "unconfirmed" else 90.0,
    )
    agents = [
        {"name": n, "protocol": "http", "host": "127.0.0.1", "port": ports[n]}
        for n in ("Celia", "Watson")
    ]
    ui_app = create_ui_app(
        orchestrator_url=urls["orch"],
        db_path=tmp_path / "ui.sqlite",
        agents=agents,
        utility_source=FixedUtilities(),
        public_url=urls["ui"],
        human_gap=0.3 if fast else 5.0,
        admin_secret=orch_app.state.admin_secret,
        **KEYS,
    )
    manager = None
    if request.param == "manager":
        from accord.leagues.humaine.manager.app import create_manager_app

        socks["manager"] = loopback_socket()
        ports["manager"] = socks["manager"].getsockname()[1]
        urls["manager"] = f"http://127.0.0.1:{ports['manager']}"
        manager = create_manager_app(
            tmp_path / "manager.sqlite",
            admin_password="manager-pw",
            orchestrator_url=urls["orch"],
            ui_url=urls["ui"],
            public_url=urls["manager"],
            orchestrator_secret=orch_app.state.admin_secret,
        )
    servers = [
        ServerThread(orch_app, socks["orch"]),
        ServerThread(ui_app, socks["ui"]),
        ServerThread(celia_app(urls["orch"]), socks["Celia"]),
        ServerThread(tiny_agent("Watson", 7.5, urls["orch"]), socks["Watson"]),
    ]
    if manager is not None:
        servers.append(ServerThread(manager, socks["manager"]))
    for s in servers:
        s.__enter__()
    try:
        yield {"urls": urls, "ports": ports, "orchestrator": orch_app, "ui": ui_app, "clock": clock}
    finally:
        for s in reversed(servers):
            s.__exit__(None, None, None)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Chromium is not installed (shutil.which('chromium') is None)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, env=chromium_env())
        try:
            yield b
        finally:
            b.close()
