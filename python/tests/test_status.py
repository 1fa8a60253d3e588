"""The status line of long commands (tcplab.status), used by `tcplab run` and `tcplab sweep`."""

from __future__ import annotations

import io

from support import Clock, FakeTTY
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
