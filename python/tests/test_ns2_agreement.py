"""tcplab against ns-2.35 itself: the lossy dumbbells must give byte-identical wired traces.

Both simulators run the same scenario file (ns-2 through the Tcl that tcplab.ns2 writes); the
traces of every link are compared line by line and a failure shows the first line that differs.
ns-2 comes from Debian's `ns2` package (conformance/install-ns2.sh); without it these tests are
skipped, except under CI, which installs it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import tcplab
from tcplab import ns2
from tcplab.tracediff import diff_traces

REPO = Path(__file__).resolve().parents[2]
LOSSY = sorted((REPO / "scenarios" / "yew2011-wired").glob("lossy-*.toml"))

needs_ns = pytest.mark.skipif(
    shutil.which("ns") is None and not os.environ.get("CI"),
    reason="ns-2 is not installed (bash conformance/install-ns2.sh)",
)


@needs_ns
@pytest.mark.parametrize("path", LOSSY, ids=lambda p: p.stem)
def test_lossy_dumbbell_traces_match_ns2(path, tmp_path):
    theirs = ns2.run_ns2(path, str(tmp_path / "ns2"))["trace"]
    tcplab.run(path, out=tmp_path / "tcplab", trace=["ns2"])
    ours = tmp_path / "tcplab" / "trace.tr"

    report = diff_traces(str(ours), theirs)
    assert report.compared > 100_000, "the traces cover the whole run"
    assert report.identical, (
        f"{report.equal_prefix} lines agree, then line {report.first_diff_a}:\n"
        f"  tcplab: {report.line_a}\n  ns-2:   {report.line_b}"
    )


def test_there_are_three_lossy_scenarios():
    assert [p.stem for p in LOSSY] == ["lossy-newreno", "lossy-reno", "lossy-tahoe"]
