"""Writes the tcplab scenarios of ns-2.35's test-suite-rbp.tcl (rate-based pacing after idle).

Run from anywhere: python conformance/ns2/rbp/generate.py

The suite's TestScale (client-count 1, experiment-trials 3): a server s behind router bs, a
800 kb/s 100 ms bottleneck bs-bc, one client cs0 behind bc (10 Mb/s 1 ms access, every queue
10 packets; node ids cs0 0, bc 1, bs 2, s 3). One connection s -> cs0 (fid 0, TCPSink/DelAck)
with window_ 32 and restart_bugfix_ 1 fetches a "web page" of 10 packets per trial: FTP
`produce` 10, 20, 30 at times 10, 30 and 50 s plus a jitter drawn from a second generator,
`[new RNG]` seeded 1, one `next-random` burnt, then `uniform 0 3` per fire, minus 3/2 (Tcl
integer division: 1). The run lasts (3 + 2) * 20 s; only bs->bc and bs->s are traced, into
out.tr (suite.toml says so).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (Ns2Rng, action_toml, flow_toml, knobs_toml, link_toml, output_toml,  # noqa: E402
                    scenario_toml, write_suite)

# The suite's class-level settings.
TCP = {"precision_reduce": False, "rtxcur_init": "6s", "tcp_tick": "100ms", "rfc2988": False,
       "minrto": "1s", "use_headers": False, "window_init": 1, "singledup": 0, "syn": False,
       "delay_growth": False}
TESTS = {  # test: (protocol, RBP, slow_start_restart, rbp_rate_algorithm)
    "reno_slow_start_restart": ("reno", False, True, 1),
    "reno_no_slow_start_restart": ("reno", False, False, 1),
    "vegas_slow_start_restart": ("vegas", False, True, 1),
    "vegas_no_slow_start_restart": ("vegas", False, False, 1),
    "reno_pacing": ("reno", True, True, 1),
    "vegas_pacing_rate": ("vegas", True, True, 1),
    "vegas_pacing_cwnd": ("vegas", True, True, 2),
}


def fire_times() -> list[float]:
    rng = Ns2Rng()
    rng.next_random()
    return [(base + rng.uniform(0, 3) - 3 // 2) * 1 for base in (10, 30, 50)]


def scenario(test: str) -> str:
    protocol, rbp, ssr, alg = TESTS[test]
    tcp = {"window": 32, "slow_start_restart": ssr}
    if rbp:
        tcp |= {"rbp": True, "rbp_scale": 0.75} | ({"rbp_rate_algorithm": alg} if protocol == "vegas" else {})
    fires = [action_toml(repr(t), "tcp", "produce", packets=10 * (i + 1)) for i, t in enumerate(fire_times())]
    return scenario_toml(
        "rbp", f"{test}: {protocol}{'/RBP' if rbp else ''}, slow_start_restart_ {ssr}", test, "100s",
        ["cs0", "bc", "bs", "s"],
        knobs_toml("tcp", TCP), knobs_toml("tcpsink", {"syn_immediate_ack": False}),
        link_toml("s", "bs", "10Mb", "1ms", queue_limit=10),
        link_toml("bs", "bc", "800kb", "100ms", queue_limit=10),
        link_toml("cs0", "bc", "10Mb", "1ms", queue_limit=10),
        flow_toml("tcp", 0, "s", "cs0", protocol, sink="delack", tcp=tcp),
        *fires,
        output_toml(trace_links=["bs->bc", "bs->s"]))


def main() -> None:
    write_suite(HERE, {t: scenario(t) for t in TESTS}, {})
    (HERE / "suite.toml").write_text("# The suite's tests trace two links into out.tr (trace-queue), not all.tr.\n"
                                     'trace = "out.tr"\n')


if __name__ == "__main__":
    main()
