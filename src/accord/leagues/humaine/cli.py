"""``accord humaine ...``: run the HUMAINE platform.

``accord humaine up`` starts, on loopback, the environment orchestrator (14010), the
utility generator (7021), the human UIs (7040) and the competition manager (14020) if
their package is present, and two seller agents, Celia (14007) and Watson (14008), if the
agents package is present; then prints the URLs. All run in one process through the web
layer's runner (:func:`accord.web.runner.serve_together`). ``--port-base 0`` picks free
ports (for tests and parallel stacks). Links are printed whole on lines of their own
(never wrapped or cut, whatever the terminal's width).

The orchestrator's admin routes need the operator's secret (``X-Accord-Admin``): ``up``
and ``orchestrator`` keep it in ``<data>/admin-secret`` (mode 0600) and ``up`` gives it
to the UIs' admin page and the manager. ``--open-admin`` drops the check for the
original HUMAINE manager (which cannot send the header) and says what it gives up.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.table import Table

from accord.core.errors import ConfigError
from accord.web.runner import ServerError, bound_socket, serve, serve_together

from .admin import OPEN_WARNING, admin_secret_file
from .flow import Flow
from .orchestrator import create_orchestrator_app
from .utility_generator import create_utility_generator_app

app = typer.Typer(help="HUMAINE: human buyer versus two seller agents.", no_args_is_help=True)
console = Console()

CHECK_WITHIN = 60.0
"""Seconds ``up --check`` probes the services before it reports what is down."""

UI_CONFIRM_TIMEOUT = 60.0
"""Seconds the person has to confirm a deal in ``up`` (the orchestrator waits 30 s more)."""

DEFAULT_PORTS = {
    "orchestrator": 14010,
    "utility": 7021,
    "ui": 7040,
    "manager": 14020,
    "Celia": 14007,
    "Watson": 14008,
}


@app.callback()
def humaine() -> None:
    """HUMAINE: human buyer versus two seller agents."""


@dataclass
class Service:
    name: str
    app: Any
    sock: socket.socket
    probe: str  # path to GET for a health check
    page: str = ""  # path worth opening in a browser
    url: str = ""  # from the bound socket (kept: the socket closes when the server stops)

    def __post_init__(self) -> None:
        host, port = self.sock.getsockname()[:2]
        self.url = f"http://{host}:{port}"


def _bind(
    host: str, port: int, hint: str = "; pass --port-base 0 to use free ports"
) -> socket.socket:
    """The web layer's bound socket, listening at once; a taken port is one clear line."""
    try:
        return bound_socket(host, port, listen=128)
    except ServerError as e:
        raise typer.BadParameter(
            f"{e} (is another server using it?){hint if port else ''}"
        ) from None


def _port(base: int | None, name: str) -> int:
    return 0 if base == 0 else DEFAULT_PORTS[name]


def build_stack(
    host: str,
    port_base: int | None,
    data: Path,
    celia: str,
    watson: str,
    with_agents: bool,
    with_ui: bool,
    seed: int | None,
    unauthenticated: Sequence[str] = (),
    open_admin: bool = False,
    immersive: bool = False,
    spoken_auto_send: float | None = None,
    crowd: Flow | None = None,
) -> tuple[list[Service], list[str]]:
    """The services to run and notes on what was left out (and why).

    Every speaker proves who it is with a per-round secret; ``unauthenticated`` lists
    the speakers admitted without one (agents written for the original platform). The
    admin routes need the operator's secret (``data/admin-secret``) unless ``open_admin``."""
    notes: list[str] = []
    data.mkdir(parents=True, exist_ok=True)
    secret, admin_note = _admin_secret(data, open_admin)
    notes.append(admin_note)
    agent_factory: Any = None
    if with_agents:
        try:
            from .agents.service import create_agent_app
            from .agents.tournament import seller_factory

            agent_factory = seller_factory
        except ImportError as e:
            notes.append(f"seller agents not started: {e}")
    ui_factories: Any = None
    if with_ui:
        try:
            from .manager.app import create_manager_app
            from .manager.services import http_utility_source
            from .ui_server import create_ui_app

            ui_factories = (create_ui_app, create_manager_app, http_utility_source)
        except ImportError as e:
            notes.append(f"human UIs and manager not started: {e}")
    names = ["orchestrator", "utility"]
    names += ["Celia", "Watson"] if agent_factory else []
    names += ["ui", "manager"] if ui_factories else []
    socks = {n: _bind(host, _port(port_base, n)) for n in names}
    url = {n: f"http://{host}:{s.getsockname()[1]}" for n, s in socks.items()}

    services: list[Service] = []
    ui_services: list[Service] = []
    if ui_factories:
        create_ui_app, create_manager_app, http_utility_source = ui_factories
        agent_specs = [
            {"name": n, "protocol": "http", "host": host, "port": socks[n].getsockname()[1]}
            | ({"authenticated": False} if n in unauthenticated else {})
            for n in ("Celia", "Watson")
            if n in socks
        ]
        ui_app = create_ui_app(
            orchestrator_url=url["orchestrator"],
            db_path=data / "ui.sqlite",
            agents=agent_specs or [{"name": "Celia"}, {"name": "Watson"}],
            utility_source=http_utility_source(url["utility"]),
            public_url=url["ui"],
            confirm_timeout=UI_CONFIRM_TIMEOUT,
            admin_secret=secret,
            immersive=immersive,
            spoken_auto_send=spoken_auto_send,
            flow=crowd,
        )
        keys = ui_app.state.page_keys
        if immersive:
            notes += _immersive_notes(ui_app)
        pages = "avatars, chat and assistant" if immersive else "chat and assistant"
        notes.append(f"the buyer's link ({pages}): {keys.link('person', url['ui'])}")
        notes.append(f"the admin's link (start a round): {keys.link('admin', url['ui'])}")
        mgr_app = create_manager_app(
            data / "manager.sqlite",
            orchestrator_url=url["orchestrator"],
            utility_url=url["utility"],
            ui_url=url["ui"],
            ui_link=keys.link("person", url["ui"]),
            public_url=url["manager"],
            orchestrator_secret=secret,
        )
        password = getattr(mgr_app.state, "initial_password", None)
        if password:
            notes.append(f"manager admin user 'admin', password {password}")
        ui_services = [
            Service("human UIs", ui_app, socks["ui"], "/", f"/join?key={keys.person}"),
            Service("competition manager", mgr_app, socks["manager"], "/", "/"),
        ]
    ui_urls = [url["ui"]] if ui_factories else []
    orch = create_orchestrator_app(
        db_path=data / "orchestrator.sqlite",
        human_uis=ui_urls,
        confirm_timeout=UI_CONFIRM_TIMEOUT + 30,  # longer than the person's time
        unauthenticated=unauthenticated,
        admin_secret=secret,
        open_admin=open_admin,
    )
    for name in unauthenticated:
        notes.append(f"{name} is admitted WITHOUT authentication: anyone may speak as {name}")
    services.append(Service("orchestrator", orch, socks["orchestrator"], "/health", "/docs"))
    gen = create_utility_generator_app(seed)
    services.append(Service("utility generator", gen, socks["utility"], "/generateUtility/seller"))
    if agent_factory:
        for name, kind in (("Celia", celia), ("Watson", watson)):
            try:
                agent = agent_factory(kind)(name, seed=seed or 0)
            except ValueError as e:
                raise typer.BadParameter(str(e)) from None
            if immersive and not agent.gestures:  # the avatars gesture as the agents ask
                from .agents.base import SAMPLE_GESTURES

                agent.gestures = SAMPLE_GESTURES
            agent_app = create_agent_app(agent, url["orchestrator"])
            services.append(Service(f"agent {name} ({kind})", agent_app, socks[name], "/health"))
    services += ui_services
    return services, notes


def _immersive_notes(ui_app: Any) -> list[str]:
    """What the immersive mode can do here (speech, head pose), for ``up`` to print."""
    svc = ui_app.state.immersive
    out = ["immersive mode: the buyer's link opens the avatars' page (/immersive/)"]
    for what, missing in (
        ("speech out (espeak-ng)", svc.speech_missing()),
        ("speech in (pocketsphinx)", svc.listening_missing()),
    ):
        out.append(f"{what}: ready" if missing is None else f"{what} OFF: {missing}")
    head = svc.headpose_missing()
    out.append("head pose: OpenCV ready" if head is None else f"head pose off: {head}")
    return out


def _admin_secret(folder: Path, open_admin: bool) -> tuple[str | None, str]:
    """The operator's secret (kept in ``folder/admin-secret``, mode 0600) and a note
    for the operator; none, and the warning, with ``open_admin``."""
    if open_admin:
        return None, OPEN_WARNING
    secret, path, made = admin_secret_file(folder)
    if made:
        return secret, (
            f"admin secret made: {secret} (send it as the X-Accord-Admin header; kept in "
            f"{path}, mode 0600)"
        )
    return secret, f"admin secret (X-Accord-Admin header) in {path} (mode 0600)"


async def serve_all(
    services: list[Service],
    exit_after: float | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> None:
    """Run every service until Ctrl-C, ``exit_after`` seconds, or ``should_stop()``."""
    await serve_together([(s.app, s.sock) for s in services], exit_after, should_stop)


def _smoke(services: list[Service]) -> list[tuple[str, str]]:
    out = []
    with httpx.Client(timeout=5, trust_env=False) as client:
        for s in services:
            try:
                r = client.get(s.url + s.probe)
                out.append((s.name, "ok" if r.status_code < 400 else f"HTTP {r.status_code}"))
            except httpx.HTTPError as e:
                out.append((s.name, f"down: {e}"))
    return out


_OPEN_ADMIN_HELP = (
    "Let anyone who reaches the orchestrator create, start and end rounds (no "
    "X-Accord-Admin secret): only for the original HUMAINE manager, which cannot send it."
)


@app.command()
def up(
    host: Annotated[str, typer.Option(help="Interface to listen on (loopback by default).")] = (
        "127.0.0.1"
    ),
    port_base: Annotated[
        int | None, typer.Option(help="0: free ports for everything; default: the original's.")
    ] = None,
    data: Annotated[Path, typer.Option(help="Folder for the SQLite files.")] = Path("humaine-data"),
    celia: Annotated[str, typer.Option(help="Seller kind for Celia: strong, regex...")] = "strong",
    watson: Annotated[str, typer.Option(help="Seller kind for Watson.")] = "regex",
    agents: Annotated[bool, typer.Option(help="Start the two seller agents.")] = True,
    ui: Annotated[bool, typer.Option(help="Start the human UIs and the manager.")] = True,
    seed: Annotated[int | None, typer.Option(help="Seed of utilities and agents.")] = None,
    unauthenticated: Annotated[
        list[str] | None,
        typer.Option(
            help="Admit this speaker (Celia, Watson, Human) WITHOUT a secret: only for an "
            "agent or UI written for the original platform (repeatable)."
        ),
    ] = None,
    exit_after: Annotated[
        float | None, typer.Option(help="Stop after this many seconds (smoke tests).")
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            help="Probe every service until it answers (at most 60 s) and print the results; "
            "--exit-after then counts from the check's end."
        ),
    ] = False,
    open_admin: Annotated[bool, typer.Option(help=_OPEN_ADMIN_HELP)] = False,
    immersive: Annotated[
        bool,
        typer.Option(
            help="Immersive mode: the buyer's page shows Celia and Watson as avatars that "
            "speak and gesture, and the buyer speaks (offline speech; docs/humaine-immersive.md)."
        ),
    ] = False,
    spoken_auto_send: Annotated[
        float | None,
        typer.Option(
            help="Immersive mode: send a spoken take at once when its confidence (0-1: how far "
            "the two domain searches agree on its words) is at least this, instead of waiting "
            "for the buyer to send it. Off by default: misheard takes could buy things.",
            min=0.0,
            max=1.0,
        ),
    ] = None,
    crowd: Annotated[
        bool,
        typer.Option(
            help="A crowd study: the buyer's link leads through consent and instructions to "
            "the round, and ends with a completion code (kept in the data folder)."
        ),
    ] = False,
    return_url: Annotated[
        str | None,
        typer.Option(help="With --crowd: the crowd platform's return link, shown at the end."),
    ] = None,
) -> None:
    """Start orchestrator, utility generator, UIs and two agents; print the URLs."""
    if return_url is not None and not crowd:
        raise ConfigError("--return-url is shown at the end of a crowd study: add --crowd")
    services, notes = build_stack(
        host,
        port_base,
        data,
        celia,
        watson,
        agents,
        ui,
        seed,
        unauthenticated or [],
        open_admin,
        immersive=immersive,
        spoken_auto_send=spoken_auto_send,
        crowd=Flow(return_url=return_url) if crowd else None,
    )
    table = Table(title="HUMAINE on loopback")
    table.add_column("service")
    table.add_column("URL")
    for s in services:  # the links with their keys follow, whole, below the table
        table.add_row(s.name, s.url + ("/" if "key=" in s.page else s.page))
    console.print(table)
    for note in notes:  # whole, on lines of their own: links must survive copying
        console.print(f"note: {note}", soft_wrap=True, markup=False, highlight=False)

    stop_at: list[float] = []  # with --check, --exit-after counts from the check's end

    def checked_and_due() -> bool:
        return bool(stop_at) and time.monotonic() >= stop_at[0]

    async def main() -> None:
        timed = check and exit_after is not None
        task = asyncio.create_task(
            serve_all(services, None if timed else exit_after, checked_and_due if timed else None)
        )
        if check:  # probe until every service answers (a loaded machine starts slowly)
            deadline = time.monotonic() + CHECK_WITHIN
            while True:
                results = await asyncio.to_thread(_smoke, services)
                if all(r == "ok" for _, r in results) or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            for name, result in results:
                console.print(f"check {name}: {result}")
            if exit_after is not None:
                stop_at.append(time.monotonic() + exit_after)
        await task

    console.print(
        "press Ctrl-C to stop" if exit_after is None else f"stopping after {exit_after:g} s"
    )
    t0 = time.monotonic()
    asyncio.run(main())
    console.print(f"stopped after {time.monotonic() - t0:.1f} s")


@app.command()
def orchestrator(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (the original's is 14010).")] = 14010,
    db: Annotated[Path, typer.Option(help="SQLite file of rounds and decisions.")] = Path(
        "humaine-data/orchestrator.sqlite"
    ),
    human_ui: Annotated[
        list[str] | None, typer.Option(help="Base URL of a human UI (repeatable).")
    ] = None,
    budget: Annotated[float, typer.Option(help="Human budget when a round names none.")] = 50.0,
    timeout: Annotated[float, typer.Option(help="Seconds allowed per call to a party.")] = 5.0,
    confirm_timeout: Annotated[
        float, typer.Option(help="Seconds a human UI may take to answer /confirmAccept.")
    ] = 90.0,
    unauthenticated: Annotated[
        list[str] | None,
        typer.Option(
            help="Admit this speaker WITHOUT a secret in every round: only for an agent or "
            "UI written for the original platform (repeatable)."
        ),
    ] = None,
    open_admin: Annotated[bool, typer.Option(help=_OPEN_ADMIN_HELP)] = False,
) -> None:
    """Serve only the environment orchestrator (R0-R4 with the spec's constants)."""
    sock = _bind(host, port, "")  # a taken port is refused before anything is made
    db.parent.mkdir(parents=True, exist_ok=True)
    secret, admin_note = _admin_secret(db.parent, open_admin)
    console.print(f"[yellow]note:[/] {admin_note}")
    web = create_orchestrator_app(
        db_path=db,
        human_uis=human_ui or [],
        default_budget=budget,
        call_timeout=timeout,
        confirm_timeout=confirm_timeout,
        unauthenticated=unauthenticated or [],
        admin_secret=secret,
        open_admin=open_admin,
    )
    url = f"http://{host}:{sock.getsockname()[1]}"
    console.print(f"orchestrator on {url} (API docs at /docs)", soft_wrap=True)
    serve(web, log_level="warning", sock=sock)


@app.command("utility-generator")
def utility_generator(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (the original's is 7021).")] = 7021,
    seed: Annotated[int | None, typer.Option(help="Seed of the draws.")] = None,
) -> None:
    """Serve only the utility generator (Appendix A ranges, the original's routes)."""
    sock = _bind(host, port, "")
    console.print(f"utility generator on http://{host}:{sock.getsockname()[1]}", soft_wrap=True)
    serve(create_utility_generator_app(seed), log_level="warning", sock=sock)
