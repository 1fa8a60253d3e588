"""Translate tcplab scenarios into ns-2.35 Tcl and run Debian's ``ns`` on them.

ns-2.35 is tcplab's oracle: the same scenario is run by tcplab and by ns-2 and
the two wired traces are compared (see ``tcplab.tracediff``).

This module deliberately imports nothing from the rest of tcplab (only the
standard library), so it keeps working whatever state the core is in.  It has
its own small unit parsers for the scenario format of docs/scenarios.md.

    from tcplab.ns2 import scenario_to_tcl, run_ns2
    tcl = scenario_to_tcl(tomllib.load(f), "out.tr", "cwnd.tr")
    paths = run_ns2(scenario, "/tmp/work")   # {"tcl":…, "trace":…, "cwnd":…}

Anything that cannot be expressed in ns-2 raises ValueError whose message
starts with the offending field, e.g. ``links[2].bandwidth: ...``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from decimal import Decimal

__all__ = [
    "parse_time",
    "parse_rate",
    "parse_size",
    "scenario_to_tcl",
    "run_ns2",
    "NS2Error",
]


class NS2Error(RuntimeError):
    """ns is missing, failed or timed out."""


# ---------------------------------------------------------------------------
# Unit parsers (docs/scenarios.md, "Units").  Exact: decimal arithmetic, so
# "0.1ms" is exactly 100_000_000 ps and "1.5Gbps" exactly 1_500_000_000 bit/s.
# ---------------------------------------------------------------------------

_NUM = r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?"

_TIME_UNITS = {"s": 10**12, "ms": 10**9, "us": 10**6, "ns": 10**3}
_TIME_RE = re.compile(r"^" + _NUM + r"(s|ms|us|ns)?$")

# Rates follow ns-2's bw_parse: prefix k/K, m/M, g/G; 'b'/'bps' bits, 'B'/'Bps' bytes.
_RATE_PREFIX = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}
_RATE_RE = re.compile(r"^" + _NUM + r"(?:([kKmMgG]?)(bps|b|Bps|B))?$")

_SIZE_UNITS = {"B": 1, "KB": 10**3, "KiB": 1024, "MB": 10**6, "MiB": 1024**2}
_SIZE_RE = re.compile(r"^" + _NUM + r"(B|KB|KiB|MB|MiB)$")


def _decimal(mantissa: str, exponent: str | None) -> Decimal:
    d = Decimal(mantissa)
    if exponent:
        d = d.scaleb(int(exponent))
    return d


def _as_number_text(value, field: str, what: str) -> str:
    """Bare numbers (TOML int/float) become text; bools are rejected (bool is an int in Python)."""
    if isinstance(value, bool):
        raise ValueError(f"{field}: {value!r} is not a {what}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # shortest round-trip text, e.g. 0.1 -> "0.1"
    if isinstance(value, str):
        return value.strip()
    raise ValueError(f"{field}: {value!r} is not a {what}")


def _exact_int(d: Decimal, field: str, raw, what: str) -> int:
    if d != d.to_integral_value():
        raise ValueError(f"{field}: {raw!r} is not a whole number of {what}")
    return int(d)


def parse_time(value, field: str = "time") -> int:
    """Time -> integer picoseconds. "50ms", "0.5", 10 (bare = seconds)."""
    text = _as_number_text(value, field, "time")
    m = _TIME_RE.match(text)
    if not m:
        raise ValueError(f'{field}: "{text}" is not a time (try "50ms", "1.5s", "100us")')
    ps = _decimal(m.group(1), m.group(2)) * _TIME_UNITS[m.group(3) or "s"]
    return _exact_int(ps, field, value, "picoseconds")


def parse_rate(value, field: str = "rate") -> int:
    """Rate -> integer bit/s. "2Mb", "448kb", "1.5Gbps", "1MB" (bytes/s), bare number = bit/s."""
    text = _as_number_text(value, field, "rate")
    m = _RATE_RE.match(text)
    if not m:
        raise ValueError(f'{field}: "{text}" is not a rate (try "2Mb", "10Mbps", "1.5Gb")')
    bits = _decimal(m.group(1), m.group(2)) * _RATE_PREFIX[(m.group(3) or "").lower()]
    if m.group(4) in ("B", "Bps"):
        bits *= 8
    rate = _exact_int(bits, field, value, "bit/s")
    if rate <= 0:
        raise ValueError(f"{field}: {value!r} must be positive")
    return rate


def parse_size(value, field: str = "size") -> int:
    """Size -> integer bytes. "1500B", "1KB", "1KiB", bare integer = bytes."""
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    elif isinstance(value, str) and value.strip().isdigit():
        n = int(value.strip())
    elif isinstance(value, str):
        text = value.strip()
        m = _SIZE_RE.match(text)
        if not m:
            raise ValueError(f'{field}: "{text}" is not a size (try "1500B", "1KB", 1000)')
        n = _exact_int(_decimal(m.group(1), m.group(2)) * _SIZE_UNITS[m.group(3)], field, value, "bytes")
    else:
        raise ValueError(f"{field}: {value!r} is not a size")
    if n <= 0:
        raise ValueError(f"{field}: {value!r} must be positive")
    return n


def _seconds(ps: int) -> str:
    """Integer picoseconds -> plain decimal seconds for Tcl ("0.05", "20", "0.0001")."""
    d = (Decimal(ps) / Decimal(10**12)).normalize()
    return format(d, "f")


# ---------------------------------------------------------------------------
# Knob tables
# ---------------------------------------------------------------------------

# kind: "int"   integer (C++ int)
#       "flag"  C++ int used as 0/1 switch (bools accepted, emitted as 1/0)
#       "real"  C++ double (ints or floats)
#       "bool"  bind_bool: emitted as true/false (0/1 accepted)
#       "time"  C++ double in seconds: parsed as a tcplab time
#       "isec"  C++ *int* seconds (srtt_init_/rttvar_init_: ns-2 divides them by tcpTick_
#               after truncation to int, so only whole seconds are expressible)
TCP_KNOBS = {
    "window": ("window_", "real"),  # wnd_ is a double in ns-2
    "window_init": ("windowInit_", "real"),
    "window_init_option": ("windowInitOption_", "int"),
    "syn": ("syn_", "bool"),
    "delay_growth": ("delay_growth_", "bool"),
    "max_cwnd": ("maxcwnd_", "int"),
    "maxburst": ("maxburst_", "int"),
    "tcp_tick": ("tcpTick_", "time"),
    "rtxcur_init": ("rtxcur_init_", "time"),
    "minrto": ("minrto_", "time"),
    "maxrto": ("maxrto_", "time"),
    "srtt_init": ("srtt_init_", "isec"),
    "rttvar_init": ("rttvar_init_", "isec"),
    "numdupacks": ("numdupacks_", "int"),
    "singledup": ("singledup_", "flag"),
    "bug_fix": ("bugFix_", "bool"),
    "precision_reduce": ("precisionReduce_", "bool"),
    "ecn": ("ecn_", "bool"),
    "timestamps": ("timestamps_", "bool"),
    "slow_start_restart": ("slow_start_restart_", "bool"),
    "decrease_num": ("decrease_num_", "real"),
    "increase_num": ("increase_num_", "real"),
    "newreno_changes": ("newreno_changes_", "flag"),
    "newreno_changes1": ("newreno_changes1_", "flag"),
    "partial_window_deflation": ("partial_window_deflation_", "flag"),
    "exit_recovery_fix": ("exit_recovery_fix_", "flag"),
    "tcpip_base_hdr_size": ("tcpip_base_hdr_size_", "int"),
}

# Variables that exist only on Agent/TCP/Newreno.  From the global [tcp] table
# they are applied to newreno flows only (on other agents they would just be
# dead Tcl instance variables); in a non-newreno flow's own table they are an error.
NEWRENO_ONLY = {"newreno_changes", "newreno_changes1", "partial_window_deflation", "exit_recovery_fix"}

RED_KNOBS = {
    "bytes": ("bytes_", "bool"),
    "queue_in_bytes": ("queue_in_bytes_", "bool"),
    "mean_pktsize": ("mean_pktsize_", "int"),
    "thresh": ("thresh_", "real"),
    "maxthresh": ("maxthresh_", "real"),
    "q_weight": ("q_weight_", "real"),
    "linterm": ("linterm_", "real"),
    "wait": ("wait_", "bool"),
    "gentle": ("gentle_", "bool"),
    "setbit": ("setbit_", "bool"),
    "mark_p": ("mark_p_", "real"),
    "use_mark_p": ("use_mark_p_", "bool"),
    "drop_tail": ("drop_tail_", "bool"),
    "targetdelay": ("targetdelay_", "time"),  # plain bind() in red.cc: must be seconds, no units
}

TCP_AGENTS = {"tahoe": "Agent/TCP", "reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno"}
SINKS = {"tcpsink": "Agent/TCPSink", "delack": "Agent/TCPSink/DelAck"}

TOP_FIELDS = {"name", "duration", "seed", "profile", "nodes", "links", "flows", "tcp", "output"}
LINK_FIELDS = {"from", "to", "bandwidth", "delay", "queue", "queue_limit", "red"}
FLOW_FIELDS = {
    "name", "from", "to", "protocol", "sink", "app", "start", "stop", "packets",
    "rate", "packet_size", "tcp", "delack_interval",
}
OUTPUT_FIELDS = {"trace"}


def _knob_value(kind: str, value, field: str) -> str:
    """Format one knob value the way ns-2's binding for that C++ type accepts it."""
    is_bool = isinstance(value, bool)
    if kind == "bool":
        if is_bool:
            return "true" if value else "false"
        if isinstance(value, int) and value in (0, 1):
            return "true" if value else "false"
        raise ValueError(f"{field}: {value!r} is not a boolean")
    if kind == "flag":
        if is_bool:
            return "1" if value else "0"
        if isinstance(value, int):
            return str(value)
        raise ValueError(f"{field}: {value!r} is not an integer")
    if kind == "int":
        if isinstance(value, int) and not is_bool:
            return str(value)
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        raise ValueError(f"{field}: {value!r} is not an integer")
    if kind == "real":
        if isinstance(value, (int, float)) and not is_bool:
            return _as_number_text(value, field, "number")
        raise ValueError(f"{field}: {value!r} is not a number")
    if kind == "time":
        return _seconds(parse_time(value, field))
    if kind == "isec":
        ps = parse_time(value, field)
        if ps % 10**12:
            raise ValueError(f"{field}: {value!r}: ns-2 stores this as whole seconds (C++ int)")
        return str(ps // 10**12)
    raise AssertionError(kind)


def _check_fields(table, allowed: set, where: str) -> None:
    if not isinstance(table, dict):
        raise ValueError(f"{where}: expected a table, got {table!r}")
    for key in table:
        if key not in allowed:
            prefix = f"{where}." if where else ""
            raise ValueError(f"{prefix}{key}: unknown field")


def _tcl_string(s: str) -> str:
    """Quote a string for Tcl (file paths): braces keep it literal."""
    if any(c in s for c in "{}\\\n"):
        raise ValueError(f"path {s!r} cannot be quoted for Tcl")
    return "{" + s + "}"


# ---------------------------------------------------------------------------
# Translator
# ---------------------------------------------------------------------------

def scenario_to_tcl(scenario: dict, trace_path: str, cwnd_path: str | None = None) -> str:
    """Return an ns-2.35 Tcl script building `scenario`, tracing every link to trace_path
    (and every TCP sender's cwnd_ to cwnd_path when given)."""
    _check_fields(scenario, TOP_FIELDS, "")
    profile = scenario.get("profile", "ns2")
    if profile != "ns2":
        raise ValueError(f"profile: {profile!r} has no ns-2 equivalent (only \"ns2\")")
    if "duration" not in scenario:
        raise ValueError("duration: required")
    duration = parse_time(scenario["duration"], "duration")
    if duration <= 0:
        raise ValueError("duration: must be positive")
    _check_fields(scenario.get("output", {}), OUTPUT_FIELDS, "output")
    seed = scenario.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed: {seed!r} is not an integer >= 0")
    # The seed is not passed on: tcplab's per-component streams have no ns-2
    # counterpart, and ns-2's default RNG seed keeps the oracle reproducible.

    nodes = scenario.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        raise ValueError("nodes: required, a non-empty list of names")
    node_id: dict[str, int] = {}
    for i, name in enumerate(nodes):
        if not isinstance(name, str) or not name:
            raise ValueError(f"nodes[{i}]: {name!r} is not a name")
        if name in node_id:
            raise ValueError(f"nodes[{i}]: duplicate node {name!r}")
        node_id[name] = i

    def node_ref(table, key, where):
        if key not in table:
            raise ValueError(f"{where}.{key}: required")
        name = table[key]
        if name not in node_id:
            raise ValueError(f"{where}.{key}: unknown node {name!r}")
        return node_id[name]

    global_tcp = scenario.get("tcp", {})
    _check_fields(global_tcp, set(TCP_KNOBS), "tcp")

    out: list[str] = []
    emit = out.append
    emit("# Generated by tcplab.ns2.scenario_to_tcl for ns-2.35")
    if "name" in scenario:
        emit(f"# scenario: {scenario['name']}")
    emit("set ns [new Simulator]")
    # trace-all must precede link creation: links only get trace objects if a
    # trace file is registered when they are built.
    emit(f"set tracefd [open {_tcl_string(trace_path)} w]")
    emit("$ns trace-all $tracefd")
    if cwnd_path is not None:
        emit(f"set cwndfd [open {_tcl_string(cwnd_path)} w]")
    emit("")
    emit("# nodes: ns-2 ids follow creation order = position in `nodes`")
    for name, i in node_id.items():
        emit(f"set n{i} [$ns node] ;# {name}")
    emit("")

    links = scenario.get("links")
    if not isinstance(links, list) or not links:
        raise ValueError("links: required, a non-empty list")
    for li, link in enumerate(links):
        where = f"links[{li}]"
        _check_fields(link, LINK_FIELDS, where)
        a = node_ref(link, "from", where)
        b = node_ref(link, "to", where)
        if a == b:
            raise ValueError(f"{where}.to: a link needs two different nodes")
        for key in ("bandwidth", "delay"):
            if key not in link:
                raise ValueError(f"{where}.{key}: required")
        bw = parse_rate(link["bandwidth"], f"{where}.bandwidth")
        delay = parse_time(link["delay"], f"{where}.delay")
        queue = link.get("queue", "droptail")
        if queue not in ("droptail", "red"):
            raise ValueError(f"{where}.queue: {queue!r} is not \"droptail\" or \"red\"")
        limit = link.get("queue_limit", 50)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"{where}.queue_limit: {limit!r} is not an integer >= 1")
        qtype = "RED" if queue == "red" else "DropTail"
        # bandwidth in bit/s and delay in seconds as plain numbers: ns-2 parses both.
        emit(f"$ns duplex-link $n{a} $n{b} {bw} {_seconds(delay)} {qtype}")
        emit(f"$ns queue-limit $n{a} $n{b} {limit}")
        emit(f"$ns queue-limit $n{b} $n{a} {limit}")
        red = link.get("red")
        if red is not None:
            if queue != "red":
                raise ValueError(f"{where}.red: only allowed with queue = \"red\"")
            _check_fields(red, set(RED_KNOBS), f"{where}.red")
            # Per-link knobs go on the two queue objects, not the Queue/RED class
            # (class defaults would leak into every other RED link).
            #
            # Catch: ns-2 already auto-configures RED *during* duplex-link (the
            # `$q link` call in simplex-link), from the class defaults, and writes
            # the results into thresh_/maxthresh_/q_weight_.  At `$ns run` it only
            # re-derives the ones still at their "automatic" value (0, 0, -1).  So
            # unless they are put back to automatic here, a per-link targetdelay or
            # mean_pktsize would be silently ignored. [checked on ns]
            knobs = {"thresh": 0, "maxthresh": 0, "q_weight": -1}
            knobs.update(red)
            for x, y in ((a, b), (b, a)):
                for key, value in knobs.items():
                    nsname, kind = RED_KNOBS[key]
                    val = _knob_value(kind, value, f"{where}.red.{key}")
                    emit(f"[[$ns link $n{x} $n{y}] queue] set {nsname} {val}")
    emit("")

    flows = scenario.get("flows")
    if not isinstance(flows, list) or not flows:
        raise ValueError("flows: required, a non-empty list")
    names_seen = set()
    tcp_agents = []
    for fi, flow in enumerate(flows):
        where = f"flows[{fi}]"
        _check_fields(flow, FLOW_FIELDS, where)
        fname = flow.get("name", f"flow{fi}")
        if fname in names_seen:
            raise ValueError(f"{where}.name: duplicate flow name {fname!r}")
        names_seen.add(fname)
        src = node_ref(flow, "from", where)
        dst = node_ref(flow, "to", where)
        proto = flow.get("protocol")
        if proto is None:
            raise ValueError(f"{where}.protocol: required")
        is_tcp = proto in TCP_AGENTS
        if not is_tcp and proto != "udp":
            raise ValueError(f"{where}.protocol: {proto!r} is not one of tahoe, reno, newreno, udp")

        app = flow.get("app", "ftp" if is_tcp else "cbr")
        if app not in ("ftp", "cbr"):
            raise ValueError(f"{where}.app: {app!r} is not \"ftp\" or \"cbr\"")
        if app == "ftp" and not is_tcp:
            raise ValueError(f"{where}.app: FTP needs a TCP protocol")
        if "packets" in flow:
            if app != "ftp":
                raise ValueError(f"{where}.packets: only for FTP")
            packets = flow["packets"]
            if isinstance(packets, bool) or not isinstance(packets, int) or packets < 1:
                raise ValueError(f"{where}.packets: {packets!r} is not an integer >= 1")
        if "rate" in flow and app != "cbr":
            raise ValueError(f"{where}.rate: only for CBR")

        emit(f"# flow {fi}: {fname} ({proto}/{app}) {nodes[src]} -> {nodes[dst]}")
        agent = f"agent{fi}"
        if is_tcp:
            emit(f"set {agent} [new {TCP_AGENTS[proto]}]")
        else:
            emit(f"set {agent} [new Agent/UDP]")
        emit(f"$ns attach-agent $n{src} ${agent}")

        sink = flow.get("sink")
        if is_tcp:
            sink = sink or "tcpsink"
            if sink not in SINKS:
                raise ValueError(f"{where}.sink: {sink!r} is not \"tcpsink\" or \"delack\"")
            emit(f"set sink{fi} [new {SINKS[sink]}]")
            if "delack_interval" in flow:
                if sink != "delack":
                    raise ValueError(f"{where}.delack_interval: only with sink = \"delack\"")
                iv = parse_time(flow["delack_interval"], f"{where}.delack_interval")
                emit(f"$sink{fi} set interval_ {_seconds(iv)}")
        else:
            if sink is not None:
                raise ValueError(f"{where}.sink: UDP flows use a null sink")
            if "delack_interval" in flow:
                raise ValueError(f"{where}.delack_interval: only for TCP flows")
            emit(f"set sink{fi} [new Agent/Null]")
        emit(f"$ns attach-agent $n{dst} $sink{fi}")
        emit(f"$ns connect ${agent} $sink{fi}")
        emit(f"${agent} set fid_ {fi}")

        if "packet_size" in flow:
            size = parse_size(flow["packet_size"], f"{where}.packet_size")
        else:
            size = 1000 if app == "ftp" else 210
        # TCP: packetSize_ is the payload (the wire adds 40 B).  UDP: the agent's
        # packetSize_ is a *maximum* above which it fragments each CBR message, so
        # it is set to the CBR size to send whole packets.
        emit(f"${agent} set packetSize_ {size}")

        if is_tcp:
            own = flow.get("tcp", {})
            _check_fields(own, set(TCP_KNOBS), f"{where}.tcp")
            if proto != "newreno":
                for key in own:
                    if key in NEWRENO_ONLY:
                        raise ValueError(f"{where}.tcp.{key}: only for newreno flows")
            merged = {k: v for k, v in global_tcp.items()
                      if proto == "newreno" or k not in NEWRENO_ONLY}
            merged.update(own)
            for key, value in merged.items():
                nsname, kind = TCP_KNOBS[key]
                label = f"{where}.tcp.{key}" if key in own else f"tcp.{key}"
                emit(f"${agent} set {nsname} {_knob_value(kind, value, label)}")
            tcp_agents.append(agent)
        elif "tcp" in flow:
            raise ValueError(f"{where}.tcp: only for TCP flows")

        start = parse_time(flow.get("start", 0), f"{where}.start")
        stop = parse_time(flow["stop"], f"{where}.stop") if "stop" in flow else None
        if stop is not None and stop < start:
            raise ValueError(f"{where}.stop: before start")

        appv = f"app{fi}"
        if app == "ftp":
            emit(f"set {appv} [new Application/FTP]")
            emit(f"${appv} attach-agent ${agent}")
            if "packets" in flow:
                # `produce n` = agent advance n (curseq_ = n): seqnos 0..n go out, i.e.
                # with syn_ on the 40-B SYN (seqno 0) plus n data segments. [checked on ns]
                emit(f'$ns at {_seconds(start)} "${appv} produce {flow["packets"]}"')
            else:
                emit(f'$ns at {_seconds(start)} "${appv} start"')
        else:
            rate = parse_rate(flow.get("rate", "448Kb"), f"{where}.rate")
            emit(f"set {appv} [new Application/Traffic/CBR]")
            emit(f"${appv} set packetSize_ {size}")
            emit(f"${appv} set rate_ {rate}")
            emit(f"${appv} attach-agent ${agent}")
            emit(f'$ns at {_seconds(start)} "${appv} start"')
        if stop is not None:
            emit(f'$ns at {_seconds(stop)} "${appv} stop"')
        emit("")

    if cwnd_path is not None and tcp_agents:
        emit("# cwnd_ trace of every TCP sender (one line per change)")
        for agent in tcp_agents:
            emit(f"${agent} attach $cwndfd")
            emit(f"${agent} trace cwnd_")
        emit("")

    closes = ["close $tracefd"]
    globs = "ns tracefd"
    if cwnd_path is not None:
        closes.append("close $cwndfd")
        globs += " cwndfd"
    emit("proc finish {} {")
    emit(f"    global {globs}")
    emit("    $ns flush-trace")
    for c in closes:
        emit(f"    {c}")
    emit("    exit 0")
    emit("}")
    emit(f'$ns at {_seconds(duration)} "finish"')
    emit("$ns run")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Runner
# ---------------------------------------------------------------------------

def run_ns2(scenario: dict, workdir: str, timeout: float = 600.0, ns: str | None = None,
            cwnd: bool = True) -> dict:
    """Write scenario.tcl into workdir, run ns-2 there, return the paths.

    Returns {"tcl": ..., "trace": ..., "cwnd": ... or None, "stdout": text, "stderr": text}.
    Raises NS2Error if `ns` is not installed (see conformance/install-ns2.sh),
    exits non-zero, or runs longer than `timeout` seconds.
    """
    ns = ns or shutil.which("ns")
    if not ns:
        raise NS2Error("ns-2 (`ns`) is not on PATH: run conformance/install-ns2.sh")
    os.makedirs(workdir, exist_ok=True)
    workdir = os.path.abspath(workdir)
    tcl_path = os.path.join(workdir, "scenario.tcl")
    trace_path = os.path.join(workdir, "trace.tr")
    cwnd_path = os.path.join(workdir, "cwnd.tr") if cwnd else None
    with open(tcl_path, "w") as f:
        f.write(scenario_to_tcl(scenario, trace_path, cwnd_path))
    for stale in (trace_path, cwnd_path):  # never report an old run's output
        if stale and os.path.exists(stale):
            os.remove(stale)
    try:
        proc = subprocess.run([ns, tcl_path], cwd=workdir, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise NS2Error(f"ns timed out after {timeout} s on {tcl_path}") from e
    # ns-2 often exits 0 even after a Tcl error, printing it on stderr/stdout,
    # so a missing trace is treated as failure too.
    if proc.returncode != 0 or not os.path.exists(trace_path):
        raise NS2Error(f"ns failed (exit {proc.returncode}) on {tcl_path}:\n"
                       f"{proc.stderr.strip() or proc.stdout.strip()}")
    return {"tcl": tcl_path, "trace": trace_path, "cwnd": cwnd_path,
            "stdout": proc.stdout, "stderr": proc.stderr}
