"""The Linux anchor: tcplab's congestion controllers against the real kernel's, and ns-3's.

Each case of ``conformance/linux/cases.toml`` (a dumbbell of 1, 2 or 4 flows) runs once per
congestion control it lists, three ways:

- **linux**: the real kernel. The case becomes a scenario with a pair of `[[hosts]]` per flow;
  ``tcplab emulate`` carries their packets through the simulated dumbbell in real time, and
  ``tcplab.realtcp`` sends with ``TCP_CONGESTION`` set, sampling TCP_INFO. The emulation's
  lateness verdict comes with it: an unfaithful run is shown as such and not judged.
- **tcplab**: the same dumbbell with simulated flows, ``profile = "rfc"`` and the protocol the
  `[cc]` table maps Linux's name to. Where validation refuses it, the row says tcplab has no
  such controller yet.
- **ns-3**: bench/ns3/dumbbell.cc with ns-3.37's controller of the `[cc]` table.

Each side yields per flow the throughput over the steady state (from the case's ``skip`` to its
``duration``), the retransmissions, the cwnd and pacing-rate series, and the bottleneck's
queue; tcplab and ns-3 are then compared with Linux (tcplab.ccmetrics) against the issue's
criteria: a single flow's throughput within 5% and its steady-state cwnd within 10%;
several flows' Jain index within 0.05 and each flow's throughput within 10%.

The simulated sides mirror each real run: their flows start as far apart as the real senders
did. With several runs per case (``--runs``), each side's runs are pooled before they are
compared (see `pool`): one run cannot tell a difference of the model from the draw of the
flows' phases, which decides which flow's packet meets a full DropTail queue.

    tcplab conformance linux [--json] [--case ID ...] [--ci] [--runs N] [--out DIR [--reuse]]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import tcplab
from tcplab import ccmetrics as m
from tcplab.conformance import ConformanceError

#: The issue's pass criteria.
SINGLE_THROUGHPUT = 0.05
SINGLE_CWND = 0.10
MULTI_JAIN = 0.05
MULTI_THROUGHPUT = 0.10
#: A sender samples this long after its last byte, until it is acknowledged.
DRAIN_S = 1.0
#: What one real run costs beyond its duration and drain: namespaces, the senders' start
#: (Python and pandas, a second or two on a busy machine), writing the series, cleanup.
SETUP_S = 4.0
#: The emulation ends once every sender has written its report, or at this long after the
#: case's duration (a sender that never connects).
GRACE_S = 15.0
#: TCP/IP header bytes of the kernel's segments (20 IP + 20 TCP + 12 of timestamps), which ns-3
#: sends too (with timestamps on).
HEADERS = 52
#: The bottleneck direction, whose queue is measured.
BOTTLENECK = "r1->r2"


def cases_file() -> Path:
    """conformance/linux/cases.toml of the source tree this package runs from (or of the
    working directory)."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        path = base / "conformance" / "linux" / "cases.toml"
        if path.is_file():
            return path
    raise ConformanceError("cannot find conformance/linux/cases.toml (run from the tcplab repository)")


def _seconds(text) -> float:
    from tcplab.realtcp import seconds

    return seconds(str(text))


def _rate_bps(text) -> float:
    t = str(text).strip()
    for suffix, scale in (("Gb", 1e9), ("Mb", 1e6), ("Kb", 1e3), ("kb", 1e3), ("b", 1.0)):
        if t.endswith(suffix):
            return float(t[: -len(suffix)]) * scale
    return float(t)


@dataclass(frozen=True)
class Case:
    id: str
    flows: int
    rate: str  # as the scenario writes it ("10Mb")
    rtt: str
    queue: float | str  # DropTail in BDPs, or "red"
    cc: tuple[str, ...]
    duration: str
    ci: bool = False

    @property
    def rate_bps(self) -> float:
        return _rate_bps(self.rate)

    @property
    def rtt_s(self) -> float:
        return _seconds(self.rtt)

    @property
    def duration_s(self) -> float:
        return _seconds(self.duration)


@dataclass
class Settings:
    """cases.toml's tables besides the cases."""
    access_rate: str
    access_delay: str
    packet: int
    skip_s: float
    sample: str
    red: dict
    cc: dict
    simulated: dict

    def bdp_packets(self, case: Case) -> float:
        return case.rate_bps * case.rtt_s / (8 * self.packet)

    def packets(self, case: Case, bdps: float) -> int:
        """`bdps` bandwidth-delay products of the case in whole packets, at least one."""
        return max(1, round(bdps * self.bdp_packets(case)))

    def core_delay_s(self, case: Case) -> float:
        return case.rtt_s / 2 - 2 * _seconds(self.access_delay)


def parse_cases(doc: dict) -> tuple[list[Case], Settings]:
    """The cases and settings of a cases.toml document; ConformanceError on a mistake."""
    d = doc.get("defaults", {})
    settings = Settings(access_rate=d.get("access_rate", "1Gb"), access_delay=d.get("access_delay", "1ms"),
                        packet=int(d.get("packet", 1500)), skip_s=_seconds(d.get("skip", "5s")),
                        sample=d.get("sample", "10ms"), red=doc.get("red", {}), cc=doc.get("cc", {}),
                        simulated=doc.get("simulated", {}))
    cases, seen = [], set()
    for i, c in enumerate(doc.get("case", [])):
        at = f"case[{i}]"
        try:
            case = Case(id=c["id"], flows=int(c["flows"]), rate=c["rate"], rtt=c["rtt"], queue=c["queue"],
                        cc=tuple(c["cc"]), duration=c["duration"], ci=bool(c.get("ci", False)))
        except KeyError as e:
            raise ConformanceError(f"{at}: {e.args[0]} is required") from None
        if case.id in seen:
            raise ConformanceError(f"{at}: id {case.id!r} is used twice")
        seen.add(case.id)
        if case.flows < 1:
            raise ConformanceError(f"{case.id}: flows must be at least 1")
        if case.queue != "red" and (isinstance(case.queue, str) or case.queue <= 0):
            raise ConformanceError(f"{case.id}: queue must be a positive number of BDPs or \"red\"")
        if case.queue == "red" and not {"thresh", "maxthresh", "limit"} <= settings.red.keys():
            raise ConformanceError(f"{case.id}: a RED case needs [red] thresh, maxthresh and limit")
        unknown = [cc for cc in case.cc if cc not in settings.cc]
        if unknown:
            raise ConformanceError(f"{case.id}: no [cc.{unknown[0]}] table")
        if settings.core_delay_s(case) <= 0:
            raise ConformanceError(f"{case.id}: rtt {case.rtt} is not above four access delays")
        if case.duration_s <= settings.skip_s:
            raise ConformanceError(f"{case.id}: duration {case.duration} leaves no steady state after skip")
        cases.append(case)
    return cases, settings


def load_cases(path: Path | None = None) -> tuple[list[Case], Settings]:
    return parse_cases(tomllib.loads((path or cases_file()).read_text()))


def real_cost_s(cases: list[Case], runs: int = 1) -> float:
    """The wall time the real runs of `cases` take, set-up and drain included."""
    return runs * sum((c.duration_s + DRAIN_S + SETUP_S) * len(c.cc) for c in cases)


# ---------------------------------------------------------------------------------------------
# The scenarios


def dumbbell(case: Case, settings: Settings, name: str) -> dict:
    """The case's network as a scenario document, with no flows."""
    senders = [f"s{i}" for i in range(case.flows)]
    receivers = [f"k{i}" for i in range(case.flows)]
    access = {"bandwidth": settings.access_rate, "delay": settings.access_delay, "queue_limit": 10000}
    core = {"from": "r1", "to": "r2", "bandwidth": case.rate, "delay": f"{settings.core_delay_s(case) * 1e3:.6g}ms"}
    if case.queue == "red":
        r = settings.red
        core |= {"queue": "red", "queue_limit": settings.packets(case, r["limit"]),
                 "red": {"bytes": False, "queue_in_bytes": False, "mean_pktsize": settings.packet,
                         "thresh": settings.packets(case, r["thresh"]),
                         "maxthresh": settings.packets(case, r["maxthresh"]),
                         "q_weight": r.get("q_weight", 0.002), "linterm": r.get("linterm", 10)}}
    else:
        # ns-2's DropTail keeps limit - 1 packets waiting (docs/scenarios.md)
        core["queue_limit"] = settings.packets(case, case.queue) + 1
    links = [{"from": s, "to": "r1", **access} for s in senders] + [core]
    links += [{"from": "r2", "to": k, **access} for k in receivers]
    return {"name": name, "duration": case.duration, "nodes": senders + ["r1", "r2"] + receivers,
            "links": links, "output": {"interval": settings.sample}}


def real_scenario(case: Case, cc: str, settings: Settings, tag: str) -> dict:
    """The case with a sender host and a receiver host per flow, named with `tag` (unique to
    this process: emulations of other people may run beside), running tcplab.realtcp."""
    doc = dumbbell(case, settings, f"{case.id}-{cc}-linux")
    hosts = []
    for i in range(case.flows):
        sink = f"10.{i + 1}.2.2"
        hosts.append({"name": f"k{i}-{tag}", "node": f"k{i}", "address": f"{sink}/24",
                      "run": [{"command": f"$TCPLAB_PYTHON -m tcplab.realtcp recv --bind {sink} --name k{i}"}]})
        hosts.append({"name": f"s{i}-{tag}", "node": f"s{i}", "address": f"10.{i + 1}.1.2/24",
                      "run": [{"command": f"$TCPLAB_PYTHON -m tcplab.realtcp send {sink} --cc {cc} "
                                          f"--time {case.duration_s:g} --drain {DRAIN_S:g} --name f{i}"}]})
    doc["hosts"] = hosts
    return doc


def offsets(starts: list[float] | None) -> list[float] | None:
    """The real senders' starts as offsets from the first: where the simulated flows start."""
    return [s - min(starts) for s in starts] if starts else None


def simulated_scenario(case: Case, cc: str, settings: Settings, starts: list[float] | None = None) -> dict:
    """The case with simulated flows, starting at `starts` (seconds; all at 0 without)."""
    doc = dumbbell(case, settings, f"{case.id}-{cc}-tcplab")
    payload = settings.packet - settings.simulated.get("tcp", {}).get("tcpip_base_hdr_size", 40)
    doc["flows"] = [{**settings.simulated, "name": f"f{i}", "from": f"s{i}", "to": f"k{i}",
                     "protocol": settings.cc[cc]["tcplab"], "packet_size": payload} for i in range(case.flows)]
    for flow, at in zip(doc["flows"], starts or []):
        if at > 0:
            flow["start"] = f"{at:.6f}s"
    return doc


def ns3_arguments(case: Case, cc: str, settings: Settings, series: Path,
                  starts: list[float] | None = None) -> list[str]:
    """bench/ns3/dumbbell.cc's arguments for the case, with Linux's defaults, its flows
    starting at `starts` (seconds; all at 0 without)."""
    spec = settings.cc[cc]
    args = {"flows": case.flows, "tcp": spec["ns3"], "srcRate": f"{_rate_bps(settings.access_rate):.0f}bps",
            "srcDelay": settings.access_delay, "dstRate": f"{_rate_bps(settings.access_rate):.0f}bps",
            "dstDelay": settings.access_delay, "coreRate": f"{case.rate_bps:.0f}bps",
            "coreDelay": f"{settings.core_delay_s(case) * 1e6:.0f}us", "queue": 10000,
            "segment": settings.packet - HEADERS, "window": 100000, "sndBuf": 1 << 24, "duration": case.duration_s,
            "initialCwnd": 10, "delAckCount": 2, "timestamps": "true",
            "pacing": "true" if spec.get("ns3_pacing") else "false", "series": series,
            "sampleInterval": _seconds(settings.sample), "measureFrom": steady_span(case, settings, starts)[0]}
    if starts:
        args["starts"] = ",".join(f"{s:.6f}" for s in starts)
    if case.queue == "red":
        r = settings.red
        args |= {"queueDisc": "red", "coreQueue": settings.packets(case, r["limit"]),
                 "redMinTh": settings.packets(case, r["thresh"]), "redMaxTh": settings.packets(case, r["maxthresh"]),
                 "redQw": r.get("q_weight", 0.002), "redLInterm": r.get("linterm", 10)}
    else:
        args["coreQueue"] = settings.packets(case, case.queue)  # the device queue holds the waiting packets
    return [f"--{k}={v}" for k, v in args.items()]


# ---------------------------------------------------------------------------------------------
# What each side measured


@dataclass
class Flow:
    throughput_bps: float
    retransmits: int
    times: list[float]  # the cwnd and pacing series, steady state only
    cwnd: list[float]
    pacing: list[float]


@dataclass
class Side:
    """One side's run of a case and controller: its flows, or why there are none."""
    flows: list[Flow] = field(default_factory=list)
    queue: list[float] = field(default_factory=list)  # the bottleneck's packets waiting, steady state
    missing: str | None = None  # why this side has no figures
    faithful: bool | None = None  # the real side only
    lateness: dict | None = None
    starts: list[float] | None = None  # the real senders' starts, seconds
    parts: list[Side] = field(default_factory=list)  # the runs a pooled side was made of

    def summary(self, cc: str, rtt_s: float) -> dict:
        if self.missing:
            return {"missing": self.missing}
        out = {"throughput_bps": [f.throughput_bps for f in self.flows],
               "retransmits": [f.retransmits for f in self.flows],
               "jain": m.jain([f.throughput_bps for f in self.flows]),
               "queue_mean": sum(self.queue) / len(self.queue) if self.queue else None,
               "queue_p95": m.percentile(self.queue, 0.95),
               "cwnd_median": [m.percentile(f.cwnd, 0.5) for f in self.flows]}
        out |= _merged_dynamics([run.dynamics(cc, rtt_s) for run in self.parts]) if self.parts else self.dynamics(cc, rtt_s)
        if self.faithful is not None:
            out["faithful"] = self.faithful
            out["lateness"] = self.lateness
            out["start_s"] = self.starts
        if self.parts:
            out["runs"] = [{"throughput_bps": [f.throughput_bps for f in run.flows],
                            "jain": m.jain([f.throughput_bps for f in run.flows]),
                            **({"faithful": run.faithful} if run.faithful is not None else {})} for run in self.parts]
        return out

    def dynamics(self, cc: str, rtt_s: float) -> dict:
        """BBR's probing cycle and ProbeRTT interval, or the sawtooth, per flow."""
        if cc == "bbr":
            return {"probe_cycle_s": [m.probe_cycle_period(f.times, f.pacing) for f in self.flows],
                    "probe_rtt": [m.probe_rtt_interval(f.times, f.cwnd) for f in self.flows]}
        # one recovery lasts a round trip, up to three base RTTs with a 2-BDP queue
        return {"sawtooth": [m.sawtooth(f.times, f.cwnd, merge_within=4 * rtt_s) for f in self.flows]}


def _by_rank(flows: list[Flow]) -> list[Flow]:
    return sorted(flows, key=lambda f: f.throughput_bps)


def pool(runs: list[Side]) -> Side:
    """Several runs of one side as one, for the comparison: the flows matched by rank of
    throughput within each run (they are exchangeable), each rank's throughput and
    retransmissions averaged over the runs, its cwnd samples and the queue's pooled (the cwnd
    and queue figures compare distributions); the dynamics are each run's, merged by
    `_merged_dynamics`. A side missing in every run is missing; one run is itself."""
    present = [r for r in runs if not r.missing]
    if not present:
        return runs[0]
    if len(present) == 1:
        return present[0]
    flows = []
    for same_rank in zip(*(_by_rank(r.flows) for r in present)):
        n = len(same_rank)
        flows.append(Flow(sum(f.throughput_bps for f in same_rank) / n, round(sum(f.retransmits for f in same_rank) / n),
                          [t for f in same_rank for t in f.times], [c for f in same_rank for c in f.cwnd],
                          [p for f in same_rank for p in f.pacing]))
    parts = [Side(flows=_by_rank(r.flows), queue=r.queue, faithful=r.faithful, lateness=r.lateness, starts=r.starts)
             for r in present]
    pooled = Side(flows=flows, queue=[q for r in present for q in r.queue], parts=parts)
    if present[0].faithful is not None:
        pooled.faithful = all(r.faithful for r in present)
        pooled.lateness = {k: max(r.lateness[k] for r in present) for k in present[0].lateness}
        pooled.starts = [s for r in present for s in r.starts or []]
    return pooled


def _merged_dynamics(runs: list[dict]) -> dict:
    """Each rank's dynamics over several runs: the median of each period and depth, the
    reductions and ProbeRTT entries summed."""
    def med(values):
        values = [v for v in values if v is not None]
        return m.percentile(values, 0.5) if values else None

    key = next(iter(runs[0]))
    if key == "sawtooth":
        return {"sawtooth": [{"reductions": sum(s["reductions"] for s in rank), "period_s": med(s["period_s"] for s in rank),
                              "depth": med(s["depth"] for s in rank)} for rank in zip(*(r["sawtooth"] for r in runs))]}
    return {"probe_cycle_s": [med(rank) for rank in zip(*(r["probe_cycle_s"] for r in runs))],
            "probe_rtt": [{"entries": sum(p["entries"] for p in rank), "interval_s": med(p["interval_s"] for p in rank)}
                          for rank in zip(*(r["probe_rtt"] for r in runs))]}


def steady_span(case: Case, settings: Settings, starts: list[float] | None = None) -> tuple[float, float]:
    """The steady state's (start, end), seconds on the run's clock: from `skip` after the last
    flow started to the case's duration after the first did (simulated flows start at 0; real
    senders when their Python is up and connected, a second or more in)."""
    first, last = (min(starts), max(starts)) if starts else (0.0, 0.0)
    return last + settings.skip_s, first + case.duration_s


def _side_from_frames(case: Case, span: tuple[float, float], tcp, links, delivered: dict[str, tuple],
                      retransmits: dict) -> Side:
    """A Side from series over `span`: `tcp` (time, flow, cwnd, pacing_rate), `links` (time,
    link, queue_pkts) and, per flow, its cumulative delivered bytes (times, bytes)."""
    side = Side()
    for i in range(case.flows):
        name = f"f{i}"
        rows = tcp[tcp["flow"] == name]
        times, cwnd = m.window(list(rows["time"]), list(rows["cwnd"]), *span)
        _, pacing = m.window(list(rows["time"]), list(rows["pacing_rate"]), *span)
        t, b = delivered[name]
        rate = m.rate_between(list(t), list(b), *span) * 8
        side.flows.append(Flow(rate, int(retransmits[name]), times, cwnd, pacing))
    q = links[links["link"] == BOTTLENECK]
    side.queue = m.window(list(q["time"]), list(q["queue_pkts"]), *span)[1]
    return side


def emulate(case: Case, cc: str, settings: Settings, folder: Path, tag: str) -> str:
    """Runs the case's real side into `folder`; returns tcplab emulate's diagnostics."""
    scenario = folder.parent / f"{folder.name}.json"  # not with_suffix: "0.5bdp" holds a dot
    scenario.write_text(json.dumps(real_scenario(case, cc, settings, tag)))
    # the run ends when every sender has written its series (realtcp.json comes last): an
    # emulation's end kills what still runs in its hosts
    written = " -a ".join(f'-e "$TCPLAB_OUT/f{i}/realtcp.json"' for i in range(case.flows))
    wait = f"until [ {written} ]; do sleep 0.2; done"
    done = subprocess.run([sys.executable, "-m", "tcplab", "emulate", str(scenario), "--out", str(folder),
                           "--duration", f"{case.duration_s + GRACE_S:g}s", "--", "sh", "-c", wait],
                          capture_output=True, text=True)
    if not (folder / "emulation.json").exists():
        raise ConformanceError(f"tcplab emulate failed on {case.id} ({cc}): "
                               + (done.stderr.strip() or done.stdout.strip())[-400:])
    return done.stderr.strip()


def read_linux(case: Case, settings: Settings, folder: Path, diagnostics: str = "") -> Side:
    """The real side from an emulation's folder: its lateness verdict, the bottleneck's queue
    and each sender's series, over the steady state after the senders' own starts."""
    import pandas as pd

    emu = json.loads((folder / "emulation.json").read_text())["emulation"]
    frames, delivered, retransmits, starts = [], {}, {}, []
    for i in range(case.flows):
        flow = folder / f"f{i}"
        if not (flow / "realtcp.json").exists():
            return Side(missing=f"the real sender f{i} wrote no series ({diagnostics[-200:]})")
        starts.append(json.loads((flow / "realtcp.json").read_text())["start_s"])
        tcp = pd.read_parquet(flow / "series-tcp.parquet")
        frames.append(tcp)
        delivered[f"f{i}"] = (tcp["time"], tcp["bytes_acked"])
        retransmits[f"f{i}"] = tcp["retransmits"].iloc[-1] if len(tcp) else 0
    span = steady_span(case, settings, starts)
    side = _side_from_frames(case, span, pd.concat(frames), pd.read_parquet(folder / "series-links.parquet"),
                             delivered, retransmits)
    side.faithful = bool(emu["faithful"])
    side.lateness = {k: emu["lateness"][k] for k in ("p99_ms", "max_ms", "late_over_1ms", "events")}
    side.starts = starts
    return side


def run_tcplab(case: Case, cc: str, settings: Settings, starts: list[float] | None = None) -> Side:
    doc = simulated_scenario(case, cc, settings, starts)
    try:
        tcplab.validate(doc)
    except tcplab.ScenarioError as e:
        if e.path.endswith(".protocol"):
            return Side(missing=f"tcplab has no {cc} yet")
        raise
    result = tcplab.run(doc)
    s = result.series
    flows = s["flows"]
    delivered = {f"f{i}": (flows[flows["flow"] == f"f{i}"]["time"], flows[flows["flow"] == f"f{i}"]["delivered_bytes"])
                 for i in range(case.flows)}
    retransmits = {f["name"]: f["packets_retransmitted"] for f in result.summary["flows"]}
    return _side_from_frames(case, steady_span(case, settings, starts), s["tcp"], s["links"], delivered, retransmits)


def run_ns3(case: Case, cc: str, settings: Settings, work: Path, program: Path | None,
            starts: list[float] | None = None, run: int = 1) -> Side:
    import pandas as pd

    if program is None:
        return Side(missing="ns-3 cannot be built here (bash bench/install.sh)")
    series = work / f"{case.id}-{cc}-ns3{_run_suffix(run)}.txt"
    done = subprocess.run([str(program), *ns3_arguments(case, cc, settings, series, starts)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return Side(missing=f"ns-3 failed (exit {done.returncode}): {done.stderr.strip()[-200:]}")
    rx, at_from, retx = {}, {}, {}
    for words in (line.split() for line in done.stdout.splitlines()):
        if len(words) == 4 and words[2] == "rx_bytes":
            rx[int(words[1])] = int(words[3])
        elif len(words) == 6 and words[0] == "stats":
            at_from[int(words[1])], retx[int(words[1])] = int(words[3]), int(words[5])
    frame = pd.read_csv(series, sep=" ")
    side = Side()
    steady = steady_span(case, settings, starts)
    span = case.duration_s - steady[0]
    for i in range(case.flows):
        rows = frame[frame["flow"] == i]
        times, cwnd = m.window(list(rows["time"]), list(rows["cwnd"]), *steady)
        # segments per second, as the other sides give the pacing rate
        pacing_rate = rows["pacing_rate_bps"] / (8 * (settings.packet - HEADERS))
        _, pacing = m.window(list(rows["time"]), list(pacing_rate), *steady)
        side.flows.append(Flow((rx[i] - at_from[i]) * 8 / span, retx[i], times, cwnd, pacing))
    first = frame[frame["flow"] == 0]
    side.queue = m.window(list(first["time"]), list(first["queue"]), *steady)[1]
    return side


# ---------------------------------------------------------------------------------------------
# The comparison


def compare(case: Case, cc: str, linux: Side, other: Side) -> dict:
    """`other` against Linux: relative errors and the verdict by the issue's criteria. Flows are
    exchangeable (same path, same start), so they are matched by rank of throughput."""
    if other.missing:
        return {"verdict": "missing", "why": other.missing}
    if linux.missing:
        return {"verdict": "missing", "why": f"no Linux figures: {linux.missing}"}
    order = lambda side: sorted(side.flows, key=lambda f: f.throughput_bps)  # noqa: E731
    pairs = list(zip(order(other), order(linux)))
    thr = [m.relative_error(o.throughput_bps, r.throughput_bps) for o, r in pairs]
    cwnd = [m.median_relative_error(o.cwnd, r.cwnd) for o, r in pairs]
    jain_o, jain_r = m.jain([f.throughput_bps for f in other.flows]), m.jain([f.throughput_bps for f in linux.flows])
    out = {"throughput_error": thr, "cwnd_error": cwnd,
           "jain_difference": abs(jain_o - jain_r) if jain_o is not None and jain_r is not None else None,
           "queue_mean_error": m.relative_error(*(sum(s.queue) / len(s.queue) if s.queue else None
                                                  for s in (other, linux))),
           "queue_p95_error": m.relative_error(m.percentile(other.queue, 0.95), m.percentile(linux.queue, 0.95))}
    fails = []
    if case.flows == 1:
        if thr[0] is None or thr[0] > SINGLE_THROUGHPUT:
            fails.append(f"throughput {_pct(thr[0])} off (at most {SINGLE_THROUGHPUT:.0%})")
        if cwnd[0] is None or cwnd[0] > SINGLE_CWND:
            fails.append(f"cwnd {_pct(cwnd[0])} off (at most {SINGLE_CWND:.0%})")
    else:
        if out["jain_difference"] is None or out["jain_difference"] > MULTI_JAIN:
            fails.append(f"Jain {_num(out['jain_difference'])} off (at most {MULTI_JAIN})")
        worst = max((e for e in thr if e is not None), default=None)
        if worst is None or worst > MULTI_THROUGHPUT:
            fails.append(f"a flow's throughput {_pct(worst)} off (at most {MULTI_THROUGHPUT:.0%})")
    if linux.faithful is False:
        out |= {"verdict": "unfaithful", "why": "the Linux run was not faithful (lateness "
                f"p99 {linux.lateness['p99_ms']:.2f} ms, max {linux.lateness['max_ms']:.1f} ms): not judged"
                + (f"; it would fail: {'; '.join(fails)}" if fails else "; it would pass")}
    else:
        out |= {"verdict": "fail" if fails else "pass", "why": "; ".join(fails)}
    return out


def _pct(x) -> str:
    return "n/a" if x is None else f"{x:.1%}"


def _num(x, fmt=".3f") -> str:
    return "n/a" if x is None else format(x, fmt)


def select(cases: list[Case], ids: list[str] | None = None, ci: bool = False) -> list[Case]:
    if ids:
        known = {c.id for c in cases}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise ConformanceError(f"no case {unknown[0]!r} in cases.toml (see conformance/linux/cases.toml)")
        cases = [c for c in cases if c.id in ids]
    return [c for c in cases if c.ci] if ci else cases


def _run_suffix(run: int) -> str:
    """Run 1's files keep the plain names; run r's carry "-r"."""
    return "" if run == 1 else f"-{run}"


def run(ids: list[str] | None = None, ci: bool = False, ccs: list[str] | None = None, out: Path | None = None,
        progress=None, path: Path | None = None, reuse: bool = False, runs: int = 1) -> dict:
    """Runs the chosen cases (every case; `ids`; the CI subset) with each of their controllers
    (or only `ccs`) on the three sides, `runs` times each, and returns the report. Each
    simulated run mirrors a real one (its flows start as the real senders did); the runs of
    each side are pooled (`pool`) before they are compared. With `reuse`, a real run whose
    folder under `out` holds its emulation already is read, not run again."""
    if runs < 1:
        raise ConformanceError(f"runs must be at least 1, not {runs}")
    from tcplab.bench import ns3_program

    all_cases, settings = load_cases(path)
    cases = select(all_cases, ids, ci)
    try:
        program = ns3_program()
    except subprocess.CalledProcessError as e:
        raise ConformanceError(f"cannot build bench/ns3/dumbbell.cc: {e.stderr.strip()[-300:]}") from None
    tag = str(os.getpid())
    rows = []
    with tempfile.TemporaryDirectory(prefix="tcplab-linux-") as scratch:
        work = Path(out) if out else Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        for case in cases:
            for cc in case.cc:
                if ccs and cc not in ccs:
                    continue
                per_run = {"linux": [], "tcplab": [], "ns3": []}
                for r in range(1, runs + 1):
                    if progress:
                        progress(case, cc, r, runs)
                    folder = work / f"{case.id}-{cc}-linux{_run_suffix(r)}"
                    again = not (reuse and (folder / "emulation.json").exists())
                    linux = read_linux(case, settings, folder, emulate(case, cc, settings, folder, tag) if again else "")
                    starts = offsets(linux.starts)
                    per_run["linux"].append(linux)
                    per_run["tcplab"].append(run_tcplab(case, cc, settings, starts))
                    per_run["ns3"].append(run_ns3(case, cc, settings, work, program, starts, r))
                # the faithful real runs, and the simulated runs that mirror them, when there are any
                kept = [i for i, real in enumerate(per_run["linux"]) if real.faithful] or range(runs)
                linux, tcplab_side, ns3_side = (pool([per_run[k][i] for i in kept]) for k in ("linux", "tcplab", "ns3"))
                sides = {"tcplab": tcplab_side, "ns3": ns3_side}
                rows.append({"case": case.id, "cc": cc, "flows": case.flows, "rate": case.rate, "rtt": case.rtt,
                             "queue": case.queue, "duration": case.duration, "runs": runs,
                             "linux": linux.summary(cc, case.rtt_s),
                             **{k: {**s.summary(cc, case.rtt_s), "vs_linux": compare(case, cc, linux, s)} for k, s in sides.items()}})
    return {"skip_s": settings.skip_s, "criteria": {"single_throughput": SINGLE_THROUGHPUT, "single_cwnd": SINGLE_CWND,
                                                     "multi_jain": MULTI_JAIN, "multi_throughput": MULTI_THROUGHPUT},
            "rows": rows}


def format_table(report: dict) -> str:
    """One line per side of each case and controller, Linux first; the comparison's verdict on
    the others' lines; then the sawtooth and BBR figures."""
    lines = [f"{'case':<20} {'cc':<5} {'side':<6} {'Mb/s per flow':<24} {'retx':>6} {'jain':>6} "
             f"{'queue':>11} {'cwnd':>7}  vs linux"]
    for row in report["rows"]:
        for name in ("linux", "tcplab", "ns3"):
            s = row[name]
            head = f"{row['case'] if name == 'linux' else '':<20} {row['cc'] if name == 'linux' else '':<5} {name:<6}"
            if "missing" in s:
                lines.append(f"{head} {s['missing']}")
                continue
            rates = "/".join(f"{r / 1e6:.2f}" for r in s["throughput_bps"])
            queue = f"{_num(s['queue_mean'], '.1f')}/{_num(s['queue_p95'], '.0f')}"
            cwnd = "/".join(_num(c, ".0f") for c in s["cwnd_median"])
            if name == "linux":
                tail = ("faithful" if s["faithful"] else f"NOT FAITHFUL (p99 {s['lateness']['p99_ms']:.2f} ms)")
                tail += f", senders started at {min(s['start_s']):.1f}-{max(s['start_s']):.1f} s"
                if "runs" in s:
                    tail += f", {len(s['runs'])} runs pooled"
            else:
                v = s["vs_linux"]
                tail = (f"{v['verdict']}: thr {'/'.join(_pct(e) for e in v['throughput_error'])}, "
                        f"cwnd {'/'.join(_pct(e) for e in v['cwnd_error'])}, Jain ±{_num(v['jain_difference'])}"
                        + (f" ({v['why']})" if v["why"] else "")) if "throughput_error" in v else v["why"]
            lines.append(f"{head} {rates:<24} {sum(s['retransmits']):>6} {_num(s['jain']):>6} {queue:>11} "
                         f"{cwnd:>7}  {tail}")
            lines.append(f"{'':<33} {_dynamics(s)}")
    return "\n".join(lines)


def _dynamics(s: dict) -> str:
    """The sawtooth's period and depth, or BBR's probing cycle and ProbeRTT interval, per flow."""
    if "sawtooth" in s:
        return "sawtooth " + ", ".join(f"{_num(t['period_s'], '.2f')} s x {_pct(t['depth'])} ({t['reductions']})"
                                       for t in s["sawtooth"])
    return ("probe cycle " + ", ".join(f"{_num(p, '.3f')} s" for p in s["probe_cycle_s"]) + "; ProbeRTT every "
            + ", ".join(f"{_num(p['interval_s'], '.1f')} s ({p['entries']})" for p in s["probe_rtt"]))


def format_markdown(report: dict) -> str:
    """The report as a Markdown table, a row per case and controller: each side's throughput
    per flow, median cwnd and dynamics; the Linux run's lateness; each comparison's errors
    and verdict (what docs/linux.md shows)."""
    def side(s: dict) -> str:
        if "missing" in s:
            return s["missing"]
        rates = "/".join(f"{r / 1e6:.2f}" for r in s["throughput_bps"])
        cwnd = "/".join(_num(c, ".0f") for c in s["cwnd_median"])
        if "sawtooth" in s:
            dyn = "; ".join(f"{_num(t['period_s'], '.2f')} s × {_num(t['depth'], '.2f')}" for t in s["sawtooth"])
        else:
            dyn = ("cycle " + "/".join(_num(p, ".2f") for p in s["probe_cycle_s"]) + " s; ProbeRTT "
                   + "/".join(_num(p["interval_s"], ".1f") for p in s["probe_rtt"]) + " s")
        return f"{rates}; cwnd {cwnd}; {dyn}"

    def verdict(s: dict) -> str:
        v = s.get("vs_linux", {})
        if "throughput_error" not in v:
            return v.get("why", "")
        errors = (f"thr {'/'.join(_pct(e) for e in v['throughput_error'])}, "
                  f"cwnd {'/'.join(_pct(e) for e in v['cwnd_error'])}, Jain ±{_num(v['jain_difference'])}")
        word = {"pass": "**pass**", "fail": "**fail**"}.get(v["verdict"], v["verdict"])
        return f"{errors}: {word}" + (f" ({v['why']})" if v["verdict"] == "fail" else "")

    lines = ["| case | cc | Linux: Mb/s; cwnd; dynamics | Linux lateness p99 | tcplab | tcplab vs Linux "
             "| ns-3 | ns-3 vs Linux |", "|---|---|---|---|---|---|---|---|"]
    for row in report["rows"]:
        linux = row["linux"]
        late = ("—" if "missing" in linux else
                f"{linux['lateness']['p99_ms']:.3f} ms" + ("" if linux["faithful"] else " (**not faithful**)"))
        lines.append(f"| {row['case']} | {row['cc']} | {side(linux)} | {late} | {side(row['tcplab'])} "
                     f"| {verdict(row['tcplab'])} | {side(row['ns3'])} | {verdict(row['ns3'])} |")
    return "\n".join(lines)


def summary_line(report: dict) -> str:
    verdicts = [row[name]["vs_linux"]["verdict"] for row in report["rows"] for name in ("tcplab", "ns3")
                if "vs_linux" in row[name]]
    counts = {v: verdicts.count(v) for v in ("pass", "fail", "unfaithful", "missing")}
    return (f"{len(report['rows'])} runs: " + ", ".join(f"{n} {v}" for v, n in counts.items())
            + " (tcplab and ns-3 each against Linux)")
