"""Shared bits of the tcplab tests."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# These tests run the compiled extension: fail loudly (not skip) when it has not been built.
try:
    importlib.import_module("tcplab._core")
except ImportError as e:  # pragma: no cover
    raise ImportError(f"tcplab._core is not built ({e}): run scripts/setup.sh first") from e

# Tests that run ns-2 itself: skipped where it is not installed, except under CI, which
# installs it (scripts/test.sh), so that there a missing ns-2 fails instead of skipping.
needs_ns = pytest.mark.skipif(
    shutil.which("ns") is None and not os.environ.get("CI"),
    reason="ns-2 is not installed (bash conformance/install-ns2.sh)",
)

# Tests that start a Dask cluster: skipped where `distributed` is missing, except under CI.
try:
    importlib.import_module("distributed")
    _has_dask = True
except ImportError:  # pragma: no cover
    _has_dask = False
needs_dask = pytest.mark.skipif(
    not _has_dask and not os.environ.get("CI"),
    reason="dask.distributed is not installed (scripts/setup.sh installs it)",
)

DATA = Path(__file__).parent / "data"
DUMBBELL = DATA / "dumbbell.toml"
DUMBBELL_TEXT = DUMBBELL.read_text()
REPO = Path(__file__).resolve().parents[2]


def dumbbell_doc() -> dict:
    """The dumbbell scenario as a dict (a fresh copy each time)."""
    return tomllib.loads(DUMBBELL_TEXT)


def without_name(text: str) -> str:
    """``text`` without its ``name = "dumbbell"`` line."""
    out = text.replace('name = "dumbbell"\n', "", 1)
    assert out != text
    return out

# Tests that open pages in Debian's headless chromium (through selenium and chromium-driver):
# skipped where they are missing, except under CI, which installs them (scripts/test.sh).
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
try:
    importlib.import_module("selenium.webdriver")
    _has_selenium = True
except ImportError:  # pragma: no cover
    _has_selenium = False
needs_browser = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER and _has_selenium) and not os.environ.get("CI"),
    reason="chromium, chromium-driver or selenium is missing (scripts/test.sh installs them)",
)

# Tests that read pcap files with tshark: skipped where it is missing, except under CI.
needs_tshark = pytest.mark.skipif(
    shutil.which("tshark") is None and not os.environ.get("CI"),
    reason="tshark is not installed (bash scripts/apt-install.sh tshark)",
)


def opened(browser, path: Path):
    """`browser` showing the page at `path`, once its script has drawn it."""
    browser.get(path.as_uri())
    assert browser.execute_script("return document.body.dataset.ready") == "1"
    return browser


def worker_killed_by_seed_2(conn) -> None:
    """A sweep worker (tcplab.sweep._worker) whose process dies of SIGKILL whenever it is
    given a run of seed 2: the run that takes down every worker it meets."""
    import signal

    from tcplab import sweep

    while (job := conn.recv()) is not None:
        if job[1] == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        conn.send(sweep._run_one(*job))


def worker_hung_by_seed_2(conn) -> None:
    """A sweep worker whose run of seed 2 never ends and never looks at its time limit, as a
    run stuck inside one step of the core would."""
    import time

    from tcplab import sweep

    while (job := conn.recv()) is not None:
        while job[1] == 2:
            time.sleep(1)
        conn.send(sweep._run_one(*job))


class FakeTTY(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        return True


class Clock:
    """A wall clock the test sets by hand."""

    t = 0.0

    def __call__(self):
        return self.t


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def dask_cluster(workers: int, scheduler_env: dict | None = None, worker_args: tuple = ()):
    """A Dask scheduler and `workers` single-threaded workers on this machine, each a process;
    yields the scheduler's address and the processes, the scheduler's first."""
    address = f"tcp://127.0.0.1:{_free_port()}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "python"), str(REPO / "python" / "tests")])}
    procs = [subprocess.Popen([sys.executable, "-c", "from distributed.cli.dask_scheduler import main; main()",
                               "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard"],
                              env={**env, **(scheduler_env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(workers):
            procs.append(subprocess.Popen(
                [sys.executable, "-c", "from distributed.cli.dask_worker import main; main()", address,
                 "--nworkers", "1", "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1", *worker_args],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        from distributed import Client

        with Client(address, timeout="60s") as c:
            c.wait_for_workers(workers, timeout=60)
        yield address, procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
