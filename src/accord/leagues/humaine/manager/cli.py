"""Command line of the HUMAINE competition manager and human UIs.

``app`` is a :class:`typer.Typer` meant to be mounted under ``accord`` (for example as
``accord humaine-manager``). Commands:

- ``manager``: serve the competition manager (default port 14020);
- ``ui``: serve the chat UI and the human assistant UI (default port 7040);
- ``plan``: print a pool-play schedule for given names, without saving anything;
- ``set-password``: set the admin password stored in a manager database.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from accord.leagues.humaine.manager.schedule import ScheduleError, plan_pool_play
from accord.web.runner import ServerError, bound_socket, serve

app = typer.Typer(help="HUMAINE competition manager and human UIs.", no_args_is_help=True)
console = Console()

PASSWORD_ENV = "ACCORD_HUMAINE_ADMIN_PASSWORD"
SECRET_ENV = "ACCORD_HUMAINE_ADMIN_SECRET"
"""The orchestrator's operator secret (X-Accord-Admin), when no --admin-secret-file."""

_SECRET_FILE_HELP = (
    "File with the orchestrator's admin secret (X-Accord-Admin; 'accord humaine up' and "
    f"'orchestrator' write <data>/admin-secret), else ${SECRET_ENV}."
)


def _orchestrator_secret(path: Path | None) -> str | None:
    """The operator secret from ``path`` or the environment (None: the orchestrator's
    admin routes must be open, or they answer 403)."""
    if path is None:
        return os.environ.get(SECRET_ENV) or None
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError as e:
        raise typer.BadParameter(f"cannot read the admin secret file {path}: {e}") from None


def _bind(host: str, port: int) -> socket.socket:
    """The socket to serve on, bound now: a taken port is one clear line, before
    anything is made or printed."""
    try:
        return bound_socket(host, port)
    except ServerError as e:
        raise typer.BadParameter(f"{e} (is another server using it?)") from None


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _agent(spec: str) -> dict[str, object]:
    """``Celia=127.0.0.1:14007`` -> ``{name, protocol, host, port}``."""
    try:
        name, address = spec.split("=", 1)
        host, port = address.rsplit(":", 1)
        return {"name": name.strip(), "protocol": "http", "host": host.strip(), "port": int(port)}
    except ValueError:
        raise typer.BadParameter(
            f"expected NAME=HOST:PORT like Celia=127.0.0.1:14007; got {spec!r}"
        ) from None


@app.command()
def manager(
    db: Annotated[Path, typer.Option(help="SQLite file of the competition.")] = Path(
        "humaine-manager.sqlite"
    ),
    host: str = "127.0.0.1",
    port: int = 14020,
    orchestrator: str = "http://127.0.0.1:14010",
    utility_url: Annotated[
        str | None, typer.Option(help="Utility generator base URL (default: draw in-process).")
    ] = None,
    ui_url: Annotated[str | None, typer.Option(help="Human UI server base URL.")] = (
        "http://127.0.0.1:7040"
    ),
    admin_password: Annotated[
        str | None, typer.Option(help=f"(Re)set the admin password (or set ${PASSWORD_ENV}).")
    ] = None,
    admin_secret_file: Annotated[Path | None, typer.Option(help=_SECRET_FILE_HELP)] = None,
) -> None:
    """Serve the competition manager: contestants, pools, schedule, leaderboard."""
    from accord.leagues.humaine.manager.app import create_manager_app

    sock = _bind(host, port)  # a taken port is refused before anything is printed
    url = f"http://{host}:{sock.getsockname()[1]}"
    web = create_manager_app(
        db,
        admin_password=admin_password or os.environ.get(PASSWORD_ENV),
        orchestrator_url=orchestrator,
        utility_url=utility_url,
        ui_url=ui_url,
        public_url=url,
        orchestrator_secret=_orchestrator_secret(admin_secret_file),
    )
    console.print(f"competition manager: [bold]{url}/[/] (leaderboard: {url}/leaderboard.html)")
    if web.state.initial_password:
        console.print(f"admin user [bold]admin[/], password [bold]{web.state.initial_password}[/]")
    serve(web, log_level="warning", sock=sock)


@app.command()
def ui(
    host: str = "127.0.0.1",
    port: int = 7040,
    orchestrator: str = "http://127.0.0.1:14010",
    db: Annotated[Path, typer.Option(help="SQLite file of what the UIs heard.")] = Path(
        "humaine-ui.sqlite"
    ),
    agent: Annotated[
        list[str] | None,
        typer.Option(help="Seller for the chat UI's Start button, NAME=HOST:PORT (twice)."),
    ] = None,
    utility_url: Annotated[
        str | None, typer.Option(help="Utility generator base URL (default: draw in-process).")
    ] = None,
    confirm_timeout: Annotated[
        float,
        typer.Option(
            help="Seconds the person has to confirm a deal (then declined; shown on the pages). "
            "Give the orchestrator a longer --confirm-timeout."
        ),
    ] = 60.0,
    auto_confirm: Annotated[
        bool, typer.Option(help="Acknowledge every deal at once (simulated buyers).")
    ] = False,
    admin_secret_file: Annotated[Path | None, typer.Option(help=_SECRET_FILE_HELP)] = None,
) -> None:
    """Serve the chat UI and the human assistant UI."""
    from accord.leagues.humaine.manager.services import http_utility_source
    from accord.leagues.humaine.ui_server import DEFAULT_AGENTS, create_ui_app

    sock = _bind(host, port)  # a taken port is refused before the links are printed
    url = f"http://{host}:{sock.getsockname()[1]}"
    agents = [_agent(a) for a in agent] if agent else list(DEFAULT_AGENTS)
    web = create_ui_app(
        orchestrator_url=orchestrator,
        db_path=db,
        agents=agents,
        utility_source=http_utility_source(utility_url) if utility_url else None,
        public_url=url,
        confirm_timeout=confirm_timeout,
        auto_confirm=auto_confirm,
        admin_secret=_orchestrator_secret(admin_secret_file),
    )
    keys = web.state.page_keys
    for text in (  # whole, on lines of their own: links must survive copying
        f"the buyer's link (chat and assistant): {keys.link('person', url)}",
        f"the admin's link (start a round): {keys.link('admin', url)}",
    ):
        console.print(text, soft_wrap=True, markup=False, highlight=False)
    serve(web, log_level="warning", sock=sock)


@app.command()
def plan(
    agents: Annotated[str, typer.Option(help="Comma-separated agent names.")],
    humans: Annotated[str, typer.Option(help="Comma-separated human names.")],
    pools: int = 2,
    seed: int = 0,
) -> None:
    """Print the pool-play schedule these contestants would get (nothing is saved)."""
    try:
        p = plan_pool_play(_names(agents), _names(humans), pools, np.random.default_rng(seed))
    except ScheduleError as e:
        console.print(f"[red]cannot schedule:[/] {e}")
        raise typer.Exit(1) from None
    for group, members in p.groups.items():
        console.print(f"pool {group}: {', '.join(members)}")
    table = Table("#", "slot", "pool", "Celia (utility)", "Watson (utility)", "human (buyer)")
    for r in p.rounds:
        table.add_row(
            str(r.number),
            str(r.slot),
            r.group,
            f"{r.celia} (s{r.celia_utility})",
            f"{r.watson} (s{r.watson_utility})",
            f"{r.human} (b{r.buyer_utility})",
        )
    console.print(table)


@app.command("set-password")
def set_password(
    password: Annotated[str, typer.Option(prompt=True, hide_input=True)],
    db: Path = Path("humaine-manager.sqlite"),
    user: str = "admin",
) -> None:
    """Set the admin password stored (hashed) in a manager database."""
    from accord.leagues.humaine.manager.auth import hash_password
    from accord.leagues.humaine.manager.store import ManagerStore

    try:
        digest = hash_password(password)
    except ValueError as e:
        console.print(f"[red]{e}[/]")
        raise typer.Exit(1) from None
    store = ManagerStore(db)
    store.set_admin(user, digest)
    store.close()
    console.print(f"password of {user!r} set in {db}")
