"""The status line of long commands (tcplab.status), used by `tcplab run` and `tcplab sweep`."""

from __future__ import annotations

import io
import logging

from support import Clock, FakeTTY
from tcplab import cli
from tcplab.status import StatusLine


def test_updates_are_throttled_but_the_last_always_shows():
    clock = Clock()
    s = io.StringIO()
    line = StatusLine(s, clock, interval=0.5)
    for t, text, last in [(0.0, "a", False), (0.2, "b", False), (0.6, "c", False), (0.7, "d", True)]:
        clock.t = t
        line.show(text, last)
    line.close()
    assert s.getvalue() == "a\nc\nd\n", "elsewhere than a terminal, each update is a line and stays"


def test_on_a_terminal_the_line_is_rewritten_then_erased():
    s = FakeTTY()
    line = StatusLine(s, Clock(), interval=0.0)
    line.show("one")
    line.show("two")
    line.close()
    line.close()
    assert s.getvalue() == "\rone\x1b[K\rtwo\x1b[K\r\x1b[K", "erased once"


def test_a_line_never_shown_is_not_erased():
    s = FakeTTY()
    StatusLine(s, Clock()).close()
    assert s.getvalue() == ""


def test_other_output_on_the_commands_stderr_erases_the_line_first():
    """A log line (Dask's, say) or a warning written while the line shows starts at the start of
    the terminal's line instead of after the status text; the next update draws the line again."""
    tty = FakeTTY()
    err = cli._Guard(tty, is_stdout=False)  # sys.stderr while a command runs
    log = logging.getLogger("test_status.dask")
    log.propagate = False
    log.addHandler(handler := logging.StreamHandler(err))
    handler.setFormatter(logging.Formatter("%(name)s - %(levelname)s - %(message)s"))
    try:
        line = StatusLine(err, Clock(), interval=0.0)
        line.show("3/10 runs")
        log.warning("a worker is slow")
        line.show("4/10 runs")
        print("a warning", file=err)
        line.close()
    finally:
        log.removeHandler(handler)
    assert tty.getvalue() == ("\r3/10 runs\x1b[K" "\r\x1b[K" "test_status.dask - WARNING - a worker is slow\n"
                              "\r4/10 runs\x1b[K" "\r\x1b[K" "a warning\n"), "erased before each, and not again at the end"


def test_elsewhere_than_a_terminal_other_output_follows_the_updates_lines():
    s = io.StringIO()
    err = cli._Guard(s, is_stdout=False)
    line = StatusLine(err, Clock(), interval=0.0)
    line.show("3/10 runs")
    print("a warning", file=err)
    line.close()
    assert s.getvalue() == "3/10 runs\na warning\n", "nothing to erase: each update is a line"
