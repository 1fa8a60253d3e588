"""Tests for tcplab.tracediff on small hand-written ns-2 wired traces."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tcplab.tracediff import diff_traces, main  # noqa: E402

PYTHON_DIR = Path(__file__).resolve().parents[1]

BASE = [
    "+ 0 0 1 tcp 40 ------- 0 0.0 2.0 0 0",
    "- 0 0 1 tcp 40 ------- 0 0.0 2.0 0 0",
    "r 0.010032 0 1 tcp 40 ------- 0 0.0 2.0 0 0",
    "+ 0.010032 1 2 tcp 40 ------- 0 0.0 2.0 0 0",
    "- 0.010032 1 2 tcp 40 ------- 0 0.0 2.0 0 0",
    "r 0.030352 1 2 tcp 40 ------- 0 0.0 2.0 0 0",
    "+ 0.030352 2 1 ack 40 ------- 0 2.0 0.0 0 1",
    "- 0.030352 2 1 ack 40 ------- 0 2.0 0.0 0 1",
    "r 0.050672 2 1 ack 40 ------- 0 2.0 0.0 0 1",
    "+ 0.050672 1 0 ack 40 ------- 0 2.0 0.0 0 1",
]


def write(tmp_path, name, lines):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def test_identical(tmp_path):
    a = write(tmp_path, "a.tr", BASE)
    # extra spacing does not matter: lines are compared field by field
    b = write(tmp_path, "b.tr", [ln.replace(" ", "  ") for ln in BASE])
    r = diff_traces(a, b)
    assert r.identical
    assert r.compared == r.equal_prefix == r.equal_total == len(BASE)
    assert r.first_diff_a is None and r.first_diff_b is None
    assert not r.lengths_differ
    assert main([a, b]) == 0


@pytest.mark.parametrize("k", [1, 5, 10])
def test_differs_at_line_k(tmp_path, k):
    other = list(BASE)
    other[k - 1] = other[k - 1].replace("------- 0", "---A--- 0")
    a = write(tmp_path, "a.tr", BASE)
    b = write(tmp_path, "b.tr", other)
    r = diff_traces(a, b)
    assert not r.identical
    assert r.first_diff_a == r.first_diff_b == k
    assert r.line_a == BASE[k - 1] and r.line_b == other[k - 1]
    assert r.equal_prefix == k - 1
    assert r.equal_total == len(BASE) - 1
    assert r.compared == len(BASE)
    assert not r.lengths_differ
    assert main([a, b]) == 1
    # comparing only other columns hides the flag difference
    assert diff_traces(a, b, fields=["ev", "time", "seq", "uid"]).identical


def test_equal_total_counts_after_first_difference(tmp_path):
    other = list(BASE)
    other[2] = other[2].replace("0.010032", "0.010033")
    other[6] = other[6].replace("ack 40", "ack 48")
    r = diff_traces(write(tmp_path, "a.tr", BASE), write(tmp_path, "b.tr", other))
    assert r.first_diff_a == 3
    assert r.equal_prefix == 2
    assert r.equal_total == len(BASE) - 2


def test_different_lengths(tmp_path):
    a = write(tmp_path, "a.tr", BASE)
    b = write(tmp_path, "b.tr", BASE[:7])
    r = diff_traces(a, b)
    assert not r.identical
    assert r.lengths_differ
    assert (r.lines_a, r.lines_b, r.compared) == (10, 7, 7)
    assert r.equal_prefix == r.equal_total == 7
    assert r.first_diff_a == 8 and r.line_a == BASE[7]
    assert r.first_diff_b is None and r.line_b is None  # B ended
    assert "lengths differ" in r.format()
    # and the other way round
    r2 = diff_traces(b, a)
    assert r2.first_diff_a is None and r2.first_diff_b == 8


def test_link_filter(tmp_path):
    # B differs only in one line of link 2->1 (file line 9)
    other = list(BASE)
    other[8] = other[8].replace("0.050672", "0.050999")
    a = write(tmp_path, "a.tr", BASE)
    b = write(tmp_path, "b.tr", other)
    r01 = diff_traces(a, b, link=(0, 1))
    assert r01.identical and r01.compared == 3
    r21 = diff_traces(a, b, link=(2, 1))
    assert not r21.identical
    assert r21.compared == 3 and r21.equal_prefix == 2
    # line numbers refer to the files, not to the filtered list
    assert r21.first_diff_a == r21.first_diff_b == 9
    # direction matters: 1->2 is not 2->1
    assert diff_traces(a, b, link=(1, 2)).compared == 3
    assert diff_traces(a, b, link=("1", "2")).identical
    assert main([a, b, "--link", "0", "1"]) == 0
    assert main([a, b, "--link", "2", "1"]) == 1


def test_command_line(tmp_path):
    a = write(tmp_path, "a.tr", BASE)
    b = write(tmp_path, "b.tr", BASE[:-1])
    proc = subprocess.run([sys.executable, "-m", "tcplab.tracediff", a, b],
                          cwd=PYTHON_DIR, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "first difference" in proc.stdout and "line 10" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "tcplab.tracediff", a, a, "--link", "2", "1"],
                          cwd=PYTHON_DIR, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("identical: 3 lines")
    proc = subprocess.run([sys.executable, "-m", "tcplab.tracediff", a, str(tmp_path / "missing")],
                          cwd=PYTHON_DIR, capture_output=True, text=True)
    assert proc.returncode == 2
