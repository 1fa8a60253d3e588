"""The ``tcplab`` command line.

    tcplab run SCENARIO... [--out DIR] [--seed N] [--trace ns2|cwnd|pcap|nam|rtt]... [--until T]
               [--series parquet|csv] [--check] [--no-limits] [--max-events N]
    tcplab validate SCENARIO...
    tcplab estimate SCENARIO... [--until T] [--trace ...] [--out DIR] [--json]
    tcplab plot RESULT_DIR [--out DIR]
    tcplab report RESULT_DIR [--out FILE]
    tcplab ns2 export SCENARIO [--out FILE] [--trace PATH] [--cwnd PATH] [--nam PATH]
    tcplab ns2 import-scene [--movements FILE] [--connections FILE] [--nodes N] [--out FILE]
    tcplab emulate SCENARIO [--duration T] [--out DIR] [-- CMD]

Exit status: 0 ok, 2 invalid scenario or options, or a run refused as far beyond the machine
(one ``tcplab: error: <path>: <message>`` line on stderr), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM), 1 anything unexpected (set
TCPLAB_DEBUG=1 for the traceback). Interrupted or terminated, a sweep keeps every finished run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, TextIO

import tcplab
from tcplab import CoreMissingError, ScenarioError, status
from tcplab.status import StatusLine, progress_enabled

PROG = "tcplab"

_clock = time.monotonic  # wall clock of the progress line (replaceable in tests)


# --------------------------------------------------------------------------------------
# Progress line
# --------------------------------------------------------------------------------------

class Progress:
    """``progress(now, end)`` callback that shows the share of simulated time done, on a
    :class:`~tcplab.status.StatusLine`: nothing for runs shorter than ``delay`` seconds of wall
    time, then at most every ``interval`` seconds.
    """

    def __init__(
        self,
        label: str,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        clock: Callable[[], float] | None = None,
        delay: float = 2.0,
        interval: float = 0.5,
    ):
        self.label = label
        self.line = StatusLine(stream, clock or _clock, interval)
        self.enabled = progress_enabled(self.line.stream) if enabled is None else enabled
        self.delay = delay
        self.started = self.line.clock()

    def __call__(self, now: float, end: float) -> None:
        if not self.enabled or self.line.clock() - self.started <= self.delay:
            return
        pct = 100.0 * now / end if end > 0 else 100.0
        self.line.show(f"{PROG}: {self.label}: {pct:3.0f}% ({now:.2f} s of {end:g} s simulated)")

    def close(self) -> None:
        self.line.close()


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------

def _num(fmt: str, scale: float = 1.0) -> Callable:
    def f(v):
        return "-" if v is None else format(v * scale, fmt)
    return f


def _plain(v) -> str:
    return "-" if v is None else status.shown(str(v), keep="")  # names: one line, no controls


# (header, summary key or None for the scenario column, formatter, right-aligned)
_TABLE = [
    ("scenario", None, _plain, False),
    ("flow", "name", _plain, False),
    ("protocol", "protocol", _plain, False),
    ("profile", "profile", _plain, False),
    ("goodput kb/s", "goodput_bps", _num(".1f", 1e-3), True),
    ("mean delay ms", "delay_mean_s", _num(".2f", 1e3), True),
    ("p95 delay ms", "delay_p95_s", _num(".2f", 1e3), True),
    ("sent", "packets_sent", _plain, True),
    ("delivered", "packets_delivered", _plain, True),
    ("dropped", "packets_dropped", _plain, True),
    ("retrans", "packets_retransmitted", _plain, True),
    ("efficiency", "efficiency", _num(".3f"), True),
    ("jain", "jain", _num(".3f"), True),  # Jain's index over the scenario's flows
]


def format_flow_table(summaries: list[dict]) -> str:
    """One aligned row per flow of each run summary, under one header line."""
    rows = [[h for h, _, _, _ in _TABLE]]
    for summary in summaries:
        for flow in summary.get("flows", []):
            rows.append([
                fmt(summary.get("jain_fairness")) if key == "jain" else
                _plain(summary.get("name", "")) if key is None else fmt(flow.get(key))
                for _, key, fmt, _ in _TABLE
            ])
    widths = [max(len(r[i]) for r in rows) for i in range(len(_TABLE))]
    lines = []
    for r in rows:
        cells = [
            c.rjust(w) if right else c.ljust(w)
            for c, w, (_, _, _, right) in zip(r, widths, _TABLE)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _error(e: ScenarioError, several: bool, args: argparse.Namespace | None = None) -> None:
    # With several scenarios, say which file a field error belongs to.
    msg = str(e)
    if several and e.source and e.path != e.source and not e.path.startswith("--"):
        msg = f"{e.source}: {msg}"
    if e.path == "--out" and args is not None and getattr(args, "out", "") is None:
        # the command chose the folder: say so, as the user never typed --out
        msg += " (the default output; choose another with --out)"
    print(f"{PROG}: error: {_one_line(msg)}", file=sys.stderr)


def _one_line(s: str) -> str:
    return " ".join(status.shown(s).split())  # a name's CR shown as \r, not taken for a space


# --------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------

def cmd_validate(args) -> int:
    several = len(args.scenario) > 1
    status = 0
    for src in args.scenario:
        try:
            info = tcplab.validate(src)
        except ScenarioError as e:
            _error(e, several)
            status = 2
            continue
        print(f"ok: {info['name']} ({len(info['nodes'])} nodes, {len(info['links'])} links, "
              f"{len(info['flows'])} flows)")
    return status


def _bytes(b: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.1f} {unit}"
    return f"{b:.0f} B"


def _parts(parts: list[dict]) -> str:
    total = sum(p["bytes"] for p in parts)
    listed = ", ".join(f"{p['what']} {_bytes(p['bytes'])}" for p in parts if p["bytes"] > 0)
    return f"{_bytes(total)} ({listed})" if listed else "none"


def cmd_estimate(args) -> int:
    several = len(args.scenario) > 1
    status = 0
    reports = []
    for src in args.scenario:
        try:
            info = tcplab.validate(src)
            out = args.out or os.path.join("results", tcplab.folder_name(info["name"]))
            report = tcplab.estimate(src, until=args.until, trace=args.trace, out=out)
        except ScenarioError as e:
            _error(e, several, args)
            status = 2
            continue
        reports.append({"scenario": src, "name": info["name"], **report})
        if args.json:
            continue
        e, m = report["estimate"], report["machine"]
        have = lambda v: "unknown" if v is None else _bytes(v)  # noqa: E731
        print(f"{info['name']}: {e['duration_s']:g} s simulated")
        print(f"  about {e['data_packets']:.2g} data packets and {e['acks']:.2g} ACKs, "
              f"{e['link_hops']:.2g} link hops, {e['radio_hops']:.2g} radio hops, {e['events']:.2g} events")
        print(f"  memory: {_parts(e['memory'])}; this machine has {have(m['memory'])} available")
        print(f"  disk:   {_parts(e['disk'])}; {have(m['disk'])} free at {out}")
        refused = report["refused"]
        print(f"  refused: {refused[0]}: {refused[1]}" if refused else "  within this machine's limits")
    if args.json:
        print(json.dumps(reports, indent=2))
    return status


def _warn_starved(jobs: list, summaries: list[dict]) -> None:
    """Flows that delivered nothing or got less than 1% of their max-min fair share, said on
    stderr: a flow locked out is a finding to notice, not a number to miss in a table."""
    from tcplab import report

    sys.stdout.flush()  # after the table: a full disk is the one error to report, not this
    for (src, name, _), summary in zip(jobs, summaries):
        shares = report.fair_shares(tcplab.validate(src), summary["duration_s"])
        for text in report.starved(summary["flows"], shares):
            print(status.shown(f"{PROG}: warning: {name}: {text}", keep=""), file=sys.stderr)


def cmd_run(args) -> int:
    several = len(args.scenario) > 1
    max_events = _count_option(args.max_events, "--max-events", "events", 2**64 - 1)
    # Check every scenario before running any, so a typo in the last file is reported
    # before a long run of the first one.
    plan = []
    failed = False
    for src in args.scenario:
        try:
            plan.append((src, tcplab.validate(src)["name"]))
        except ScenarioError as e:
            _error(e, several)
            failed = True
    if failed:
        return 2

    seen: dict[str, str] = {}
    jobs = []
    for src, name in plan:
        d = tcplab.folder_name(name)
        if d in seen:
            print(f"{PROG}: error: {src}: scenario name {name!r} is also used by {seen[d]} "
                  "(their results would overwrite each other)", file=sys.stderr)
            return 2
        seen[d] = src
        if args.out is None:
            out = os.path.join("results", d)
        elif several:
            out = os.path.join(args.out, d)
        else:
            out = args.out
        jobs.append((src, name, out))
    # and refuse any run far beyond this machine before starting the first
    if not args.no_limits:
        for src, name, out in jobs:
            refused = tcplab.estimate(src, until=args.until, trace=args.trace, out=out)["refused"]
            if refused:
                _error(ScenarioError(refused[0], refused[1], src), several, args)
                return 2

    summaries = []
    for src, name, out in jobs:
        progress = Progress(name)
        try:
            res = tcplab.run(src, seed=args.seed, until=args.until, out=out, trace=args.trace,
                             progress=progress, series_format=args.series, check=args.check or None,
                             limits=not args.no_limits, max_events=max_events)
        except ScenarioError as e:
            _error(e, several, args)
            return 2
        finally:
            progress.close()
        summaries.append(res.summary)
    print(format_flow_table(summaries))
    # Several scenarios write to sibling directories: name their parent.
    print(f"results: {os.path.dirname(jobs[0][2]) if several else jobs[0][2]}")
    _warn_starved(jobs, summaries)
    return 0


def cmd_emulate(args) -> int:
    import shlex

    command = list(args.cmd)
    try:
        tcplab.validate(args.scenario)
        out = tcplab.emulate(args.scenario, duration=args.duration, command=shlex.join(command) if command else None,
                             out=args.out, trace=args.trace, seed=args.seed, realtime=args.realtime)
    except ScenarioError as e:
        _error(e, False, args)
        return 2
    except OSError as e:  # cannot run here: not root, a tool missing, the plumbing failed
        print(f"{PROG}: error: {_one_line(str(e))}", file=sys.stderr)
        return 2
    emu = out["emulation"]
    late = emu["lateness"]
    for h in emu["hosts"]:
        v6 = (f", {h['packets6_in']} IPv6" if h.get("packets6_in") else "")
        nd = (f", {h['neighbor_advertisements']} neighbour advertisements" if h.get("neighbor_advertisements") else "")
        print(f"host {h['name']} ({h['namespace']}): {h['frames_in']} frames in ({h['packets_in']} IPv4{v6} into the "
              f"network, {h['ignored']} ignored, {h['unroutable']} unroutable), {h['frames_out']} out "
              f"({h['arp_replies']} ARP replies{nd})")
    print(f"emulated {emu['sim_s']:.3f} s in {emu['wall_s']:.3f} s of wall time; real packets dropped in the "
          f"network: {emu['real_dropped']}")
    print(f"lateness: {late['events']} events, p99 {late['p99_ms']:.3f} ms, max {late['max_ms']:.3f} ms, "
          f"{late['late_over_1ms']} late by more than 1 ms: "
          + ("faithful" if emu["faithful"] else "NOT FAITHFUL (the network fell behind the wall clock)")
          + ("" if emu["realtime"] or not args.realtime else " (real-time priority refused: ran at normal priority)"))
    if out["result"]["summary"]["flows"]:
        print(format_flow_table([out["result"]["summary"]]))
    if args.out:
        with open(os.path.join(args.out, "emulation.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
        # summary.json and the series (with output.interval or --trace cwnd), as tcplab run
        tcplab.Result(out["result"]).save(args.out)
        print(f"results: {args.out}")
    if emu["ended_by"].startswith("signal"):
        return 128 + int(emu["ended_by"].split()[1])
    if emu["ended_by"] == "command":
        return emu["command_exit"] if emu["command_exit"] >= 0 else 1
    return 0 if emu["faithful"] else 3


def cmd_conformance(args) -> int:
    import json

    from tcplab import conformance

    if args.simulator == "linux":
        return _conformance_linux(args)

    def progress(suite):
        print(f"{PROG}: running {suite} ...", file=sys.stderr, flush=True)

    try:
        reports = conformance.run(args.suite or None, progress=progress)
    except conformance.ConformanceError as e:
        print(f"{PROG}: error: {_one_line(str(e))}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"suites": {k: r.as_json() for k, r in reports.items()}}, indent=2))
    else:
        print(conformance.format_table(reports))
    return 1 if any(r.different for r in reports.values()) else 0


def _conformance_linux(args) -> int:
    import json

    from tcplab import conformance_linux as linux
    from tcplab.conformance import ConformanceError

    if os.geteuid() != 0 and not args.reuse:
        print(f"{PROG}: error: conformance linux runs the kernel's TCP through tcplab emulate, which needs root",
              file=sys.stderr)
        return 2
    runs = _count_option(args.runs, "--runs", "runs", 100) or 1
    if args.reuse and not args.out:
        print(f"{PROG}: error: --reuse reads the real runs kept under --out DIR: give --out", file=sys.stderr)
        return 2
    try:
        cases, _ = linux.load_cases()
        chosen = linux.select(cases, args.case or None, args.ci)
        print(f"{PROG}: {sum(len(c.cc) for c in chosen) * runs} real runs, about "
              f"{linux.real_cost_s(chosen, runs) / 60:.1f} minutes of wall time"
              + (" (fewer with --reuse)" if args.reuse else ""), file=sys.stderr, flush=True)

        def progress(case, cc, run, runs):
            of = f" (run {run} of {runs})" if runs > 1 else ""
            print(f"{PROG}: running {case.id} with {cc}{of} ...", file=sys.stderr, flush=True)

        report = linux.run(args.case or None, args.ci, out=args.out, reuse=args.reuse, runs=runs,
                           progress=progress)
    except ConformanceError as e:
        print(f"{PROG}: error: {_one_line(str(e))}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.markdown:
        print(linux.format_markdown(report))
        print(f"\n{linux.summary_line(report)}")
    else:
        print(linux.format_table(report))
        print(linux.summary_line(report))
    failed = any(row[side]["vs_linux"]["verdict"] == "fail" for row in report["rows"] for side in ("tcplab", "ns3"))
    return 1 if failed else 0


class _File(str):
    """A SCENARIO argument: a file, always (the API also takes a string of TOML), and shown
    as it was given."""

    def __fspath__(self) -> str:
        return str(self)


def _scenario_file(text: str) -> _File:
    if not text:
        raise argparse.ArgumentTypeError("an empty argument names no file")
    return _File(text)


def _out_path(text: str) -> str:
    """--out: an empty one would fall back to the default unsaid (or name no folder)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty argument names no output")
    return text


def _count_option(text: str | None, option: str, what: str, most: int = 1_000_000) -> int | None:
    """A count given on the command line (1 to `most`); None when absent."""
    if text is None:
        return None
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= most:
        raise ScenarioError(option, f"{text!r} is not a number of {what} (1 to {most})")
    return n


def cmd_sweep(args) -> int:
    from tcplab import sweep as sw

    # the options before the sweep's cases are checked, and before the runs
    workers = _count_option(args.workers, "--workers", "processes")
    if workers is not None:
        sw.check_workers(workers)
    run_timeout = sw.wall_seconds(args.run_timeout, "--run-timeout") if args.run_timeout is not None else None
    max_events = _count_option(args.max_events, "--max-events", "events", 2**64 - 1)
    sw.check_metric(args.metric)
    try:
        spec = sw.load(args.sweep, progress=progress_enabled())
    except ScenarioError as e:
        _error(ScenarioError(e.path, e.message, args.sweep), True)
        return 2
    out = Path(args.out) if args.out else Path("results") / tcplab.folder_name(spec.name, "sweep")
    result = sw.run(spec, out, workers=workers, scheduler=args.scheduler, retry_failed=args.retry_failed,
                    progress=progress_enabled(), limits=not args.no_limits, run_timeout=run_timeout,
                    max_events=max_events, on_failure="keep")  # failed runs are listed below
    flows = result.flows
    flows.to_csv(out / "results.csv", index=False)
    table = result.aggregate(args.metric)
    if not table.empty:
        print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    for r in result.failed:
        print(f"{PROG}: run failed: {r['case']} seed {r['seed']}: {_one_line(r['error'])}", file=sys.stderr)
    print(f"results: {out} ({len(result.rows)} runs, {len(result.failed)} failed)")
    return 1 if result.failed else 0


def cmd_reproduce(args) -> int:
    from tcplab import studies
    from tcplab.sweep import wall_seconds

    if args.list:
        for name, title in studies.list_studies().items():
            print(f"{name:24}  {title}")
        return 0
    if not args.study:
        _error(ScenarioError("STUDY", "is required (tcplab reproduce --list shows them)"), False)
        return 2
    seeds = _count_option(args.seeds, "--seeds", "seeds")
    run_timeout = wall_seconds(args.run_timeout, "--run-timeout") if args.run_timeout is not None else None
    max_events = _count_option(args.max_events, "--max-events", "events", 2**64 - 1)

    def log(msg: str) -> None:
        print(f"{PROG}: {args.study}: {msg}", file=sys.stderr, flush=True)

    out = studies.reproduce(args.study, quick=args.quick, seeds=seeds, out=args.out, scheduler=args.scheduler,
                            progress=progress_enabled(), log=log, run_timeout=run_timeout, max_events=max_events)
    print(f"report: {out / 'report.md'} (and report.html)")
    return 0


def cmd_calibrate(args) -> int:
    from tcplab import calibrate, fingerprint, studies

    if not args.study:
        _error(ScenarioError("STUDY", "is required (tcplab reproduce --list shows them)"), False)
        return 2
    if args.fingerprint:
        study_dir, _, _ = studies.study_sweep(args.study)
        fp = fingerprint.fingerprint(study_dir)
        if args.json:
            print(json.dumps(fp.to_json(), indent=2))
        else:
            print(fingerprint.render(fp), end="")
        return 0
    budget = _count_option(args.budget, "--budget", "runs") or 2000
    seeds = _count_option(args.seeds, "--seeds", "seeds") or 1
    result = calibrate.calibrate(args.study, budget=budget, seeds=seeds, out=args.out, workers=None,
                                 scheduler=args.scheduler, save=not args.no_save, progress=progress_enabled())
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.study}: best reading {result['score']:.3%} mean relative error over the paper's columns "
          f"(literal {result['literal_score']:.3%}), {result['exact']} of {result['cells']} cells exact; "
          f"{result['runs']} runs of {result['budget']}")
    width = max(len(k) for k in result["values"])
    for name, label in result["labels"].items():
        print(f"  {name:{width}}  {label}")
    print("error per paper column (literal -> best):")
    for col, (lit, best) in result["errors"].items():
        print(f"  {col:{width}}  {lit:8.3%} -> {best:.3%}")
    for hint in result["hints"]:
        print(f"hint: {hint}")
    if result["failed"]:
        print(f"{len(result['failed'])} runs failed (their cells count as 100% off), the first: {result['failed'][0]}")
    where = result.get("saved")
    print(f"log: {Path(args.out or Path('results') / (args.study + '-calibrate')) / 'calibration.md'}"
          + (f"; saved to {where} (tcplab reproduce {args.study} shows both readings)" if where else ""))
    return 0


def cmd_plot(args) -> int:
    from tcplab import plot

    written, skipped = plot.plot(args.result_dir, args.out)
    for p in written:
        print(p)
    for name, why in skipped.items():
        print(f"{PROG}: plot: no {name} figure: {why}", file=sys.stderr)
    return 0


def cmd_report(args) -> int:
    from tcplab import report

    print(report.report(args.result_dir, args.out))
    return 0


def cmd_ns2_export(args) -> int:
    """The scenario as ns-2.35 Tcl (tcplab.ns2, the translator the conformance checks use)."""
    from tcplab import ns2

    try:
        normalized = tcplab.validate(args.scenario)
    except ScenarioError as e:
        _error(e, False)
        return 2
    try:
        tcl = ns2.scenario_to_tcl(normalized, args.trace, args.cwnd, args.nam)
    except ValueError as e:  # what ns-2 cannot express: wireless, the rfc profile, pacing, ...
        print(f"{PROG}: error: {args.scenario}: cannot export to ns-2: {_one_line(str(e))}", file=sys.stderr)
        return 2
    if args.out is None:
        sys.stdout.write(tcl)
        return 0
    try:
        Path(args.out).write_text(tcl)
    except OSError as e:
        print(f"{PROG}: error: --out: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(args.out)
    return 0


def cmd_ns2_import_scene(args) -> int:
    """setdest's movement and cbrgen's connection files as scenario TOML (tcplab.ns2scene)."""
    from tcplab import ns2scene

    try:
        movements = None
        if args.movements:
            movements = ns2scene.read_movements(Path(args.movements).read_text(), args.movements)
        flows = ns2scene.read_connections(Path(args.connections).read_text(), args.connections) if args.connections else []
        text = ns2scene.to_toml(ns2scene.scene_fields(movements, flows, args.nodes))
    except (OSError, ValueError) as e:
        print(f"{PROG}: error: {_one_line(str(e))}", file=sys.stderr)
        return 2
    if args.out is None:
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text)
        print(args.out)
    return 0


def cmd_bench(args) -> int:
    from tcplab import bench

    reps = _count_option(args.reps, "--reps", "runs") or 3
    against = [s for s in args.against.split(",") if s] if args.against else []
    only = [s for s in args.only.split(",") if s] if args.only else None

    def log(msg: str) -> None:
        print(f"{PROG}: bench: {msg}", file=sys.stderr, flush=True)

    results = bench.run(only=only, against=against, reps=reps, trace=not args.no_trace, log=log)
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        m = results["machine"]
        at = f" at {results['commit']}" if results["commit"] else ""
        print(f"tcplab {results['tcplab']}{at} ({results['build']} build), {results['date']}, {m['cpu']} "
              f"({m['cores']} cores), medians of {results['reps']} runs\n")
        print(bench.table(results))
    disagree = [r for r in results["rows"] if not r["agrees"]]
    for r in disagree:
        why = (f"failed: {_one_line(r['error'])[:300]}" if r["error"] else
               f"delivered {r['delivered']} packets, not within {bench.TOLERANCE:.0%} of tcplab's: no ratio reported")
        print(f"{PROG}: bench: {r['id']}: {r['sim']} {why}", file=sys.stderr)
    differ = [w for w in results["sweeps"] if not w["same_results"]]
    for w in differ:
        print(f"{PROG}: bench: {w['id']}: the parallel sweep's results differ from the serial one's", file=sys.stderr)
    return 1 if disagree or differ else 0


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Packet-level TCP congestion-control simulator (ns-2 compatible).",
        epilog="Scenario format: docs/scenarios.md. Exit status: 0 ok, 2 invalid scenario "
               "or option, 130 interrupted, 143 terminated, 1 internal error (TCPLAB_DEBUG=1 shows the traceback).",
    )
    p.add_argument("--version", action="version", version=f"{PROG} {tcplab.__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    r = sub.add_parser(
        "run",
        help="run scenarios and write their results",
        description="Run each SCENARIO (a .toml or .json file), write summary.json and the "
                    "requested traces, and print one row per flow.",
    )
    r.add_argument("scenario", nargs="+", metavar="SCENARIO", type=_scenario_file, help="scenario file (.toml or .json)")
    r.add_argument("--out", type=_out_path, metavar="DIR",
                   help="output directory (default results/<scenario name>; with several "
                        "scenarios each writes to DIR/<scenario name>)")
    r.add_argument("--seed", metavar="N", help="master seed, overrides the scenario's seed")
    r.add_argument("--trace", action="append", default=[], metavar="{ns2,cwnd,pcap,nam,rtt}",
                   help="also write this trace (ns2: trace.tr, cwnd: cwnd.tr, pcap: pcap/A-B.pcap "
                        "per link, nam: trace.nam for NAM, rtt: the rtt series, every RTT sample); "
                        "repeatable")
    r.add_argument("--until", metavar="T",
                   help="stop at simulated time T instead of the scenario's duration (e.g. 5s, 250ms)")
    r.add_argument("--check", action="store_true",
                   help="check the run's invariants as it goes (packets conserved, queues within "
                        "their limits, time forward, cwnd in bounds, data delivered in order); "
                        "a broken one is an internal error, exit status 1")
    r.add_argument("--series", choices=tcplab.SERIES_FORMATS, default="parquet",
                   help="file format of the series (series-NAME.parquet or .csv; default parquet)")
    r.add_argument("--no-limits", action="store_true",
                   help="run even a scenario estimated far beyond this machine (see tcplab estimate), and past "
                        "the guards that stop a run caught in a loop")
    r.add_argument("--max-events", metavar="N",
                   help="stop a run that needs more than N events (exit status 2): the same verdict on every machine")
    r.set_defaults(func=cmd_run)

    em = sub.add_parser(
        "emulate",
        help="run a scenario in real time with real Linux hosts (root)",
        usage=f"{PROG} emulate [-h] [--duration T] [--out DIR] [--trace NAME] [--seed N] [--no-realtime] SCENARIO "
              "[-- CMD ...]",
        description="Run SCENARIO as an emulation: each [[hosts]] entry becomes a network namespace "
                    "tl-NAME joined to its node by a veth pair, and the scenario's network carries the "
                    "hosts' packets in real time, beside its simulated flows. It runs until --duration "
                    "(default the scenario's), until CMD exits (CMD runs in the root namespace once the hosts "
                    "are up; $TCPLAB_NS_<HOST> names each namespace, for `ip netns exec`), or Ctrl-C. "
                    "Needs root. Exit status: CMD's, else 0, or 3 if the run fell behind the wall clock "
                    "(not faithful).",
    )
    em.add_argument("scenario", metavar="SCENARIO", type=_scenario_file, help="scenario file (.toml or .json)")
    em.add_argument("--duration", metavar="T", help="stop after T of wall time (e.g. 30s)")
    em.add_argument("--out", type=_out_path, metavar="DIR",
                    help="write emulation.json, summary.json, the series and the traces here")
    em.add_argument("--trace", action="append", default=[], metavar="{ns2,cwnd,pcap,nam,rtt}",
                    help="as tcplab run --trace (needs --out)")
    em.add_argument("--seed", metavar="N", help="master seed, overrides the scenario's seed")
    em.add_argument("--no-realtime", dest="realtime", action="store_false",
                    help="run the network at normal priority (default: real-time, SCHED_FIFO, ahead of the "
                         "machine's other work; the commands it starts run at normal priority)")
    em.set_defaults(func=cmd_emulate, cmd=[])  # `-- CMD...`: split off by main before parsing

    e = sub.add_parser(
        "estimate",
        help="estimate what running scenarios would cost",
        description="Estimate, without running it, what each SCENARIO would cost: packets, "
                    "events, memory and trace files, beside what this machine has. `tcplab run` "
                    "refuses a run that needs more memory or disk than the machine has, or more "
                    "than 1e12 events, unless --no-limits. TCPLAB_MAX_MEMORY (e.g. 8GB) lowers "
                    "the memory it may take.",
    )
    e.add_argument("scenario", nargs="+", metavar="SCENARIO", type=_scenario_file, help="scenario file (.toml or .json)")
    e.add_argument("--until", metavar="T", help="as tcplab run --until")
    e.add_argument("--trace", action="append", default=[], metavar="{ns2,cwnd,pcap,nam,rtt}",
                   help="as tcplab run --trace")
    e.add_argument("--out", type=_out_path, metavar="DIR", help="where the traces would go (default results/<scenario name>)")
    e.add_argument("--json", action="store_true", help="print the estimates as JSON")
    e.set_defaults(func=cmd_estimate)

    v = sub.add_parser(
        "validate",
        help="check scenarios without running them",
        description="Check each SCENARIO and print a one-line description of it.",
    )
    v.add_argument("scenario", nargs="+", metavar="SCENARIO", type=_scenario_file, help="scenario file (.toml or .json)")
    v.set_defaults(func=cmd_validate)

    pl = sub.add_parser(
        "plot",
        help="draw the standard figures of a run",
        description="Draw the standard figures of the run in RESULT_DIR (a folder written by "
                    "`tcplab run --out`): cwnd and ssthresh, segments sent with retransmissions "
                    "and drops, throughput, queues and the delay distribution, each as PNG and "
                    "SVG, as far as its files allow (traces: --trace cwnd, --trace ns2; series: "
                    "output.interval).",
    )
    pl.add_argument("result_dir", metavar="RESULT_DIR", help="a folder written by tcplab run --out")
    pl.add_argument("--out", type=_out_path, help="where the figures go (default RESULT_DIR/plots)")
    pl.set_defaults(func=cmd_plot)

    rep = sub.add_parser(
        "report",
        help="write a run's report page",
        description="Write RESULT_DIR/report.html: one self-contained page (nothing fetched) "
                    "with the summary tables, interactive charts, and the network with a time "
                    "slider showing each link's utilisation, queue and packets on the wire.",
    )
    rep.add_argument("result_dir", metavar="RESULT_DIR", help="a folder written by tcplab run --out")
    rep.add_argument("--out", type=_out_path, help="the page's path (default RESULT_DIR/report.html)")
    rep.set_defaults(func=cmd_report)

    c = sub.add_parser(
        "conformance",
        help="compare tcplab with ns-2.35 (ns2) or with the Linux kernel and ns-3 (linux)",
        description="ns2: run each ns-2 regression test that has a tcplab scenario under "
                    "conformance/ns2/<suite>/ with both ns-2 (Debian's ns2 and ns2-examples) "
                    "and tcplab, and compare the packet traces line by line. linux (root): run "
                    "the dumbbells of conformance/linux/cases.toml with the kernel's reno, cubic "
                    "and bbr through tcplab emulate, with tcplab's rfc controllers and with "
                    "ns-3.37's, and compare throughput, fairness, queue and cwnd with Linux's "
                    "(docs/linux.md). Exit status 1 when any trace differs or any comparison fails.",
    )
    c.add_argument("simulator", choices=["ns2", "linux"], help="the reference: ns-2.35, or the Linux kernel")
    c.add_argument("--suite", action="append", default=[], metavar="NAME",
                   help="ns2: only this suite (e.g. tcpVariants); repeatable")
    c.add_argument("--case", action="append", default=[], metavar="ID",
                   help="linux: only this case of conformance/linux/cases.toml; repeatable")
    c.add_argument("--ci", action="store_true", help="linux: only the cases tagged for CI (a few minutes)")
    c.add_argument("--out", type=_out_path, metavar="DIR", help="linux: keep every run's files here")
    c.add_argument("--runs", metavar="N",
                   help="linux: real runs per case and controller, pooled before comparing (default 1)")
    c.add_argument("--reuse", action="store_true",
                   help="linux: read the real runs already kept under --out instead of running them again")
    c.add_argument("--json", action="store_true", help="print the report as JSON")
    c.add_argument("--markdown", action="store_true", help="linux: print the report as a Markdown table")
    c.set_defaults(func=cmd_conformance)

    w = sub.add_parser(
        "sweep",
        help="run a sweep of scenarios over fields and seeds",
        description="Run every case of SWEEP (a .toml sweep file: scenarios, a grid of fields, "
                    "seeds) that is not in DIR/results.sqlite yet, storing each run as it "
                    "finishes; print the mean and 95%% confidence interval per case and flow, and "
                    "write DIR/results.csv.",
    )
    w.add_argument("sweep", metavar="SWEEP", help="sweep file (.toml)")
    w.add_argument("--out", type=_out_path, metavar="DIR", help="results folder (default results/<sweep name>)")
    w.add_argument("--workers", metavar="N", help="local processes (default: one per core)")
    w.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS (tcp://host:port)")
    w.add_argument("--retry-failed", action="store_true", help="run again the runs that failed before")
    w.add_argument("--metric", default="goodput_bps", help="the flow metric to summarise (default goodput_bps; any number of a flow's summary, or jain_fairness)")
    w.add_argument("--no-limits", action="store_true",
                   help="run even runs estimated far beyond their machine (see tcplab estimate)")
    w.add_argument("--run-timeout", metavar="T",
                   help="stop a run that takes longer than T of wall time (seconds, or e.g. 90s, 10min, 2h) and "
                        "store it as failed; default: the sweep's run_timeout, or no limit")
    w.add_argument("--max-events", metavar="N",
                   help="stop a run that needs more than N events and store it as failed (the same verdict on "
                        "every machine); default: the sweep's max_events, or no budget of its own")
    w.set_defaults(func=cmd_sweep)

    rp = sub.add_parser(
        "reproduce",
        help="reproduce a paper's study and write its report",
        description="Run the study's sweep (experiments/STUDY/) and write report.md, report.html "
                    "and its figures: the paper's numbers, tcplab's (mean and 95%% confidence "
                    "interval over the seeds) and ns-2.35's for the same scenarios where it runs.",
    )
    rp.add_argument("study", nargs="?", metavar="STUDY", help="the study (see --list)")
    rp.add_argument("--list", action="store_true", help="list the studies")
    rp.add_argument("--quick", action="store_true", help="the reduced form (shorter runs, fewer seeds)")
    rp.add_argument("--seeds", metavar="N", help="this many seeds instead of the study's")
    rp.add_argument("--out", type=_out_path, metavar="DIR", help="report folder (default results/<study>, or results/<study>-quick)")
    rp.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS")
    rp.add_argument("--run-timeout", metavar="T", help="as tcplab sweep --run-timeout")
    rp.add_argument("--max-events", metavar="N", help="as tcplab sweep --max-events")
    rp.set_defaults(func=cmd_reproduce)

    cal = sub.add_parser(
        "calibrate",
        help="find the reading of a paper's unstated setup and measures that reproduces its tables",
        description="Search the unknowns a study declares (study.toml [[unknowns]]: setup values that "
                    "need runs, measurement definitions that need none) for the reading closest to the "
                    "paper's tables, store every run (a search resumes), write the best reading to the "
                    "study's reading.toml and a log to OUT/calibration.md. --fingerprint only reads the "
                    "paper's numbers and says what they reveal, without a run.",
    )
    cal.add_argument("study", nargs="?", metavar="STUDY", help="the study (tcplab reproduce --list)")
    cal.add_argument("--fingerprint", action="store_true", help="what the paper's numbers reveal, before any run")
    cal.add_argument("--budget", metavar="RUNS", help="runs the search may make (default 2000)")
    cal.add_argument("--seeds", metavar="N", help="seeds per setup reading (default 1)")
    cal.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS")
    cal.add_argument("--out", type=_out_path, metavar="DIR", help="the search's store and log (default results/<study>-calibrate)")
    cal.add_argument("--json", action="store_true", help="print the result as JSON")
    cal.add_argument("--no-save", action="store_true", help="do not write the study's reading.toml")
    cal.set_defaults(func=cmd_calibrate)

    n2 = sub.add_parser(
        "ns2",
        help="ns-2 tools: export a scenario as ns-2 Tcl, import setdest/cbrgen files",
        description="Tools for ns-2 users. `tcplab ns2 export SCENARIO` prints the ns-2.35 Tcl "
                    "that builds the same network, flows and actions; `tcplab ns2 import-scene` "
                    "turns setdest's movement and cbrgen's connection files into scenario TOML "
                    "(docs/ns2-users.md).",
    )
    n2sub = n2.add_subparsers(dest="ns2_command", metavar="COMMAND", required=True)
    x = n2sub.add_parser(
        "export",
        help="print the equivalent ns-2 Tcl of a scenario",
        description="Print (or write to FILE) the ns-2.35 Tcl script of SCENARIO, the same "
                    "translation `tcplab conformance ns2` runs. Run it with `ns FILE`: its packet "
                    "trace matches `tcplab run --trace ns2` line for line. Wired scenarios with "
                    "the ns2 profile only: wireless, the rfc profile, pacing, Gilbert losses "
                    "and rng = \"streams\" have no ns-2 form (exit status 2, naming the field).",
    )
    x.add_argument("scenario", metavar="SCENARIO", type=_scenario_file, help="scenario file (.toml or .json)")
    x.add_argument("--out", type=_out_path, metavar="FILE", help="write the Tcl to FILE instead of stdout")
    x.add_argument("--trace", type=_out_path, default="trace.tr", metavar="PATH",
                   help="where the script writes its packet trace (trace-all; default trace.tr, "
                        "relative to where ns runs)")
    x.add_argument("--cwnd", type=_out_path, metavar="PATH",
                   help="also trace the TCP senders' cwnd_ to PATH")
    x.add_argument("--nam", type=_out_path, metavar="PATH", help="also write a NAM trace to PATH (namtrace-all)")
    x.set_defaults(func=cmd_ns2_export)
    im = n2sub.add_parser(
        "import-scene",
        help="turn ns-2 movement (setdest) and connection (cbrgen) files into scenario TOML",
        description="Read an ns-2 movement file (setdest's `$node_(i) set X_/Y_/Z_`, `$ns_ at t "
                    "\"$node_(i) setdest x y speed\"`, `$god_ set-dist`: God's hop counts, which the "
                    "wireless trace prints) and a "
                    "connection file (cbrgen's UDP/CBR and TCP/FTP blocks) and print the scenario's "
                    "nodes n0..nN-1, set_dist, [positions], [[moves]] and [[flows]] as TOML, for a scenario "
                    "that adds its WLAN, duration and output (docs/ns2-users.md). A line outside "
                    "what those tools write is an error naming the file and line.",
    )
    im.add_argument("--movements", metavar="FILE", help="setdest's movement file")
    im.add_argument("--connections", metavar="FILE", help="cbrgen's connection file")
    im.add_argument("--nodes", type=int, metavar="N", help="the number of nodes (default: one past the highest named)")
    im.add_argument("--out", type=_out_path, metavar="FILE", help="write the TOML to FILE instead of stdout")
    im.set_defaults(func=cmd_ns2_import_scene)

    b = sub.add_parser(
        "bench",
        help="time tcplab against ns-2 and ns-3 on the benchmarks of bench/",
        description="Run the benchmarks of bench/benchmarks.toml with tcplab and, on the same "
                    "scenarios, ns-2.35 and ns-3.37 (when installed: bench/install.sh), each as its "
                    "own process, in turns; print the median "
                    "wall time and peak memory, the ratios, and tcplab's events and packets per "
                    "second. A simulator whose delivered packets differ from tcplab's by more "
                    "than 5%% (or that fails) gets no ratio, and the exit status is 1.",
    )
    b.add_argument("--only", metavar="IDS", help="these benchmarks, comma-separated (S3 includes S3-60s and S3-300)")
    b.add_argument("--against", default="ns2,ns3", metavar="SIMS", help="the simulators to compare with (default ns2,ns3; '' for none)")
    b.add_argument("--reps", metavar="N", help="runs of each simulator (default 3)")
    b.add_argument("--no-trace", action="store_true", help="skip the runs that write the ns-2 trace")
    b.add_argument("--json", action="store_true", help="print the results as JSON")
    b.set_defaults(func=cmd_bench)
    return p


class StdoutClosed(Exception):
    """Whoever read stdout went away (`tcplab run ... | head`): no message. Or stdout cannot be
    written (`tcplab run ... > /dev/full`): the message says why."""


def _to_devnull(stream: TextIO) -> None:
    """Points `stream`'s file descriptor at /dev/null: what it still buffers and all it is given
    later go nowhere, and Python's flush at exit no longer fails."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):  # a stream without a file descriptor (in-process callers)
        pass
    finally:
        os.close(devnull)


class _Guard:
    """sys.stdout or sys.stderr while a command runs, for a reader that goes away. A broken
    pipe on stdout (`tcplab run ... | head`) raises StdoutClosed, which ends the command
    quietly; any other failure to write it (a full disk) ends it with a message. Stderr carries
    only diagnostics: once it cannot be written they go to /dev/null, and the work and its exit
    status go on (`tcplab sweep ... 2>&1 >sweep.txt | head`). A broken pipe anywhere else (a
    sweep's worker, say) stays an error."""

    # A status line shown on this stream (tcplab.status.StatusLine), erased before any other
    # text is written, which then starts at the line's start rather than after its text
    # (the in-process Dask client's log lines, warnings).
    status_line: StatusLine | None = None

    def __init__(self, stream: TextIO, *, is_stdout: bool):
        self.stream = stream
        self.is_stdout = is_stdout

    def write(self, text: str, raw: bool = False) -> int:
        """Writes `text` as status.shown makes it: the names it holds are the user's, and
        their control characters must not reach a terminal. `raw` is for a status line's own."""
        with status.lock:  # against a line drawn meanwhile by another thread
            line = self.status_line
            if line is not None and text:
                line.close()  # it lets go of this stream first
            try:
                return self.stream.write(text if raw else status.shown(text))
            except OSError as e:
                self._broken(e)
                return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as e:
            self._broken(e)

    def _broken(self, e: OSError) -> None:
        if self.is_stdout:
            raise StdoutClosed("" if isinstance(e, BrokenPipeError) else f"cannot write to stdout: {e.strerror or e}") from e
        _to_devnull(self.stream)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


class Terminated(KeyboardInterrupt):
    """SIGTERM: stop as Ctrl-C does (what is finished stays), with the status of a SIGTERM."""


def _terminate(signum, frame):
    raise Terminated()


def _split_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """`tcplab emulate SCENARIO [options] -- CMD...`: the arguments before `--`, and CMD."""
    if "--" not in argv:
        return argv, None
    i = argv.index("--")
    return argv[:i], argv[i + 1:]


def main(argv: list[str] | None = None) -> int:
    stdout, stderr = sys.stdout, sys.stderr  # None when started with the stream closed (`>&-`)
    # started with stderr closed, print(file=None) would put diagnostics on stdout
    nowhere = open(os.devnull, "w") if stderr is None else None
    guard = sys.stdout = _Guard(stdout, is_stdout=True) if stdout is not None else None
    err_guard = sys.stderr = _Guard(stderr if stderr is not None else nowhere, is_stdout=False)
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if on_main_thread else None
    args = None
    try:
        argv, command = _split_command(sys.argv[1:] if argv is None else list(argv))
        args = build_parser().parse_args(argv)  # its usage errors go through the guards too
        if command is not None:
            if args.command != "emulate":
                build_parser().error("only `tcplab emulate` takes a command after --")
            args.cmd = command
        status = args.func(args)
        if guard is not None:
            guard.flush()  # a closed stdout shows here rather than at exit
        return status
    except ScenarioError as e:  # e.g. a bad --seed raised outside the per-scenario handling
        _error(e, False, args)
        return 2
    except Terminated:
        print(f"{PROG}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except CoreMissingError as e:
        print(f"{PROG}: error: {_one_line(str(e))}", file=sys.stderr)
        return 1
    except tcplab.InternalError as e:
        print(f"{PROG}: internal error: {_one_line(str(e))}", file=sys.stderr)
        return 1
    except StdoutClosed as e:
        if str(e):
            print(f"{PROG}: error: {e}", file=sys.stderr)
        _to_devnull(stdout)  # stop, and keep Python from complaining again at exit
        return 1
    except BaseException as e:  # noqa: BLE001 - PyO3's PanicException is a BaseException
        if isinstance(e, (SystemExit, GeneratorExit)):
            raise
        if os.environ.get("TCPLAB_DEBUG") == "1":
            traceback.print_exc()
        detail = _one_line(str(e))[:300]
        print(f"{PROG}: internal error: {type(e).__name__}: {detail} -- please report this "
              "as a bug (set TCPLAB_DEBUG=1 to see the traceback)", file=sys.stderr)
        return 1
    finally:
        if sys.stdout is guard:  # not if another thread's command replaced it since
            sys.stdout = stdout
        if sys.stderr is err_guard:
            sys.stderr = stderr
        if nowhere is not None:
            nowhere.close()
        if on_main_thread:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
