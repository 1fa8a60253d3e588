"""The ns-2 regression suites, side by side (see tcplab.conformance and docs/conformance.md)."""

from __future__ import annotations

import json
import os

import pytest
from support import needs_ns

from tcplab import cli, conformance

# CI compares a fixed half of each suite's tests (the first and every other one after it), to
# keep within its time; `tcplab conformance ns2` compares them all (README, docs/conformance.md).
SHARE = 2 if os.environ.get("CI") else 1


@needs_ns
@pytest.mark.parametrize("suite", conformance.available_suites())
def test_every_compared_test_is_identical(suite):
    report = conformance.run([suite], every=SHARE)[suite]
    # a suite compares its tests or says, for each, why it cannot (the wireless suites that
    # need an ad hoc routing protocol are skipped whole)
    assert report.tests, "ns-2 listed no tests"
    assert not report.different, "\n".join(
        f"{d['test']}: {d['equal_lines']} lines agree, then line {d['first_line']}:\n"
        f"  tcplab: {d['tcplab']}\n  ns-2:   {d['ns2']}" for d in report.different)
    listed = set(report.tests)
    assert set(report.identical) | {s["test"] for s in report.skipped} == listed
    assert all(s["reason"] != "no tcplab scenario" for s in report.skipped), "give every skip a reason"


@needs_ns
def test_examples_in_nested_folders_run_in_one_report():
    """ex/802.11/infra.tcl and ex/simple-wireless.tcl in one run: each script runs in its own
    scratch copy of its folder (ex/ holds ex/802.11/; one copy must not hide the other)."""
    reports = conformance.run(["ex-802.11-infra", "ex-simple-wireless"])
    assert [reports[s].identical for s in ("ex-802.11-infra", "ex-simple-wireless")] == [["infra"], ["simple-wireless"]]


@needs_ns
def test_cli_json_report(capsys):
    assert cli.main(["conformance", "ns2", "--suite", "testReno-full", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    tr = doc["suites"]["testReno-full"]
    assert tr["total"] == tr["identical"] == 6
    assert tr["different"] == []
    assert {"test", "reason"} <= set(tr["skipped"][0])  # the two BayFullTcp tests


@pytest.mark.parametrize("suite", ["nosuch", "", ".", "tcp/", "tcpVariants/../.."])  # names, not paths
def test_unknown_suite_names_the_option(capsys, suite):
    assert cli.main(["conformance", "ns2", "--suite", suite]) == 2
    assert f"--suite: no scenarios for {suite!r} (available: " in capsys.readouterr().err


def test_a_share_compares_the_first_test_and_every_nth_after_it():
    report = conformance.SuiteReport(tests=["a", "b", "c", "d", "e"])
    kept = [t for t in report.tests if conformance._in_share(report, t, 2)]
    assert kept == ["a", "c", "e"]
    assert [s["test"] for s in report.skipped] == ["b", "d"]
    assert {s["reason"] for s in report.skipped} == {"left out of this run's share (one test in 2)"}
