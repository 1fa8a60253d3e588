"""Benchmarks: tcplab side by side with ns-2.35 and ns-3.37 on the same scenarios.

The named benchmarks are in `bench/benchmarks.toml` (see bench/README.md). Each simulator runs
as its own process (tcplab's native `tcplab-sim`, `ns script.tcl`, the ns-3 program), in
turns, several times; the report gives the median wall time and peak memory of each, the
ratios against tcplab measured in the same run, and tcplab's events and packets per second.
Before a time is reported, the simulators must agree on the data packets delivered in order
(within `TOLERANCE`): a faster simulator that simulated something else proves nothing.

ns-2 runs tcplab's own translation of the scenario (`tcplab.ns2`); ns-3 runs
`bench/ns3/dumbbell.cc`, built once with g++ against Debian's libns3-dev (bench/install.sh).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Callable

import tcplab
from tcplab import ScenarioError, ns2
from tcplab import sweep as sw

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

BENCH = Path(__file__).resolve().parents[2] / "bench"
NS3_SOURCE = BENCH / "ns3" / "dumbbell.cc"
NS3_LIBS = ["-lns3-core", "-lns3-network", "-lns3-internet", "-lns3-point-to-point", "-lns3-applications",
            "-lns3-traffic-control"]
SIMULATORS = ("tcplab", "ns2", "ns3")
TOLERANCE = 0.05  # how far the delivered packets may differ from tcplab's


@dataclass
class Benchmark:
    id: str
    title: str
    scenario: dict  # the scenario document, with `set` applied
    trace: bool = False  # also measure with the ns-2 trace written
    ns3: dict | None = None  # the arguments of bench/ns3/dumbbell.cc
    scaling: dict | None = None  # {"of": id, "at_most": ratio}: cost against another benchmark


def load(path: Path = BENCH / "benchmarks.toml") -> list[Benchmark]:
    doc = tomllib.loads(path.read_text())
    out = []
    for i, b in enumerate(doc.get("bench", [])):
        at = f"bench[{i}]"
        file = path.parent / b.get("scenario", "")
        if not file.is_file():
            raise ScenarioError(f"{at}.scenario", f"{b.get('scenario')!r} is not a scenario file")
        scenario = sw.read_scenario(file)
        for k, v in b.get("set", {}).items():
            sw.set_field(scenario, k, v)
        out.append(Benchmark(b["id"], b.get("title", ""), scenario, b.get("trace", False), b.get("ns3"), b.get("scaling")))
    return out


def load_sweeps(path: Path = BENCH / "benchmarks.toml") -> list[dict]:
    """The `[[sweep]]` benchmarks: a sweep timed on every core against one."""
    return tomllib.loads(path.read_text()).get("sweep", [])


def time_sweep(spec: dict, workers: int, log: Callable[[str], None] = lambda s: None) -> dict:
    """Runs the sweep `spec` into a fresh store with one worker and with `workers`; returns the
    wall times, their ratio and whether the two gave the same results."""
    sweep = sw.build({"name": spec["id"], "scenarios": [spec["scenario"]], "grid": spec["grid"], "seeds": spec["seeds"]}, BENCH)
    walls, results = {}, {}
    for n in (1, workers):
        with tempfile.TemporaryDirectory(prefix="tcplab-bench-sweep-") as out:
            start = time.perf_counter()
            res = sw.run(sweep, out, workers=n, progress=False)
            walls[n] = time.perf_counter() - start
            results[n] = {(r["case"], r["seed"]): r["summary"] for r in res.rows}
        log(f"{spec['id']}: {len(sweep.runs)} runs on {n} process{'es' if n > 1 else ''}: {walls[n]:.1f} s")
    ratio = walls[workers] / walls[1]
    return {"id": spec["id"], "runs": len(sweep.runs), "workers": workers, "serial_s": walls[1], "parallel_s": walls[workers],
            "ratio": ratio, "at_most": spec["at_most"], "holds": ratio <= spec["at_most"], "same_results": results[1] == results[workers]}


def select(benchmarks: list[Benchmark], only: list[str] | None) -> list[Benchmark]:
    """`only`: ids, each also naming its variants (S1 is S1-vegas and S1-reno; S3 is S3,
    S3-60s and S3-300)."""
    if not only:
        return benchmarks
    return [b for b in benchmarks if any(b.id == o or b.id.startswith(o + "-") for o in only)]


# --------------------------------------------------------------------------------------
# One run of one simulator
# --------------------------------------------------------------------------------------

@dataclass
class Sample:
    wall_s: float
    rss_kb: int
    delivered: int  # data packets delivered in order, over all flows


GNU_TIME = "/usr/bin/time"


def _measure(cmd: list[str], cwd: str) -> tuple[float, int, str]:
    """Runs `cmd` and returns its wall time, its peak resident memory (KB) and its output.

    The memory comes from GNU time, which starts the command from its own small process: the
    kernel counts a child's memory before `exec` too, so a child forked from this Python
    process would show this process's size."""
    rss_file = os.path.join(cwd, "rss")
    start = time.perf_counter()
    with open(os.path.join(cwd, "stdout"), "w+") as out, open(os.path.join(cwd, "stderr"), "w+") as err:
        proc = subprocess.run([GNU_TIME, "-f", "%M", "-o", rss_file, *cmd], cwd=cwd, stdout=out, stderr=err,
                              stdin=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        text, problem = out.read(), err.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {problem.strip()[-500:] or text.strip()[-500:]}")
    with open(rss_file) as f:
        rss = int(f.read().split()[-1])
    return wall, rss, text


def _tcplab_delivered(summary: dict, normalized: dict) -> int:
    flows = {f["name"]: f for f in normalized["flows"]}
    total = 0.0
    for f in summary["flows"]:
        cfg = flows[f["name"]]
        stop = cfg["stop_s"] if cfg["stop_s"] is not None else normalized["duration_s"]
        active = max(0.0, min(stop, normalized["duration_s"]) - cfg["start_s"])
        total += f["goodput_bps"] * active / 8 / cfg["params"]["packet_size"]
    return round(total)


def _ns2_delivered(stdout: str, normalized: dict) -> int:
    """From the `flow i ack A sent S` lines the translation prints: every agent but Vegas opens
    with a SYN (segment 0), so its data segments delivered are ack_, and Vegas's ack_ + 1.
    ack_ is the sender's: it trails the receiver by the ACKs in flight at the end."""
    total = 0
    for line in stdout.splitlines():
        p = line.split()
        if len(p) == 6 and p[0] == "flow" and p[2] == "ack":
            flow = normalized["flows"][int(p[1])]
            ack = int(p[3])
            total += max(0, ack + 1 - (1 if flow["variant"] != "vegas" and flow["params"]["syn"] else 0))
    return total


def _ns3_delivered(stdout: str, segment: int) -> int:
    return sum(int(p[3]) // segment for p in (ln.split() for ln in stdout.splitlines()) if len(p) == 4 and p[2] == "rx_bytes")


@functools.cache
def native_runner() -> Path:
    """tcplab-sim, the core's own command (crates/cli), built from the current sources by
    scripts/build-sim.sh (once per process; cargo finds nothing to do when they are unchanged):
    profile-guided when rustup's llvm-tools are at hand (`build_kind`). The bench times it
    rather than `tcplab run`, whose Python start-up adds about 50 ms to each run."""
    script = BENCH.parent / "scripts" / "build-sim.sh"
    out = subprocess.run(["bash", str(script)], check=True, stdout=subprocess.PIPE, text=True).stdout
    return Path(out.strip().splitlines()[-1])


def build_kind(binary: Path) -> str:
    """How scripts/build-sim.sh built `binary`: into target/pgo when it had a profile."""
    return "profile-guided" if binary.parent.parent.name == "pgo" else "plain"


def ns3_program(cache: Path | None = None) -> Path | None:
    """bench/ns3/dumbbell.cc built against libns3-dev (once per version of the source), or
    None when ns-3's headers or g++ are missing."""
    if not Path("/usr/include/ns3/core-module.h").exists() or shutil.which("g++") is None:
        return None
    digest = hashlib.sha256(NS3_SOURCE.read_bytes()).hexdigest()[:16]
    cache = cache or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tcplab"
    binary = cache / f"ns3-dumbbell-{digest}"
    if not binary.exists():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = binary.with_suffix(".tmp")
        cmd = ["g++", "-O2", "-std=c++17", "-I/usr/include", str(NS3_SOURCE), "-o", str(tmp), *NS3_LIBS]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        tmp.rename(binary)  # atomically: a half-built binary is never used
    return binary


def _command(sim: str, b: Benchmark, traced: bool, work: str, ns3: Path | None) -> list[str]:
    if sim == "tcplab":
        path = os.path.join(work, "scenario.json")
        with open(path, "w") as f:
            json.dump(b.scenario, f)
        return [str(native_runner()), path, "--out", os.path.join(work, "out")] + (["--trace", "ns2"] if traced else [])
    if sim == "ns2":
        path = os.path.join(work, "scenario.tcl")
        trace = os.path.join(work, "trace.tr") if traced else None
        with open(path, "w") as f:
            f.write(ns2.scenario_to_tcl(tcplab.validate(b.scenario), trace))
        return ["ns", path]
    assert ns3 is not None and b.ns3 is not None
    return [str(ns3)] + [f"--{k}={v}" for k, v in b.ns3.items()]


def _delivered(sim: str, b: Benchmark, normalized: dict, work: str, stdout: str) -> int:
    if sim == "tcplab":
        with open(os.path.join(work, "out", "summary.json")) as f:
            return _tcplab_delivered(json.load(f), normalized)
    if sim == "ns2":
        return _ns2_delivered(stdout, normalized)
    return _ns3_delivered(stdout, int(b.ns3["segment"]))


def _not_installed(sim: str, ns3: Path | None) -> str | None:
    """Why `sim`, asked for with --against, cannot run on this machine at all, if it cannot:
    the report says so rather than showing a table without it."""
    if sim == "ns2" and shutil.which("ns") is None:
        return "ns-2 is not installed (no `ns` on the PATH; bash bench/install.sh installs it)"
    if sim == "ns3" and ns3 is None:
        return "ns-3 cannot be built here (no /usr/include/ns3/core-module.h or no g++; bash bench/install.sh installs them)"
    return None


def _can_run(sim: str, b: Benchmark, traced: bool, ns3: Path | None) -> bool:
    if sim == "ns2":
        if shutil.which("ns") is None:
            return False
        try:
            ns2.scenario_to_tcl(tcplab.validate(b.scenario), None)
        except ValueError:  # wireless, rfc profile, pacing: no ns-2 equivalent
            return False
        return True
    if sim == "ns3":
        return ns3 is not None and b.ns3 is not None and not traced
    return True


# --------------------------------------------------------------------------------------
# A benchmark, all simulators
# --------------------------------------------------------------------------------------

@dataclass
class Row:
    id: str
    title: str
    mode: str  # "off" or "trace"
    sim: str
    runs: int
    wall_s: float  # median
    rss_mb: float  # median
    delivered: int
    agrees: bool  # delivered within TOLERANCE of tcplab's
    speedup: float | None = None  # the median of `speedups` (tcplab's row: None)
    speedups: list = field(default_factory=list)  # this simulator's time over tcplab's, turn by turn
    events_per_s: float | None = None  # tcplab only
    packets_per_s: float | None = None  # tcplab only: data packets and ACKs sent
    samples: list = field(default_factory=list)
    error: str | None = None  # the simulator failed (it exited non-zero)


def _paired_speedups(theirs: list[Sample], ours: list[Sample]) -> list[float]:
    """The other simulator's time over tcplab's, turn by turn: the two runs of a turn follow
    each other and share the machine's speed of that minute. Their median is the ratio
    reported, their range how far the machine's drift moved it."""
    return [t.wall_s / o.wall_s for t, o in zip(theirs, ours)]


def _bench_one(b: Benchmark, against: list[str], reps: int, trace: bool, ns3: Path | None, log: Callable[[str], None]) -> list[Row]:
    normalized = tcplab.validate(b.scenario)
    rows = []
    for mode in ("off", "trace") if (b.trace and trace) else ("off",):
        traced = mode == "trace"
        sims = ["tcplab"] + [s for s in against if _can_run(s, b, traced, ns3)]
        samples: dict[str, list[Sample]] = {s: [] for s in sims}
        errors: dict[str, str] = {}
        for rep in range(reps):
            for sim in sims if rep % 2 == 0 else list(reversed(sims)):  # alternate who goes first
                if sim in errors:
                    continue
                with tempfile.TemporaryDirectory(prefix=f"tcplab-bench-{sim}-") as work:
                    try:
                        wall, rss, out = _measure(_command(sim, b, traced, work, ns3), work)
                    except RuntimeError as e:
                        if sim == "tcplab":
                            raise
                        errors[sim] = str(e)
                        log(f"{b.id}: {sim} failed: {e}")
                        continue
                    samples[sim].append(Sample(wall, rss, _delivered(sim, b, normalized, work, out)))
                log(f"{b.id} ({'trace' if traced else 'no trace'}) {sim} run {rep + 1}/{reps}: {wall:.2f} s")
        ours_delivered = samples["tcplab"][0].delivered
        for sim in sims:
            ss = samples[sim]
            if sim in errors:
                rows.append(Row(b.id, b.title, mode, sim, 0, 0.0, 0.0, 0, False, error=errors[sim]))
                continue
            wall = statistics.median(s.wall_s for s in ss)
            delivered = ss[0].delivered
            agrees = abs(delivered - ours_delivered) <= TOLERANCE * max(ours_delivered, 1)
            row = Row(b.id, b.title, mode, sim, len(ss), wall, statistics.median(s.rss_kb for s in ss) / 1024,
                      delivered, agrees, samples=[(s.wall_s, s.rss_kb) for s in ss])
            if sim != "tcplab" and agrees:
                row.speedups = _paired_speedups(ss, samples["tcplab"])
                row.speedup = statistics.median(row.speedups)
            rows.append(row)
        if mode == "off":
            res = tcplab.run(b.scenario)
            tcp = next(r for r in rows if r.sim == "tcplab" and r.mode == "off")
            tcp.events_per_s = res.events / tcp.wall_s
            flows = res.summary["flows"]
            tcp.packets_per_s = sum(f["packets_sent"] + f["acks_sent"] for f in flows) / tcp.wall_s
    return rows


def _scaling(b: Benchmark, of: Benchmark, reps: int, log: Callable[[str], None]) -> dict:
    """How much more `b` costs tcplab than `of`: the median over `reps` pairs of runs, the two
    of a pair one right after the other (in turns, which goes first). The machine's speed
    drifts from minute to minute, and the runs of a pair share their minute, where the medians
    of the two benchmarks' own runs, minutes apart, need not."""
    ratios = []
    for rep in range(reps):
        wall = {}
        for x in (of, b) if rep % 2 == 0 else (b, of):
            with tempfile.TemporaryDirectory(prefix="tcplab-bench-scaling-") as work:
                wall[x.id] = _measure(_command("tcplab", x, False, work, None), work)[0]
        ratios.append(wall[b.id] / wall[of.id])
        log(f"{b.id} against {of.id}, pair {rep + 1}/{reps}: {wall[b.id]:.2f} s / {wall[of.id]:.2f} s = {ratios[-1]:.2f}")
    ratio = statistics.median(ratios)
    return {"id": b.id, "of": of.id, "ratio": ratio, "ratios": ratios, "at_most": b.scaling["at_most"], "holds": ratio <= b.scaling["at_most"]}


def run(only: list[str] | None = None, against: list[str] = ["ns2", "ns3"], reps: int = 3, trace: bool = True,
        log: Callable[[str], None] = lambda s: None) -> dict:
    """Runs the chosen benchmarks and returns the results (what `--json` prints)."""
    for s in against:
        if s not in SIMULATORS[1:]:
            raise ScenarioError("--against", f"{s!r} is not ns2 or ns3")
    if reps < 1:
        raise ScenarioError("--reps", "needs at least one run")
    if not os.access(GNU_TIME, os.X_OK):
        raise ScenarioError("bench", f"needs GNU time at {GNU_TIME} (bench/install.sh installs it)")
    benchmarks = select(load(), only)
    sweeps = [w for w in load_sweeps() if not only or w["id"] in only or "sweep" in only]
    if not benchmarks and not sweeps:
        known = [b.id for b in load()] + [w["id"] for w in load_sweeps()]
        raise ScenarioError("--only", f"no benchmark {', '.join(only or [])} (there are {', '.join(known)})")
    native_runner()
    ns3 = ns3_program() if "ns3" in against else None
    left_out = {sim: why for sim in against if (why := _not_installed(sim, ns3))}
    for sim, why in left_out.items():
        log(f"{sim} left out: {why}")
    rows: list[Row] = []
    for b in benchmarks:
        rows += _bench_one(b, against, reps, trace, ns3, log)
    by_id = {b.id: b for b in benchmarks}
    scaling = [_scaling(b, by_id[b.scaling["of"]], reps, log) for b in benchmarks if b.scaling and b.scaling["of"] in by_id]
    cores = os.cpu_count() or 1
    sweep_results = [time_sweep(w, cores, log) for w in sweeps] if cores > 1 else []
    return {
        "date": date.today().isoformat(),
        "tcplab": tcplab.__version__,
        "build": build_kind(native_runner()),
        "commit": _commit(),
        "machine": {"cpu": _cpu(), "cores": os.cpu_count(), "python": platform.python_version(),
                    "ns2": shutil.which("ns") is not None, "ns3": ns3 is not None},
        "reps": reps,
        "left_out": left_out,
        "rows": [{k: v for k, v in r.__dict__.items()} for r in rows],
        "scaling": scaling,
        "sweeps": sweep_results,
    }


def _commit() -> str | None:
    """The commit of the sources timed, "-dirty" after it when tracked files differ from it;
    None outside a git checkout."""
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(BENCH.parent), *args], capture_output=True, text=True, timeout=30)
    try:
        head, diff = git("rev-parse", "--short", "HEAD"), git("diff", "--quiet", "HEAD")
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0 or diff.returncode not in (0, 1):
        return None
    return head.stdout.strip() + ("-dirty" if diff.returncode == 1 else "")


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _speedup_text(row: dict) -> str:
    """The median ratio, and with several turns their range: "10.4x (9.1-11.8)"."""
    turns = row.get("speedups") or []
    spread = f" ({min(turns):.1f}-{max(turns):.1f})" if len(turns) > 1 else ""
    return f"{row['speedup']:.1f}x{spread}"


def table(results: dict) -> str:
    """The results as a Markdown table, then the scaling checks."""
    head = ("| benchmark | trace | simulator | wall (s, median) | peak memory (MB) | delivered packets | "
            "tcplab faster by (range) | events/s | packets/s |")
    lines = [head, "|---|---|---|---|---|---|---|---|---|"] if results["rows"] else []
    for r in results["rows"]:
        if r["error"]:
            lines.append(f"| {r['id']} | {'ns-2 trace' if r['mode'] == 'trace' else 'off'} | {r['sim']} | failed | | | | | |")
            continue
        speed = _speedup_text(r) if r["speedup"] else ("–" if r["sim"] == "tcplab" else "disagree" if not r["agrees"] else "–")
        ev = f"{r['events_per_s'] / 1e6:.1f} M" if r["events_per_s"] else ""
        pk = f"{r['packets_per_s'] / 1e6:.2f} M" if r["packets_per_s"] else ""
        lines.append(f"| {r['id']} | {'ns-2 trace' if r['mode'] == 'trace' else 'off'} | {r['sim']} | {r['wall_s']:.2f} | "
                     f"{r['rss_mb']:.0f} | {r['delivered']} | {speed} | {ev} | {pk} |")
    left_out = results.get("left_out") or {}
    if left_out:
        lines += [""] * bool(lines) + [f"{sim} left out: {why}" for sim, why in left_out.items()]
    if results["scaling"]:
        lines += ["", "| scaling | against | cost ratio (median of pairs) | target |", "|---|---|---|---|"]
        for s in results["scaling"]:
            lines.append(f"| {s['id']} | {s['of']} | {s['ratio']:.2f} | at most {s['at_most']} ({'holds' if s['holds'] else 'missed'}) |")
    if results.get("sweeps"):
        lines += [""] * bool(lines) + ["| sweep | runs | one process (s) | every core (s) | ratio | target | same results |", "|---|---|---|---|---|---|---|"]
        for w in results["sweeps"]:
            lines.append(f"| {w['id']} | {w['runs']} | {w['serial_s']:.1f} | {w['parallel_s']:.1f} ({w['workers']} processes) | "
                         f"{w['ratio']:.2f} | at most {w['at_most']} ({'holds' if w['holds'] else 'missed'}) | {'yes' if w['same_results'] else 'NO'} |")
    return "\n".join(lines)
