"""``accord tournament --executor ray --address`` against a real ``ray start --head`` with
token authentication (loopback only): the right token runs the tournament exactly as a
serial run does; a wrong or missing token is one clear error line within seconds."""

from __future__ import annotations

import ipaddress
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from tournament_helpers import T, content

pytest.importorskip("ray", reason="the ray extra is not installed (pip install '.[ray]')")

from ray_head import Head, ray_head  # noqa: E402

from accord.tournament.cli import build_config  # noqa: E402
from accord.tournament.runner import run_tournament  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.timeout(120)]
ACCORD = Path(sys.executable).with_name("accord")
FLAGS = [
    "--agents",
    f"{T}Boulware,{T}Conceder,{T}Linear",
    "--scenarios",
    "builtin:bilateral,builtin:trilateral",
    "--reps",
    "2",
    "--seed",
    "7",
]


@pytest.fixture(scope="module")
def head() -> Iterator[Head]:
    with ray_head(cpus=2) as h:
        yield h


# A refusal is one process start plus one check of the token, a few seconds on a quiet
# machine; the bound catches a client that hangs on the cluster, not a slow start-up
# (one start took 13.4 s at load 13).
REFUSAL_SECONDS = 30


def accord(head: Head, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    t0 = time.monotonic()
    done = subprocess.run(
        [str(ACCORD), "tournament", *FLAGS, "--executor", "ray", "--address", head.address, *args],
        env=head.client_env(),
        capture_output=True,
        text=True,
        timeout=90,
    )
    return done, time.monotonic() - t0


def test_the_head_listens_on_loopback_only(head: Head) -> None:
    listening = [
        (p.name(), c.laddr)
        for p in head.processes()
        for c in p.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN or not c.raddr
    ]
    assert listening, "the head has no listening socket"
    outside = [(n, a) for n, a in listening if not ipaddress.ip_address(a.ip).is_loopback]
    mapped = [
        (n, a)
        for n, a in outside
        if (m := ipaddress.ip_address(a.ip)).version == 6
        and m.ipv4_mapped is not None
        and m.ipv4_mapped.is_loopback
    ]
    assert outside == mapped, f"listening beyond loopback: {outside}"


def test_a_tournament_on_the_cluster_matches_a_serial_run(head: Head, tmp_path: Path) -> None:
    out = tmp_path / "ray.sqlite"
    done, _ = accord(
        head, "--ray-token-file", str(head.token_file), "--out", str(out), "--no-report", "-q"
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == str(out)
    serial = tmp_path / "serial.sqlite"
    cfg = build_config(None, FLAGS[1], FLAGS[3], reps=2, seed=7)
    run_tournament(cfg, serial, "serial")
    a, b = content(serial), content(out)
    assert len(a["sessions"]) > 0
    assert a == b


def test_a_wrong_token_is_one_clear_line_within_seconds(head: Head, tmp_path: Path) -> None:
    wrong = tmp_path / "wrong-token"
    wrong.write_text("not-the-token")
    done, seconds = accord(
        head, "--ray-token-file", str(wrong), "--out", str(tmp_path / "w.sqlite")
    )
    assert done.returncode == 2
    err = done.stderr.strip()
    assert err == (
        f"error: the Ray cluster at {head.address} refused the token in {wrong}: it is not "
        "the head's token; on the head, `ray get-auth-token` prints the token it was "
        "started with"
    ), err
    assert seconds < REFUSAL_SECONDS
    assert not (tmp_path / "w.sqlite").exists()


def test_a_missing_token_is_one_clear_line_within_seconds(head: Head, tmp_path: Path) -> None:
    done, seconds = accord(head, "--out", str(tmp_path / "m.sqlite"))
    assert done.returncode == 2
    assert done.stderr.strip().startswith(
        f"error: the Ray cluster at {head.address} requires a token (token authentication "
        "is on): pass --ray-token-file FILE or set RAY_AUTH_TOKEN"
    ), done.stderr
    assert "Traceback" not in done.stderr
    assert seconds < REFUSAL_SECONDS


def test_a_token_file_without_ray_or_a_missing_file_is_refused_first(
    head: Head, tmp_path: Path
) -> None:
    done, _ = accord(head, "--ray-token-file", str(tmp_path / "absent"))
    assert done.returncode == 2
    assert done.stderr.startswith(
        "error: --ray-token-file must be a readable file holding the cluster's token; "
    ), done.stderr
    assert "No such file" in done.stderr


def test_no_head_at_the_address_is_one_clear_line(head: Head, tmp_path: Path) -> None:
    with socket.socket() as s:  # a free port: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    done = subprocess.run(
        [str(ACCORD), "tournament", *FLAGS, "--executor", "ray", "--address", f"127.0.0.1:{port}"],
        env=head.client_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: no Ray head answers at 127.0.0.1:{port} (Connection refused); start one "
        f"with `ray start --head --port {port}` or check --address"
    ), done.stderr
    # at once, not after Ray's connection retries (45 s: the CLI's start-up and Ray's
    # import on a loaded machine fit in it, under the 60 s the run is given)
    assert time.monotonic() - t0 < 45
