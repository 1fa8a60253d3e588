"""Writes the tcplab scenarios of ns-2.35's test-suite-rfc793edu.tcl, one file per test.

Run from anywhere: python conformance/ns2/rfc793edu/generate.py

The suite (framework misc_simple.tcl; trace-all to all.tr with the TCP header fields) sets, for
every test: Agent/TCP precisionReduce_ false, rtxcur_init_ 6, tcpTick_ 0.1, minrto_ 0 (set to 1,
then to 0), useHeaders_ false, syn_ false, delay_growth_ false, rfc2988_ false, windowInit_ 1,
singledup_ 0 (updated_rttvar_ false is read by no C++ code in ns-2.35). Every sender is an
Agent/TCP/RFC793edu, whose own class defaults (ns-default.tcl) are syn_ true and the add793*
knobs: expbackoff and karnrtt true, the rest false. Sinks are TCPSinks.

Topologies (Topology/netN, nodes in creation order; other queues DropTail with ns-2's limit 50):
  net5: s1 s2 r1 k1 s3; s1-r1, s2-r1, s3-r1 1Mb 100ms; r1-k1 0.5Mb 100ms, limit 200 r1->k1
  net6: s1 r1 k1; s1-r1 1Mb 100ms; r1-k1 10Mb 10ms, limit 4000 r1->k1, and an ErrorModel/List
        (`$ns lossmodel`) dropping packet 60 on r1->k1
  net7: s1 r1 k1; s1-r1 1Mb 10s; r1-k1 0.9Mb 100ms, limit 4000 r1->k1
  net8: s1 r1 k1..k6 r2 d1; s1-r1 and r2-d1 10Mb 2ms; the chain r1-k1-...-k6-r2 256Kb 10ms,
        limit 30 r1->k1
The tests' plotting procs only read the agents' variables. cleanupAll halts the run.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (action_toml, flow_toml, knobs_toml, link_toml, loss_toml,  # noqa: E402
                    output_toml, scenario_toml, tables_toml, write_suite)

GLOBAL_TCP = {"precision_reduce": False, "rtxcur_init": "6s", "tcp_tick": "100ms", "minrto": "0s",
              "use_headers": False, "syn": False, "delay_growth": False, "rfc2988": False,
              "window_init": 1, "singledup": 0}
# Agent/TCP/RFC793edu's own syn_ default
RFC793EDU = {"syn": True}

NODES = {"net5": ["s1", "s2", "r1", "k1", "s3"], "net6": ["s1", "r1", "k1"],
         "net7": ["s1", "r1", "k1"],
         "net8": ["s1", "r1", "k1", "k2", "k3", "k4", "k5", "k6", "r2", "d1"]}


def links(net: str) -> str:
    if net == "net5":
        return tables_toml(*(link_toml(s, "r1", "1Mb", "100ms") for s in ("s1", "s2", "s3")),
                           link_toml("r1", "k1", "0.5Mb", "100ms", queue_limit=200,
                                     reverse_queue_limit=50))
    if net in ("net6", "net7"):
        access, bottleneck = {"net6": ("100ms", ("10Mb", "10ms")),
                              "net7": ("10s", ("0.9Mb", "100ms"))}[net]
        return tables_toml(link_toml("s1", "r1", "1Mb", access),
                           link_toml("r1", "k1", *bottleneck, queue_limit=4000,
                                     reverse_queue_limit=50))
    chain = ["r1", "k1", "k2", "k3", "k4", "k5", "k6", "r2"]
    hops = [link_toml(a, b, "256Kb", "10ms", **({"queue_limit": 30, "reverse_queue_limit": 50}
                                                 if a == "r1" else {}))
            for a, b in zip(chain, chain[1:])]
    return tables_toml(link_toml("s1", "r1", "10Mb", "2ms"), *hops,
                       link_toml("r2", "d1", "10Mb", "2ms"))


def scenario(test, about, net, duration, flows, tcp=None, tables=()) -> str:
    return scenario_toml("rfc793edu", f"{test}: {about}", test, duration, NODES[net],
                         knobs_toml("tcp", dict(GLOBAL_TCP, **(tcp or {}))), links(net), *flows,
                         *tables, output_toml(tcp_header=True))


def rtt(test, jacobson: bool) -> str:
    """net5: s1 (window_ 50) from 0.5 s; s2 and s3 (2000-byte packets) from 1.5 s to 2.5 s."""
    tcp1 = dict(RFC793EDU, window=50, **({"add793jacobsonrtt": True} if jacobson else {}))
    flows = [flow_toml("tcp1", 1, "s1", "k1", "rfc793edu", start="0.5s", tcp=tcp1)]
    flows += [flow_toml(f"tcp{n}", n, f"s{n}", "k1", "rfc793edu", start="1.5s", stop="2.5s",
                        packet_size=2000, tcp=RFC793EDU) for n in (2, 3)]
    rto = "Jacobson's RTO" if jacobson else "RFC 793's RTO"
    return scenario(test, f"{rto}; s1 from 0.5 s, s2 and s3 with 2000-byte packets 1.5-2.5 s",
                    "net5", "20.0s", flows)


def seqno(test, fastrtx: bool) -> str:
    """net6: r1 -> k1 with expbackoff, karnrtt, jacobsonrtt and slowstart; packet 60 dropped."""
    tcp = dict(RFC793EDU, add793expbackoff=True, add793karnrtt=True, add793jacobsonrtt=True,
               add793slowstart=True, **({"add793fastrtx": True} if fastrtx else {}))
    flows = [flow_toml("tcp1", 1, "r1", "k1", "rfc793edu", start="0.5s", packets=100000, tcp=tcp)]
    return scenario(test, f"slow start, Jacobson, Karn, {'with' if fastrtx else 'without'} fast "
                    "retransmit; packet 60 on r1->k1 dropped", "net6", "1.25s", flows,
                    tables=[loss_toml("r1->k1", ["tcp1"], [60])])


def rto(test, karn: bool) -> str:
    """net7 (10 s access delay): window_ 28, fast retransmit and slow start, no Jacobson."""
    tcp = dict(RFC793EDU, window=28, add793karnrtt=karn, add793expbackoff=karn, add793fastrtx=True,
               add793jacobsonrtt=False, add793slowstart=True)
    flows = [flow_toml("tcp1", 1, "s1", "k1", "rfc793edu", start="0.5s", packets=100000, tcp=tcp)]
    # rto-nokarn's init sets Agent/TCP bugfix_ss_ 0 before the agent is made
    return scenario(test, f"{'with' if karn else 'without'} Karn's sampling and exponential "
                    "backoff over a 10 s link", "net7", "50.0s", flows,
                    tcp=None if karn else {"bugfix_ss": False})


def jacobson88(test, slowstart: bool) -> str:
    """net8: window_ 32, 512-byte packets, Karn and backoff; FTP from 0."""
    tcp = dict(RFC793EDU, window=32, add793karnrtt=True, add793expbackoff=True,
               **({"add793slowstart": True} if slowstart else {}))
    flows = [flow_toml("tcp1", 1, "s1", "d1", "rfc793edu", packet_size=512, tcp=tcp)]
    return scenario(test, f"{'with' if slowstart else 'without'} slow start through eight "
                    "256 kb/s hops, 30 packets of queue at r1", "net8", "10.0s", flows)


def tests() -> dict:
    return {
        "rtt-jacobson": rtt("rtt-jacobson", True),
        "rtt-rfc793": rtt("rtt-rfc793", False),
        "seqno-nofastrtx": seqno("seqno-nofastrtx", False),
        "seqno-fastrtx": seqno("seqno-fastrtx", True),
        "rto-karn": rto("rto-karn", True),
        "rto-nokarn": rto("rto-nokarn", False),
        "jacobson88-noss": jacobson88("jacobson88-noss", False),
        "jacobson88-ss": jacobson88("jacobson88-ss", True),
    }


def main() -> None:
    write_suite(HERE, tests(), {})


if __name__ == "__main__":
    main()
