"""The status line a long command keeps on stderr (a run's simulated time, a sweep's runs).

On a terminal the line is rewritten in place and erased at the end; elsewhere (a file or a
pipe, with TCPLAB_PROGRESS=1) each update is a line of its own. Updates come at most every
``interval`` seconds of wall time, except the last.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable, TextIO

# Held while a status line is drawn or erased, and by the command's guard of stderr while it
# erases the line and writes other text (Dask logs from its own thread): reentrant, as an
# erase writes through that guard.
lock = threading.RLock()


class StatusLine:
    def __init__(self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic,
                 interval: float = 0.5):
        # sys.stderr as it is now, the command's guard included (cli._Guard)
        self.stream = stream if stream is not None else sys.stderr
        self.tty = isatty(self.stream)
        self.clock = clock
        self.interval = interval
        self.last: float | None = None  # wall time of the last update shown
        self.shown = False

    def show(self, text: str, last: bool = False) -> None:
        """Shows ``text``, unless the previous update is too recent and this is not the ``last``."""
        t = self.clock()
        if not last and self.last is not None and t - self.last < self.interval:
            return
        self.last = t
        with lock:
            text = shown(text)  # a scenario's name is in it
            if self.tty:
                self._hold(False)
                self._write(f"\r{text}\x1b[K")  # \x1b[K erases the rest of the line
                self._hold(True)
            else:
                self._write(text + "\n")
            self.stream.flush()
            self.shown = True

    def close(self) -> None:
        """Erases the line from a terminal."""
        with lock:
            self._hold(False)
            if self.shown and self.tty:
                self._write("\r\x1b[K")
                self.stream.flush()
            self.shown = False

    def _write(self, text: str) -> None:
        # The command's guard (cli._Guard) shows control characters as text, but for these.
        if hasattr(type(self.stream), "status_line"):
            self.stream.write(text, raw=True)
        else:
            self.stream.write(text)

    def _hold(self, shown: bool) -> None:
        """Tells a stream that erases its status line before other output (the command's guard
        of stderr, `cli._Guard`) whether this line is on it, so that a log line or a warning
        starts a line of its own instead of following this one's text. Only what is written
        through that guard is seen: not a worker process's output, nor Rust's."""
        if hasattr(type(self.stream), "status_line"):
            if shown:
                self.stream.status_line = self
            elif self.stream.status_line is self:
                self.stream.status_line = None


def shown(text: str, keep: str = "\n") -> str:
    """`text` as a terminal should get it: names come from scenarios, and an ESC in one would
    drive the terminal, a CR rewrite the line. Each character that is not printable (controls,
    bidirectional overrides), but for `keep` (the line end, or ""), is written as a repr writes
    it (\\x1b)."""
    if text.replace(keep, "").isprintable():  # the common case, at C speed
        return text
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)


def progress_enabled(stream: TextIO | None = None) -> bool:
    """Progress on stderr: on a terminal, or with TCPLAB_PROGRESS=1; never with TCPLAB_PROGRESS=0."""
    env = os.environ.get("TCPLAB_PROGRESS", "")
    return env == "1" or (env != "0" and isatty(stream if stream is not None else sys.stderr))


def isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
