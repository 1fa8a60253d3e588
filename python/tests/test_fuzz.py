"""Fuzzing: generated and mutated scenarios never make tcplab fail in any other way than a
ScenarioError naming a field, and every one that validates runs (briefly, with its invariants
checked) without an error; nor do damaged result folders make `tcplab plot` and `tcplab report`.

The number of examples comes from TCPLAB_FUZZ_EXAMPLES (default 2500 per test: the four tests
of scenarios and sweep files give CI over 10,000; the damaged folders, slower, get a fiftieth);
the random choices are hypothesis's, so a failure prints the smallest case that shows it.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import dumbbell_doc

import tcplab

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("TCPLAB_FUZZ_EXAMPLES", "2500"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NODES = ["a", "b", "c", "d", "e"]
SMALL = st.one_of(st.integers(-5, 2000), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4), st.none())


def field(good: list, bad: list):
    """A good value 29 times in 30, else a bad one or anything: with a dozen fields, about
    two scenarios in three validate and run, the rest are refused, each by one field or two."""
    # (13: hypothesis favours the ends of a range, which would make bad values common)
    return st.integers(0, 29).flatmap(
        lambda i: st.one_of(st.sampled_from(bad), SMALL) if i == 13 else st.sampled_from(good))


RATE = field(["10Mb", "1.5Mb", "448kb", "100Mb", 2_000_000], ["0Mb", "-3Mb", "fast", "1e30Mb", 0])
DELAY = field(["1ms", "20ms", "0.1s", 0.01, "0ms"], ["-1ms", "soon", 1e9, "1e400s"])
PROTOCOL = field(["reno", "newreno", "tahoe", "sack1", "fack", "sackrh", "vegas", "udp"], ["fast", "cubic", ""])
START = field(["0s", "0.05s", "0.2s"], ["-1s", "1h"])
SIZE = field(["1000B", "40B", "1500B", 576], ["0B", "64kB", -8])
LIMIT = field([1, 2, 8, 50, 1000], [0, -1, 10**12])


@st.composite
def scenarios(draw) -> dict:
    """A scenario as a user might write one: a connected network and flows, most fields right,
    some wrong, in any combination."""
    n = draw(st.integers(2, 5))
    nodes = NODES[:n]
    pairs = [(nodes[i], nodes[i + 1]) for i in range(n - 1)]  # connected: a chain
    chain = {frozenset(p) for p in pairs}
    extra = st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)).filter(lambda p: p[0] != p[1] and frozenset(p) not in chain)
    pairs += draw(st.lists(extra, max_size=2, unique_by=frozenset)) if n > 2 else []
    links = []
    for a, b in pairs:
        link = {"from": a, "to": b, "bandwidth": draw(RATE), "delay": draw(DELAY)}
        link.update(draw(st.fixed_dictionaries({}, optional={"queue_limit": LIMIT, "queue": field(["droptail", "red"], ["fifo"])})))
        links.append(link)
    flows = []
    for name in draw(st.lists(field(["A", "B", "C"], ["A", ""]), min_size=1, max_size=3, unique=True)):
        a, b = draw(st.lists(st.sampled_from(nodes), min_size=2, max_size=2, unique=True))
        flow = {"name": name, "from": a, "to": b, "protocol": draw(PROTOCOL)}
        own = {"rate": RATE} if flow["protocol"] == "udp" else {"tcp": st.fixed_dictionaries({}, optional={"window": field([1, 4, 20, 400], [0, -2])})}
        flow.update(draw(st.fixed_dictionaries({}, optional={
            "start": START, "stop": field(["0.25s", "2s"], ["0s"]), "packet_size": SIZE, **own})))
        flows.append(flow)
    doc = {"name": draw(field(["fuzz"], ["", "x" * 300])), "duration": draw(field(["1s", "0.3s"], ["0s", "-1s"])),
           "nodes": nodes, "links": links, "flows": flows}
    if draw(st.booleans()):
        doc["tcp"] = draw(st.fixed_dictionaries({}, optional={
            "window": field([8, 64], [-1]), "ecn": field([True, False], ["yes"]),
            "timestamps": field([True, False], [2]), "maxburst": field([0, 4], [-1])}))
    if draw(st.booleans()):
        doc["output"] = draw(st.fixed_dictionaries({}, optional={
            "interval": field(["0.1s", "0.05s"], ["0s", "x"]),
            "trace": st.lists(field(["ns2", "cwnd", "rtt", "nam", "pcap"], ["no"]), max_size=3),
            "trace_flows": st.lists(field(["A", "B"], ["Z"]), max_size=2)}))
    if draw(st.booleans()):
        doc["seed"] = draw(field([1, 2, 77, 2**31 - 2], [0, -1, 2**40]))
    if draw(st.integers(0, 29)) == 13:
        doc[draw(st.sampled_from(["rng", "losses", "actions", "unknown_field"]))] = draw(SMALL)
    return doc


def accepted_or_refused(doc) -> dict | None:
    """The normalised scenario, or None when a ScenarioError naming a field refused it."""
    try:
        return tcplab.validate(doc)
    except tcplab.ScenarioError as e:
        assert isinstance(e.path, str) and e.message, repr(e)
        return None


def runs(doc, normalized: dict) -> None:
    """A valid scenario runs its first 0.3 s (checked, its traces written) and gives a summary
    per flow."""
    with tempfile.TemporaryDirectory(prefix="tcplab-fuzz-") as out:
        res = tcplab.run(doc, until=min(0.3, normalized["duration_s"]), check=True, out=out)
    assert len(res.summary["flows"]) == len(normalized["flows"])


@FUZZ
@given(scenarios())
def test_generated_scenarios_are_refused_by_field_or_run(doc):
    normalized = accepted_or_refused(doc)
    if normalized is not None:
        runs(doc, normalized)


@FUZZ
@given(scenarios())
def test_generated_scenarios_validate_the_same_twice(doc):
    """Validation is a function of the input: the same answer, or the same error, each time."""
    first = second = None
    try:
        first = tcplab.validate(doc)
    except tcplab.ScenarioError as e:
        first = ("error", e.path, e.message)
    try:
        second = tcplab.validate(doc)
    except tcplab.ScenarioError as e:
        second = ("error", e.path, e.message)
    assert first == second


SHIPPED = sorted(p for d in ("scenarios", "conformance") for p in (REPO / d).rglob("*.toml")
                 if "[[flows]]" in p.read_text())


ODD_VALUES = ["-1", "0", "1e308", "nan", '""', "[]", "{}", '"1e9s"', "99999999999999999999", "true"]


def mutate(text: str, rng: random.Random) -> str:
    """One to three edits of a scenario file: a line dropped or doubled, a number changed, two
    characters swapped, a value replaced."""
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        kind = rng.randrange(5)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[i])
        elif kind == 2 and "=" in lines[i]:
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {rng.choice(ODD_VALUES)}"
        elif kind == 3 and len(lines[i]) > 2:
            j = rng.randrange(len(lines[i]) - 1)
            s = lines[i]
            lines[i] = s[:j] + s[j + 1] + s[j] + s[j + 2:]
        else:
            lines[i] = lines[i].replace("s", "", 1).replace("Mb", "M", 1)
        if not lines:
            lines = [""]
    return "\n".join(lines) + "\n"


@FUZZ
@given(which=st.integers(0, max(0, len(SHIPPED) - 1)), seed=st.integers(0, 2**32 - 1))
def test_mutated_shipped_scenarios_are_refused_by_field_or_run(which, seed):
    text = mutate(SHIPPED[which].read_text(), random.Random(seed))
    normalized = accepted_or_refused(text)
    if normalized is not None:
        runs(text, normalized)


@FUZZ
@given(st.dictionaries(st.sampled_from(["scenarios", "seeds", "grid", "name", "set", "stray"]),
                       st.one_of(SMALL, st.lists(SMALL, max_size=3), st.dictionaries(st.text(max_size=12), st.lists(SMALL, max_size=3), max_size=2)),
                       max_size=5))
def test_generated_sweep_files_are_refused_by_field(spec):
    """Sweep specifications: a good one builds, a bad one is a ScenarioError naming its field."""
    from tcplab import sweep

    try:
        sweep.build(spec, REPO / "scenarios" / "yew2011-wired")
    except tcplab.ScenarioError as e:
        assert e.path and e.message


@pytest.fixture(scope="module")
def result_folder(tmp_path_factory) -> Path:
    """A run's result folder with every file `tcplab plot` and `tcplab report` read."""
    out = tmp_path_factory.mktemp("run")
    tcplab.run({**dumbbell_doc(), "output": {"interval": "0.5s"}}, out=out, trace=["ns2", "cwnd"])
    return out


FOLDER_FILES = ["summary.json", "scenario.json", "trace.tr", "series-flows.parquet", "series-links.parquet",
                "series-tcp.parquet", "series-cwnd.parquet"]
# bytes at random, or bytes that mean something to a parser
CHUNK = st.one_of(st.binary(min_size=1, max_size=8),
                  st.sampled_from([b'"', b' "', b"'", b"\n", b" ", b",", b"-", b".", b"e", b"NaN", b"null", b"[", b"{",
                                   b"99999999999999999999", b"-1", b"\xff"]))
EDIT = st.tuples(st.floats(0, 1, exclude_max=True), st.sampled_from(["set", "cut", "insert"]), CHUNK)


@settings(FUZZ, max_examples=max(1, EXAMPLES // 50))
@given(file=st.sampled_from(FOLDER_FILES), edits=st.lists(EDIT, min_size=1, max_size=20), command=st.sampled_from(["report", "report", "plot"]))
def test_a_damaged_result_folder_is_read_or_refused_by_file(result_folder, file, edits, command):
    """Bytes of one of a result folder's files changed, cut or inserted: `tcplab plot` and
    `tcplab report` draw what they can, or refuse naming a file of the folder (exit 2), and
    never fail inside (exit 1)."""
    from tcplab import cli

    with tempfile.TemporaryDirectory(prefix="tcplab-fuzz-") as work:
        run = Path(work) / "run"
        shutil.copytree(result_folder, run)
        data = bytearray((run / file).read_bytes())
        for at, how, chunk in edits:
            i = int(at * len(data))
            if how == "set":
                data[i:i + len(chunk)] = chunk
            elif how == "cut":
                del data[i:i + len(chunk) * 8]
            else:
                data[i:i] = chunk
        (run / file).write_bytes(bytes(data))
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = cli.main([command, str(run), "--out", str(Path(work) / ("page.html" if command == "report" else "figures"))])
        assert status in (0, 2), err.getvalue()
        if status == 2:
            assert err.getvalue().startswith(f"tcplab: error: {run}"), err.getvalue()
