"""A sweep's local worker processes, started without the caller's main module.

multiprocessing's "spawn" start method runs the parent's main module again in every child (as
``__mp_main__``): a script without an ``if __name__ == "__main__":`` guard then starts its
sweep again in each worker, whose runs die or recurse. A worker here is a fresh interpreter
(``python -c BOOTSTRAP``) that imports only the standard library until it has the parent's
``sys.path``, then the worker function by its module and name: the caller's script is never
imported, whatever it looks like, and no guard is needed.

The connection is a ``multiprocessing.connection.Connection`` over a socket pair (what
``multiprocessing.Pipe`` is on POSIX), so the sweep waits on it with
``multiprocessing.connection.wait`` and sends runs and results pickled, as before.
"""

from __future__ import annotations

import os as _os
import socket as _socket
import subprocess as _subprocess
import sys as _sys

# On each worker's command line, after its connection's fd: `ps` (and the tests) tell the
# sweep's workers by it.
MARK = "tcplab-sweep-worker"

# The child's program. Standard library only until it has the parent's sys.path, so that it
# finds the same tcplab (and the worker's module) as the parent, however the parent found them
# (an installed package, a source tree put on sys.path by a script or by pytest).
BOOTSTRAP = (
    "import sys\n"
    "from multiprocessing.connection import Connection\n"
    "conn = Connection(int(sys.argv[1]))\n"
    "sys.path[:] = conn.recv()\n"
    "from tcplab._worker import serve\n"
    "serve(conn)\n"
)


class Process:
    """A worker process, with what a sweep uses of ``multiprocessing.Process``'s interface."""

    def __init__(self, popen: _subprocess.Popen):
        self._popen = popen
        self.pid = popen.pid

    def is_alive(self) -> bool:
        return self._popen.poll() is None

    @property
    def exitcode(self) -> int | None:
        """The exit status, -N for a signal N (as multiprocessing says it); None while it runs."""
        return self._popen.poll()

    def join(self, timeout: float | None = None) -> None:
        try:
            self._popen.wait(timeout)
        except _subprocess.TimeoutExpired:
            pass  # as multiprocessing's join: the caller looks at exitcode

    def terminate(self) -> None:
        self._popen.terminate()  # a process already reaped is left alone by Popen

    def kill(self) -> None:
        self._popen.kill()


def _executable() -> str:
    # multiprocessing's interpreter for its children: sys.executable unless the program said
    # otherwise with multiprocessing.set_executable (an embedding application)
    from multiprocessing import spawn

    exe = spawn.get_executable() or _sys.executable
    if not exe:
        raise RuntimeError("this Python has no interpreter to start sweep workers with (sys.executable is "
                           "empty): run the sweep with workers=1")
    return _os.fsdecode(exe)


def start(worker) -> tuple:
    """Starts a worker process running ``worker(conn)`` (a module-level function); returns the
    parent's end of its connection and the process."""
    from multiprocessing.connection import Connection

    module, name = worker.__module__, worker.__qualname__
    if module == "__main__" or "<locals>" in name:
        # the child would have to import the caller's script, what this module exists to avoid
        raise ValueError(f"a sweep worker must be a function at the top of an importable module, not {module}.{name}")
    ours, theirs = _socket.socketpair()
    try:
        popen = _subprocess.Popen([_executable(), "-c", BOOTSTRAP, str(theirs.fileno()), MARK],
                                  pass_fds=(theirs.fileno(),), stdin=_subprocess.DEVNULL)
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()  # the child has its copy; ours would keep the connection open after its death
    conn = Connection(ours.detach())
    try:
        conn.send(list(_sys.path))
        conn.send((module, name, _os.getpid()))
    except OSError:
        pass  # died at once: the sweep finds out as it sends the run or reads its result
    return conn, Process(popen)


def serve(conn) -> None:
    """The child's side: gets the worker function and runs it on the connection."""
    import importlib
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C (sent to the whole group) is the sweep's to handle
    try:
        module, name, parent = conn.recv()
    except (EOFError, OSError):
        return  # the sweep went before it told us what to run
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    worker = importlib.import_module(module)
    for part in name.split("."):
        worker = getattr(worker, part)
    worker(conn)


def _exit_when_orphaned(parent: int) -> None:
    """Ends the worker, mid-run too, once its parent has gone (its parent pid changes): a sweep
    killed with SIGKILL leaves no worker computing for nobody."""
    import time

    while _os.getppid() == parent:
        time.sleep(0.5)
    _os._exit(0)
