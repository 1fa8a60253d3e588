"""Writes the tcplab scenarios of ns-2.35's test-suite-quiescent.tcl, one file per test.

Run from anywhere: python conformance/ns2/quiescent/generate.py

The suite (framework misc_simple.tcl; trace-all into all.tr, no TCP header fields) sets, for
every test: Agent/TCP precisionReduce_ false, rtxcur_init_ 6, packetSize_ 500, window_ 1000,
partial_ack_ 1 (read by Sack1 only), updated_rttvar_ false (read by no C++ code); the rest are
ns-2.35's defaults (tcplab's too). Application/Traffic/CBR packetSize_ 500.

Topology net2 (NODES6, node ids s1 s2 r1 r2 s3 s4): s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb
20ms RED with ns-2's default parameters, queue-limit 50 both ways, s3-r2 10Mb 4ms, s4-r2 10Mb 5ms.

Each test has one connection s1 -> s3, fid 0: TFRC/TFRCSink, or TCP/Sack1 with TCPSink/Sack1:
  *_onoff: FTP `produce 100` at 0, `producemore 100` at 5, to 10 s;
  *_telnet: Source/Telnet (Application/Telnet) with interval_ 0.01 started at 0, interval_ 0.001
    from 4 s, to 10 s;
  *_cbr: Application/Traffic/CBR on the agent with interval_ 0.01 (CBR's `set interval_` sets
    rate_ = packetSize_ * 8 / interval_: 400 kb/s), started at 0.01, interval_ 0.002 at 2,
    0.01 at 3, 0.002 at 8, to 15 s.
The *_CWV tests set Agent/TCP QOption_ 1 and control_increase_ 1 (class-level, in init).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES6, action_toml, flow_toml, knobs_toml, net2_links,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

GLOBAL_TCP = {"precision_reduce": False, "rtxcur_init": "6s", "window": 1000, "partial_ack": True}
CWV = {"qoption": True, "control_increase": True}


def scenario(test, about, duration, flow_fields, actions, tcp=None) -> str:
    return scenario_toml(
        "quiescent", f"{test}: {about}", test, duration, NODES6,
        knobs_toml("tcp", dict(GLOBAL_TCP, **(tcp or {}))),
        net2_links(queue="red", queue_limit=50),
        flow_toml("tcp1", 0, "s1", "s3", "sack1", packet_size=500, **flow_fields),
        *actions, output_toml())


def onoff(test) -> str:
    return scenario(test, "Sack1 s1->s3, FTP produce 100 at 0, producemore 100 at 5", "10s",
                    {"packets": 100}, [action_toml("5s", "tcp1", "producemore", packets=100)])


def telnet(test, tcp=None) -> str:
    return scenario(test, "Sack1 s1->s3, Telnet interval_ 0.01, 0.001 from 4 s"
                    + ("; QOption_ 1, control_increase_ 1" if tcp else ""), "10s",
                    {"app": "telnet", "interval": 0.01},
                    [action_toml("4s", "tcp1", "set_interval", interval=0.001)], tcp)


def cbr(test, tcp=None) -> str:
    changes = [("2s", 0.002), ("3s", 0.01), ("8s", 0.002)]
    return scenario(test, "Sack1 s1->s3, CBR interval_ 0.01 (400 kb/s) from 0.01 s, 0.002 at 2 s, "
                    "0.01 at 3 s, 0.002 at 8 s" + ("; QOption_ 1, control_increase_ 1" if tcp else ""),
                    "15s", {"app": "cbr", "rate": "400kb", "start": "0.01s"},
                    [action_toml(at, "tcp1", "set_interval", interval=v) for at, v in changes], tcp)


def tests() -> tuple[dict, dict]:
    out = {
        "tcp_onoff": onoff("tcp_onoff"),
        "tcp_telnet": telnet("tcp_telnet"),
        "tcp_telnet_CWV": telnet("tcp_telnet_CWV", CWV),
        "tcp_cbr": cbr("tcp_cbr"),
        "tcp_cbr_CWV": cbr("tcp_cbr_CWV", CWV),
    }
    tfrc = "Agent/TFRC (and TFRCSink) is not modelled"
    skipped = {t: tfrc for t in ("tfrc_onoff", "tfrc_onoff_oldcode", "tfrc_telnet", "tfrc_cbr",
                                 "tfrc_cbr_conservative")}
    return out, skipped


def main() -> None:
    write_suite(HERE, *tests())


if __name__ == "__main__":
    main()
