"""Writes the tcplab scenarios of ns-2.35's test-suite-full.tcl (two-way FullTcp).

Run from anywhere: python conformance/ns2/full/generate.py

What the suite does:
* Globals: tcpTick_ 0.1, rfc2988_ false, precisionReduce_ false, rtxcur_init_ 6.0,
  updated_rttvar_ false (ns-2's default), useHeaders_ false, windowInit_ 1, singledup_ 0,
  minrto_ 0; all.tr traces every link (show_tcphdr_ 1: ackno, flags, header length).
* Topology net0: s1-r1 and s2-r1 8Mb 5ms, r1-k1 800Kb 100ms, queue limit 6 both ways.
  net0-lossy adds an ErrorModel/Periodic (packets, offset_ 1, period_ 25) at the head of
  r1 -> k1, bound to fid 0, which each test sets.
* Each test: a FullTcp agent on s1 (src) and one on k1 (sink), fid 0, `$ns connect`ed; the
  sink usually listens; FTP, advance-bytes or close at given times; src and sink variables as
  the test sets them (all before `$ns run`).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, action_toml, flow_toml, four_node_links, knobs_toml, output_toml,  # noqa: E402
                    scenario_toml, table_toml, write_suite)

GLOBALS = {"tcp_tick": "100ms", "rfc2988": False, "precision_reduce": False, "rtxcur_init": "6s",
           "use_headers": False, "window_init": 1, "singledup": 0, "minrto": "0s"}
# the settings most tests give src: a window of 100, delay_growth_, a 500 ms tick
SLOW_TICK = {"window": 100, "delay_growth": True, "tcp_tick": "500ms"}


def periodic(offset: float, period: float = 25.0, **fields) -> str:
    """net0-lossy's error model on r1 -> k1, as the test sets it."""
    return table_toml("[[losses]]", {"link": "r1->k1", "flows": ["tcp"], "model": "periodic",
                                     "offset": offset, "period": period, **fields})


def test(name: str, about: str, duration: str, *, tcp: dict, peer: dict | None = None,
         listen: bool = True, start: str | None = None, actions: tuple = (),
         loss: str = "", app: dict | None = None) -> str:
    links = four_node_links(("8Mb", "5ms"), ("800kb", "100ms"), queue_limit=6)
    flow = flow_toml("tcp", 0, "s1", "k1", "fulltcp", **(app or {}), start=start,
                     listen=None if listen else False, tcp=tcp, peer=peer or {})
    acts = [action_toml(at, "tcp", do, **fields) for at, do, fields in actions]
    return scenario_toml("full", f"{name}: {about}", name, duration, NODES4,
                         knobs_toml("tcp", GLOBALS), links, flow, loss, *acts,
                         output_toml(tcp_header=True))


def scenarios() -> dict[str, str]:
    w100 = {"window": 100}
    lossy = dict(duration="20s", tcp={"window": 100, "delay_growth": True, "tcp_tick": "10ms"},
                 start="700ms")
    s = {
        "full": test("full", "one-way FTP", "6s", tcp=w100, start="0s"),
        "close": test("close", "produce 50, close at 5.5 s", "6s", tcp=w100,
                      actions=(("0s", "produce", {"packets": 50}), ("5.5s", "close", {}))),
        "twoway": test("twoway", "FTP both ways, the sink's from 3 s", "6s", tcp=w100,
                       peer={"iss": 2144}, start="0s", actions=(("3s", "start", {"end": "to"}),)),
        "twoway1": test("twoway1", "FTP both ways, the sink's from 1.9 s", "6s", tcp=w100,
                        peer={"iss": 2144, "window": 100}, start="0s",
                        actions=(("1.9s", "start", {"end": "to"}),)),
        # QUIET: the second FTP starts at 1 s, not at a random second
        "twowayrandom": test("twowayrandom", "FTP both ways, the sink's from 1 s", "6s", tcp=w100,
                             peer={"iss": 2144, "window": 100}, start="0s",
                             actions=(("1s", "start", {"end": "to"}),)),
        "delack": test("delack", "the sink ACKs every 2 segments", "6s", tcp=w100,
                       peer={"segsperack": 2}, start="0s"),
        "iw=4": test("iw=4", "initial window 4", "6s",
                     tcp={**SLOW_TICK, "window_init": 4}, start="0s"),
        "droppedsyn": test("droppedsyn", "the SYN lost", loss=periodic(1.0), **lossy),
        "droppedfirstseg": test("droppedfirstseg", "the first data segment lost",
                                loss=periodic(3.0), **lossy),
        "droppedsecondseg": test("droppedsecondseg", "the second data segment lost",
                                 loss=periodic(4.0), **lossy),
        "simul-open": test("simul-open", "both ends open at once", "9s", tcp=SLOW_TICK,
                           peer=SLOW_TICK, listen=False, start="700ms",
                           actions=(("700ms", "start", {"end": "to"}),), loss=periodic(20.0)),
        "simul-close": test("simul-close", "both ends close at once", "9s", tcp=SLOW_TICK,
                            peer={**SLOW_TICK, "iss": 10000}, listen=False, start="700ms",
                            actions=(("900ms", "start", {"end": "to"}), ("1.6s", "close", {}),
                                     ("1.6s", "close", {"end": "to"}))),
    }
    for name, offset, about in [("droppednearfin", 7.0, "a segment near the FIN lost"),
                                ("droppedlastseg", 9.0, "the last segment lost"),
                                ("droppedfin", 10.0, "the FIN lost")]:
        s[name] = test(name, about, "10s", tcp=SLOW_TICK, start="700ms",
                       actions=(("1.5s", "close", {}),), loss=periodic(offset, 100.0))
    for name, offset, about in [("droppedretransmit", 62.0, "a retransmission lost"),
                                ("droppednearretransmit", 63.0, "a segment after a loss lost"),
                                ("droppedfastrexmit", 61.0, "the fast retransmission lost")]:
        s[name] = test(name, about, "10s", tcp=SLOW_TICK, start="700ms", loss=periodic(offset, 100.0))
    for name, offset, period in [("ecn1", 10.0, 30.0), ("ecn2", 130.0, 100.0)]:
        s[name] = test(name, "ECN marks instead of drops", "10s", tcp={**SLOW_TICK, "ecn": True},
                       peer={"ecn": True}, start="700ms",
                       loss=periodic(offset, period, action="mark"))
    s["smallpkts"] = test("smallpkts", "advance-bytes 30, then 300; 200 ms delayed ACKs", "10s",
                          tcp=SLOW_TICK, peer={"interval": "200ms"},
                          actions=(("500ms", "advance_bytes", {"bytes": 30}),
                                   ("750ms", "advance_bytes", {"bytes": 300})))
    for name, ssr in [("SSR", False), ("SSR2", True)]:
        s[name] = test(name, f"slow_start_restart_ {str(ssr).lower()}, 10000 bytes twice", "10s",
                       tcp={**SLOW_TICK, "slow_start_restart": ssr},
                       actions=(("500ms", "advance_bytes", {"bytes": 10000}),
                                ("5s", "advance_bytes", {"bytes": 10000})))
    # Telnet with interval_ 0: tcplib's interarrival times; each message one segment (sendmsg of
    # the agent's size())
    telnet = {"app": "telnet", "interval": "0ms"}
    s["telnet"] = test("telnet", "Telnet (tcplib), the sink ACKs every 3 segments of 4192 B or 200 ms",
                       "10s", tcp=SLOW_TICK, peer={"interval": "200ms", "segsize": 4192, "segsperack": 3},
                       start="500ms", app=telnet)
    s["telnet2"] = test("telnet2", "Telnet (tcplib), 536-byte segments, the sink ACKs every 3 or 600 ms",
                        "10s", tcp={**SLOW_TICK, "segsize": 536}, start="500ms", app=telnet,
                        peer={"interval": "600ms", "segsize": 536, "segsperack": 3})
    s["tsopt"] = test("tsopt", "timestamps", "10s", tcp={**SLOW_TICK, "timestamps": True},
                      peer={"timestamps": True},
                      actions=(("500ms", "advance_bytes", {"bytes": 100000}),))
    s["winlimited"] = test("winlimited", "a window of 5", "10s",
                           tcp={**SLOW_TICK, "window": 5},
                           actions=(("500ms", "advance_bytes", {"bytes": 100000}),))
    return s


SKIPPED: dict[str, str] = {}


def main() -> None:
    write_suite(HERE, scenarios(), SKIPPED)


if __name__ == "__main__":
    main()
