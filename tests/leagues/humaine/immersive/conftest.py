"""Real services on loopback for the immersive tests: orchestrator, the UI server in
immersive mode, two scripted sellers that gesture; Chromium with a fake microphone."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "ui"))  # hui_kit: keys, fixed utilities

from hui_kit import KEYS, FixedUtilities  # noqa: E402
from imm_kit import HUMAN_GAP, gesturing_seller, speech_missing  # noqa: E402

from accord.leagues.humaine.testing import ServerThread, loopback_socket  # noqa: E402


@pytest.fixture
def needs_speech() -> None:
    why = speech_missing()
    if why is not None:
        pytest.skip(f"offline speech unavailable (CI installs espeak-ng and pocketsphinx): {why}")


@pytest.fixture(autouse=True)
def _speech_worker_only_where_speech_is_heard(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The immersive server starts its speech-input worker at start-up (a spawned
    interpreter that loads its decoder: about 5 s of CPU). Tests that never speak start
    it at the first utterance instead (they send none it would decode); those that speak (they ask for
    ``needs_speech``) keep the warm worker, so their time bounds are the operator's."""
    if "needs_speech" not in request.fixturenames:
        from accord.leagues.humaine.listening import Listener

        monkeypatch.setattr(Listener, "warm_up", lambda self: None)


@pytest.fixture
def celia_app() -> Any:
    """Makes Celia's service from the orchestrator's URL; a test module overrides this
    fixture to seat another seller (a hostile one) in Celia's chair."""
    return lambda orch: gesturing_seller("Celia", orch)


@pytest.fixture
def stage(
    request: pytest.FixtureRequest, tmp_path: Path, celia_app: Any
) -> Iterator[dict[str, Any]]:
    """Orchestrator + immersive UI server + gesturing Celia and Watson, on loopback; R0's
    gap is ``HUMAN_GAP`` unless parametrized (``indirect=True``) with another."""
    gap = float(getattr(request, "param", HUMAN_GAP))
    from accord.leagues.humaine.orchestrator import create_orchestrator_app
    from accord.leagues.humaine.rules import RuleConfig
    from accord.leagues.humaine.ui_server import create_ui_app

    socks = {k: loopback_socket() for k in ("orch", "ui", "Celia", "Watson")}
    ports = {k: s.getsockname()[1] for k, s in socks.items()}
    urls = {k: f"http://127.0.0.1:{p}" for k, p in ports.items()}
    orch = create_orchestrator_app(
        db_path=tmp_path / "orch.sqlite",
        human_uis=[urls["ui"]],
        rule_config=RuleConfig(human_gap=gap),
    )
    agents = [
        {"name": n, "protocol": "http", "host": "127.0.0.1", "port": ports[n]}
        for n in ("Celia", "Watson")
    ]
    ui = create_ui_app(
        orchestrator_url=urls["orch"],
        db_path=tmp_path / "ui.sqlite",
        agents=agents,
        utility_source=FixedUtilities(),
        public_url=urls["ui"],
        human_gap=gap,
        admin_secret=orch.state.admin_secret,  # the operator's secret: the admin page sends it
        immersive=True,
        **KEYS,
    )
    servers = [
        ServerThread(orch, socks["orch"]),
        ServerThread(ui, socks["ui"]),
        ServerThread(celia_app(urls["orch"]), socks["Celia"]),
        ServerThread(gesturing_seller("Watson", urls["orch"]), socks["Watson"]),
    ]
    for s in servers:
        s.__enter__()
    try:
        yield {"urls": urls, "orchestrator": orch, "ui": ui}
    finally:
        for s in reversed(servers):
            s.__exit__(None, None, None)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    if shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed (shutil.which('chromium') is None)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p
