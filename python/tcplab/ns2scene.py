"""ns-2's movement and connection files as tcplab scenario fields.

ns-2 users keep scenes made by its CMU tools: setdest's movement files (`$node_(i) set X_ ...`,
`$ns_ at T "$node_(i) setdest x y speed"`, `$god_ set-dist ...`) and cbrgen's connection files
(UDP CBR blocks, or TCP blocks with FTP). Both are Tcl that a script `source`s. This module reads
the subset of Tcl those tools write and turns it into a scenario's `nodes`, `set_dist` (God's
hop counts, which ns-2's wireless trace prints), `[positions]`, `[[moves]]` and `[[flows]]`, written out as TOML (`tcplab ns2 import-scene`) for a scenario
file that adds the rest (the WLAN, the duration, the output). A line outside that subset is an
error naming the file and line.

    tcplab ns2 import-scene --movements scen-670x670-50-600-20-0 --connections cbr-50-20-4-512
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: ns-2's agent classes as tcplab protocols, and its sinks as tcplab sinks.
TCP_AGENTS = {"TCP": "tahoe", "TCP/Reno": "reno", "TCP/Newreno": "newreno", "TCP/Sack1": "sack1",
              "TCP/Fack": "fack", "TCP/Vegas": "vegas"}
SINKS = {"TCPSink": None, "TCPSink/DelAck": "delack", "TCPSink/Sack1": "sack1",
         "TCPSink/Sack1/DelAck": "sack1_delack"}
#: Application/Traffic/CBR's packetSize_ until a file sets it (ns-default.tcl).
CBR_DEFAULT_SIZE = 210


class SceneError(ValueError):
    """A line of a movement or connection file that this reader does not know."""

    def __init__(self, source: str, lineno: int, line: str, why: str):
        super().__init__(f"{source}:{lineno}: cannot read {line.strip()!r}: {why}")


NUM = r"(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)"
NODE = r"\$node_\((\d+)\)"
VAR = r"([A-Za-z_][A-Za-z0-9_]*(?:\(\d+\))?)"


def _statements(text: str, source: str):
    """The file's statements with their line numbers: comments and blank lines left out."""
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield lineno, stripped


@dataclass
class Movements:
    """A movement file: each node's starting (x, y) and its setdest moves in file order."""

    positions: dict[int, list[float]] = field(default_factory=dict)
    moves: list[dict] = field(default_factory=list)
    #: God's hop counts: (time as written, i, j, hops), "0" for those set at the start
    set_dist: list[tuple[str, int, int, int]] = field(default_factory=list)


def read_movements(text: str, source: str = "<movements>") -> Movements:
    out = Movements()
    coords: dict[int, dict[str, float]] = {}
    where: dict[int, tuple[int, str]] = {}
    for lineno, line in _statements(text, source):
        if re.fullmatch(r"set god_ \[God instance\]", line):
            continue
        m = re.fullmatch(r"\$god_ set-dist (\d+) (\d+) (\d+)", line) or re.fullmatch(
            rf"\$ns_ at {NUM} \"\$god_ set-dist (\d+) (\d+) (\d+)\"", line)
        if m:
            # God's shortest hop counts: not the network's, but ns-2's trace prints them
            at, (i, j, d) = (m[1], m.groups()[1:]) if m.re.groups == 4 else ("0", m.groups())
            out.set_dist.append((at, int(i), int(j), int(d)))
            continue
        m = re.fullmatch(rf"{NODE} set ([XYZ])_ {NUM}", line)
        if m:
            node, axis, value = int(m[1]), m[2], float(m[3])
            if axis == "Z" and value != 0.0:
                raise SceneError(source, lineno, line, "tcplab's positions are on a plane (Z_ must be 0)")
            coords.setdefault(node, {})[axis] = value
            where.setdefault(node, (lineno, line))
            continue
        m = re.fullmatch(rf"\$ns_ at {NUM} \"{NODE} setdest {NUM} {NUM} {NUM}\"", line)
        if m:
            at, node, x, y, speed = m[1], int(m[2]), float(m[3]), float(m[4]), float(m[5])
            if float(at) < 0 or speed < 0:
                raise SceneError(source, lineno, line, "a move needs a time and a speed of 0 or more")
            out.moves.append({"node": node, "at": at, "to": [x, y], "speed": speed})
            continue
        raise SceneError(source, lineno, line, "expected `$node_(i) set X_/Y_/Z_ v`, "
                         "`$ns_ at t \"$node_(i) setdest x y speed\"` or `$god_ set-dist`")
    for node, xy in coords.items():
        if "X" not in xy or "Y" not in xy:
            lineno, line = where[node]
            raise SceneError(source, lineno, line, f"node {node} has no {'Y_' if 'X' in xy else 'X_'}")
        out.positions[node] = [xy["X"], xy["Y"]]
    return out


@dataclass
class _Agent:
    cls: str
    node: int | None = None
    port: int | None = None  # the port ns-2's attach-agent gives it
    params: dict[str, str] = field(default_factory=dict)
    peer: str | None = None  # the sink it is connected to
    fid: int = 0


def read_connections(text: str, source: str = "<connections>") -> list[dict]:
    """A connection file's flows, in the order of their sending agents, as scenario flows
    (nodes by ns-2 id; `name`, `from`, `to`, `protocol`, ... as `[[flows]]` fields)."""
    agents: dict[str, _Agent] = {}
    apps: dict[str, dict] = {}  # app variable -> {cls, agent, params, size_at_interval, starts}
    ports: dict[int, int] = {}  # the next port of each node, as ns-2's attach-agent allocates them

    def attach(var: str, node: int) -> None:
        agents[var].node, agents[var].port = node, ports.get(node, 0)
        ports[node] = ports.get(node, 0) + 1

    def known(table: dict, var: str, lineno: int, line: str):
        if var not in table:
            raise SceneError(source, lineno, line, f"{var} is not defined above")
        return table[var]

    for lineno, line in _statements(text, source):
        if m := re.fullmatch(rf"set {VAR} \[new Agent/(\S+)\]", line):
            agents[m[1]] = _Agent(m[2])
        elif m := re.fullmatch(rf"\$ns_ attach-agent {NODE} \${VAR}", line):
            known(agents, m[2], lineno, line)
            attach(m[2], int(m[1]))
        elif m := re.fullmatch(rf"set {VAR} \[new Application/(\S+)\]", line):
            apps[m[1]] = {"cls": m[2], "agent": None, "params": {}, "starts": []}
        elif m := re.fullmatch(rf"\${VAR} set (\w+) (\S+)", line):
            if m[1] in apps:
                app = apps[m[1]]
                if m[2] == "interval_":
                    # CBR's `set interval_` sets rate_ from the packetSize_ of that moment
                    size = int(app["params"].get("packetSize_", CBR_DEFAULT_SIZE))
                    app["params"]["rate_"] = size * 8.0 / float(m[3])
                else:
                    app["params"][m[2]] = m[3]
            else:
                known(agents, m[1], lineno, line).params[m[2]] = m[3]
        elif m := re.fullmatch(rf"\${VAR} attach-agent \${VAR}", line):
            known(apps, m[1], lineno, line)["agent"] = m[2]
            known(agents, m[2], lineno, line)
        elif m := re.fullmatch(rf"\$ns_ connect \${VAR} \${VAR}", line):
            known(agents, m[1], lineno, line).peer = m[2]
            known(agents, m[2], lineno, line)
        elif m := re.fullmatch(rf"set {VAR} \[\$ns_ create-connection\s+(\S+) {NODE} (\S+) {NODE} (\d+)\]", line):
            src, sink = m[1], m[1] + "/sink"
            agents[src], agents[sink] = _Agent(m[2], fid=int(m[6])), _Agent(m[4])
            attach(src, int(m[3]))
            attach(sink, int(m[5]))
            agents[src].peer = sink
        elif m := re.fullmatch(rf"set {VAR} \[\${VAR} attach-source FTP\]", line):
            known(agents, m[2], lineno, line)
            apps[m[1]] = {"cls": "FTP", "agent": m[2], "params": {}, "starts": []}
        elif m := re.fullmatch(rf"\$ns_ at {NUM} \"\${VAR} start\"", line):
            known(apps, m[2], lineno, line)["starts"].append((m[1], lineno, line))
        else:
            raise SceneError(source, lineno, line, "not one of the statements cbrgen writes (UDP/CBR or "
                             "TCP/FTP blocks: new, attach-agent, set, connect, create-connection, "
                             "attach-source, `$ns_ at t \"$app start\"`)")
    flows = []
    for var, app in apps.items():
        flows.append(_flow(var, app, agents, source))
    # ns-2 gives ports in attach order; tcplab, in flow order (each sender, then its sink)
    flows.sort(key=lambda f: f.pop("_order"))
    tcplab_ports: dict[int, int] = {}
    for f in flows:
        for end, port_field in (("from", "from_port"), ("to", "to_port")):
            expected = tcplab_ports.get(f[end], 0)
            tcplab_ports[f[end]] = expected + 1
            port = f.pop("_" + port_field)
            if port != expected:
                f[port_field] = port
    return flows


def _flow(var: str, app: dict, agents: dict[str, _Agent], source: str) -> dict:
    where = f"{source}: {var}"
    agent_var = app["agent"]
    if agent_var is None:
        raise ValueError(f"{where} is attached to no agent")
    agent = agents[agent_var]
    sink = agents.get(agent.peer) if agent.peer else None
    if agent.node is None or sink is None or sink.node is None:
        raise ValueError(f"{where}: its agent {agent_var} is not attached and connected to a sink on a node")
    if len(app["starts"]) != 1:
        raise ValueError(f"{where} starts {len(app['starts'])} times (this reader takes one start)")
    start = app["starts"][0][0]
    flow = {"name": re.sub(r"\W", "", var), "fid": agent.fid, "from": agent.node, "to": sink.node}
    params = app["params"]
    if agent.cls == "UDP":
        if app["cls"] != "Traffic/CBR" or sink.cls != "Null":
            raise ValueError(f"{where}: UDP is read with a CBR source and an Agent/Null sink")
        flow["protocol"] = "udp"
        size = int(params.get("packetSize_", CBR_DEFAULT_SIZE))
        rate = float(params.get("rate_", 448_000))
        if rate != int(rate):
            raise ValueError(f"{where}: {size} B every interval_ is {rate} b/s, not a whole number of "
                             f"bits per second (tcplab's `rate`)")
        flow["packet_size"] = size
        flow["rate"] = f"{int(rate)}b"
        if float(params.get("random_", 0)) != 0:
            flow["random"] = True
        if "maxpkts_" in params:
            flow["packets"] = int(params["maxpkts_"])
        unknown = set(params) - {"packetSize_", "rate_", "random_", "maxpkts_"}
        udp_unknown = set(agent.params)
    elif agent.cls in TCP_AGENTS:
        if app["cls"] != "FTP" or sink.cls not in SINKS:
            raise ValueError(f"{where}: TCP is read with an FTP source and a TCPSink")
        flow["protocol"] = TCP_AGENTS[agent.cls]
        if SINKS[sink.cls]:
            flow["sink"] = SINKS[sink.cls]
        if "packetSize_" in agent.params:
            flow["packet_size"] = int(agent.params["packetSize_"])
        if "window_" in agent.params:
            flow["tcp"] = {"window": int(agent.params["window_"])}
        unknown = set(params)
        udp_unknown = set(agent.params) - {"packetSize_", "window_"}
    else:
        raise ValueError(f"{where}: Agent/{agent.cls} is neither UDP nor one of {', '.join(TCP_AGENTS)}")
    if unknown or udp_unknown:
        raise ValueError(f"{where}: variables this reader does not translate: {', '.join(sorted(unknown | udp_unknown))}")
    flow["start"] = f"{start}s"
    flow["_order"] = list(agents).index(agent_var)  # the order the file made the senders
    flow["_from_port"], flow["_to_port"] = agent.port, sink.port
    return flow


def scene_fields(movements: Movements | None, flows: list[dict], nodes: int | None = None) -> dict:
    """The scenario fields for these movements and flows: nodes n0..n(N-1) (N: `nodes`, or one
    past the highest node either file names), positions, moves and flows by those names."""
    used = [f["from"] for f in flows] + [f["to"] for f in flows]
    if movements is not None:
        used += list(movements.positions) + [m["node"] for m in movements.moves]
        used += [n for _, i, j, _ in movements.set_dist for n in (i, j)]
    count = nodes if nodes is not None else max(used, default=-1) + 1
    if used and max(used) >= count:
        raise ValueError(f"the files name node {max(used)}, beyond the {count} nodes")
    name = lambda i: f"n{i}"  # noqa: E731
    out: dict = {"nodes": [name(i) for i in range(count)]}
    if movements is not None:
        out["positions"] = {name(i): movements.positions[i] for i in sorted(movements.positions)}
        out["moves"] = [{**m, "node": name(m["node"]), "at": f"{m['at']}s"} for m in movements.moves]
        out["set_dist"] = [[f"{at}s", name(i), name(j), d] for at, i, j, d in movements.set_dist]
    out["flows"] = [{**f, "from": name(f["from"]), "to": name(f["to"])} for f in flows]
    return out


def toml_value(v) -> str:
    """A Python bool, number, string, list or dict as a TOML value (a dict inline)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML for {v!r}")


def to_toml(fields: dict) -> str:
    """`scene_fields`' output as TOML: `nodes`, then `[positions]`, `[[moves]]`, `[[flows]]`."""
    lines = [f"nodes = {toml_value(fields['nodes'])}"]
    if fields.get("set_dist"):
        lines += ["# God's hop counts ($god_ set-dist): [at, a, b, hops]", "set_dist = ["]
        lines += [f"    {toml_value(entry)}," for entry in fields["set_dist"]] + ["]"]
    if "positions" in fields:
        lines += ["", "[positions]"] + [f"{k} = {toml_value(v)}" for k, v in fields["positions"].items()]
    for table in ("moves", "flows"):
        for entry in fields.get(table, []):
            lines += ["", f"[[{table}]]"] + [f"{k} = {toml_value(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"
