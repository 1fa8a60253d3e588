"""What the ns-2 suites' generate.py scripts share: small functions that return tcplab scenario
TOML text, the topologies several suites use, and the writing of a suite's folder.

A scenario is the header and a list of tables, each a piece of TOML text:

    scenario_toml("newreno", "reno: ...", "reno", "6s", NODES4,
                  knobs_toml("tcp", {"minrto": "1s"}), net4_links(),
                  flow_toml("tcp1", 1, "s1", "k1", "reno", start="1s"),
                  loss_toml("r1->k1", ["tcp1"], [14, 26, 28]), output_toml(tcp_header=True))

Python values become TOML values (True -> true, 0.5 -> 0.5, "6s" -> "6s", [1, 2] -> [1, 2]); a
field set to None is left out, and a dict field becomes a sub-table ([links.red], [flows.tcp]).
"""

from pathlib import Path

from tcplab.ns2scene import toml_value

NODES4 = ["s1", "s2", "r1", "k1"]                  # NodeTopology/4nodes: node ids 0..3
NODES6 = ["s1", "s2", "r1", "r2", "s3", "s4"]      # NodeTopology/6nodes: node ids 0..5


# The topologies of test-suite-tcp-init-win.tcl and its FullTcp twin: (nodes in ns-2 creation
# order, links as (from, to, bandwidth, delay, RED?)); their RED link has limit 25 both ways.
INIT_WIN_NETS = {
    "net6": (["s1", "s2", "r1", "k1"],
             [("s1", "r1", "100Mb", "5ms", False), ("s2", "r1", "100Mb", "5ms", False),
              ("r1", "k1", "10Mb", "100ms", True)]),
    "net7": (["s1", "s2", "r1", "k1"],
             [("s1", "r1", "8Mb", "5ms", False), ("s2", "r1", "8Mb", "5ms", False),
              ("r1", "k1", "800Kb", "100ms", True)]),
    "net8": (["r1", "k1", "s1", "s2"],
             [("s1", "s2", "1000Mb", "0ms", False), ("s2", "r1", "9.6Kb", "1ms", False),
              ("r1", "k1", "800Kb", "10ms", True)]),
}


class Ns2Rng:
    """ns-2's RNG (MRG32k3a, seed 1: every state word 1), for the draws a suite's Tcl makes."""

    M1, M2 = 4294967087.0, 4294944443.0

    def __init__(self):
        self.s = [1.0] * 6

    def u01(self) -> float:
        s = self.s
        p1 = 1403580.0 * s[1] - 810728.0 * s[0]
        p1 -= int(p1 / self.M1) * self.M1
        if p1 < 0:
            p1 += self.M1
        s[0], s[1], s[2] = s[1], s[2], p1
        p2 = 527612.0 * s[5] - 1370589.0 * s[3]
        p2 -= int(p2 / self.M2) * self.M2
        if p2 < 0:
            p2 += self.M2
        s[3], s[4], s[5] = s[4], s[5], p2
        return (p1 - p2) * 2.328306549295727688e-10 if p1 > p2 else (p1 - p2 + self.M1) * 2.328306549295727688e-10

    def next_random(self) -> int:
        """`$rng next-random`: rand_int(0, MAXINT)."""
        return int(2147483648 * self.u01())

    def uniform(self, a: float, b: float) -> float:
        """The Tcl `RNG instproc uniform`: a + (b - a) * next-random / 0x7fffffff."""
        return a + ((b - a) * (self.next_random() * 1.0 / 0x7fffffff))

    @classmethod
    def stream(cls, n: int) -> "Ns2Rng":
        """The n-th RNG made after `$defaultRNG seed 1` (an unseeded `new RNG` is the first when
        nothing else made one): each starts 2^127 draws after the one before (rng.cc `init`)."""
        a1 = [[2427906178, 3580155704, 949770784], [226153695, 1230515664, 3580155704],
              [1988835001, 986791581, 1230515664]]
        a2 = [[1464411153, 277697599, 1610723613], [32183930, 1464411153, 1022607788],
              [2824425944, 32183930, 2093834863]]
        s = [1] * 6
        for _ in range(n):
            s = ([sum(a * x for a, x in zip(row, s[:3])) % int(cls.M1) for row in a1]
                 + [sum(a * x for a, x in zip(row, s[3:])) % int(cls.M2) for row in a2])
        rng = cls()
        rng.s = [float(x) for x in s]
        return rng


def value(v) -> str:
    """A Python bool, number, string, list or table as a TOML value."""
    return toml_value(v)


def table_toml(header: str, fields: dict) -> str:
    """One table ("[tcp]", "[[links]]"): a `key = value` line per field, None fields left out;
    dict fields follow as sub-tables ("[links.red]"), empty ones left out."""
    name = header.strip("[]")
    lines, subs = [header], []
    for k, v in fields.items():
        if isinstance(v, dict):
            if v:
                subs.append(table_toml(f"[{name}.{k}]", v))
        elif v is not None:
            lines.append(f"{k} = {value(v)}")
    return "\n".join(lines + subs)


def tables_toml(*tables: str) -> str:
    """Tables, blank-line separated ("" tables are left out)."""
    return "\n\n".join(t for t in tables if t)


def knobs_toml(table: str, knobs: dict) -> str:
    """A knob table such as [tcp] or [tcpsink]; "" (left out of the scenario) when empty."""
    return table_toml(f"[{table}]", knobs) if knobs else ""


def link_toml(src: str, dst: str, bandwidth: str, delay: str, **fields) -> str:
    """One duplex link; fields such as queue, queue_limit, reverse_queue_limit, red={...}."""
    return table_toml("[[links]]", {"from": src, "to": dst, "bandwidth": bandwidth,
                                    "delay": delay, **fields})


def four_node_links(access: tuple[str, str], bottleneck: tuple[str, str], **fields) -> str:
    """The 4-node topologies (NODES4): s1-r1 and s2-r1 with `access` = (bandwidth, delay), then
    r1-k1 with `bottleneck` and its queue `fields`."""
    return tables_toml(link_toml("s1", "r1", *access), link_toml("s2", "r1", *access),
                       link_toml("r1", "k1", *bottleneck, **fields))


def net4_links(delay: str = "100ms", queue_limit: int = 8) -> str:
    """Topology/net4 of the single-connection suites: s1-r1, s2-r1 8 Mb/s 0 ms; r1-k1 800 kb/s."""
    return four_node_links(("8Mb", "0ms"), ("800kb", delay), queue_limit=queue_limit)


def net2_links(delay: str = "20ms", **fields) -> str:
    """Topology/net2 (NODES6): s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb `delay` with its queue
    `fields` (queue = "red", queue_limit, red={...}), s3-r2 10Mb 4ms, s4-r2 10Mb 5ms."""
    return tables_toml(link_toml("s1", "r1", "10Mb", "2ms"), link_toml("s2", "r1", "10Mb", "3ms"),
                       link_toml("r1", "r2", "1.5Mb", delay, **fields),
                       link_toml("s3", "r2", "10Mb", "4ms"), link_toml("s4", "r2", "10Mb", "5ms"))


def flow_toml(name: str, fid: int, src: str, dst: str, protocol: str, **fields) -> str:
    """One [[flows]] table; fields in the order given (sink, start, packets, tcp={...}, ...)."""
    return table_toml("[[flows]]", {"name": name, "fid": fid, "from": src, "to": dst,
                                    "protocol": protocol, **fields})


def loss_toml(link: str, flows: list[str], packets: list[int], **fields) -> str:
    """One [[losses]] table: `packets` (counted from 0) of `flows` on `link`, dropped unless
    fields say otherwise (action = "mark" or "delay", delay)."""
    return table_toml("[[losses]]", {"link": link, "flows": flows, "packets": packets, **fields})


def action_toml(at: str, flow: str, do: str, **fields) -> str:
    """One [[actions]] table: at time `at`, `do` ("start", "producemore", ...) on `flow`."""
    return table_toml("[[actions]]", {"at": at, "flow": flow, "do": do, **fields})


def output_toml(**fields) -> str:
    """[output]: ns-2's trace format, plus fields such as tcp_header or events."""
    return table_toml("[output]", {"trace": ["ns2"], **fields})


def scenario_toml(suite: str, about: str, name: str, duration: str, nodes: list[str],
                  *tables: str) -> str:
    """A whole scenario file: two comment lines (`about` describes the test), name, duration and
    nodes, then the tables, blank-line separated ("" tables are left out)."""
    head = "\n".join([
        f"# ns-2.35 test-suite-{suite}.tcl, test {about}.",
        f"# Written by conformance/ns2/{suite}/generate.py; compare with `tcplab conformance ns2`.",
        f"name = {value(name)}", f"duration = {value(duration)}", f"nodes = {value(nodes)}"])
    return tables_toml(head, *tables) + "\n"


def write_suite(folder: Path, scenarios: dict[str, str], skipped: dict[str, str]) -> None:
    """Replaces the folder's .toml files by one file per scenario ({test: text}) and a
    skipped.toml listing the tests tcplab does not run ({test: reason})."""
    assert not set(scenarios) & set(skipped), set(scenarios) & set(skipped)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.toml"):
        old.unlink()
    for test, text in scenarios.items():
        (folder / f"{test}.toml").write_text(text)
    lines = [f"# Tests of test-suite-{folder.name}.tcl that tcplab does not run, and why.",
             "# Written by generate.py.", "[skipped]"]
    lines += [f"{test} = {value(why)}" for test, why in sorted(skipped.items())]
    (folder / "skipped.toml").write_text("\n".join(lines) + "\n")
