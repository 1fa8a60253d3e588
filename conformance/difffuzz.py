"""Differential fuzz: random wired scenarios run by tcplab and by ns-2.35, traces compared.

Each scenario comes from its own random.Random, seeded by (--seed, index), so one case can be
regenerated alone (--only INDEX). For each scenario the fuzzer validates it, runs ns-2 on the
Tcl the translator writes and tcplab on the same scenario, and compares the packet trace
(tcplab.tracediff) and the cwnd trace line by line. A disagreement is written to
OUT/<seed>-<index>/ (scenario.json, diff.txt, the ns-2 Tcl); the summary counts scenarios run,
identical, stopped by both (ns-2 ends with an error where tcplab stops the run with its reason),
ns-2 misdelivers (identical until ns-2 hands a packet to an agent of a node it is not addressed
to, which tcplab does not copy: `first_misdelivery`), different and skipped by reason.

    .venv/bin/python conformance/difffuzz.py --count 500 --seed 1 --out /tmp/difffuzz
    .venv/bin/python conformance/difffuzz.py --seed 1 --only 17 --out /tmp/difffuzz   # one case
    .venv/bin/python conformance/difffuzz.py --wlan --count 200 --seed 1 --out /tmp/fw  # WLANs
    .venv/bin/python conformance/difffuzz.py --wlan --infra --count 200 --seed 1 --out /tmp/fi  # infrastructure mode
    .venv/bin/python conformance/difffuzz.py --wlan --dsdv --count 50 --seed 1 --out /tmp/fd  # routed by DSDV
    .venv/bin/python conformance/difffuzz.py --wlan --dsdv --wired --count 50 --seed 1 --out /tmp/fc  # + wired nodes
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import tcplab
from tcplab import ns2
from tcplab.tracediff import diff_traces, first_difference

TCP_VARIANTS = ["tahoe", "reno", "newreno", "sack1", "fack", "vegas"]
FULL_VARIANTS = ["fulltcp", "fulltcp_tahoe", "fulltcp_newreno", "fulltcp_sack"]
LINUX_MODULES = ["naive_reno", "reno", "vegas", "htcp", "bic", "cubic", "hybla", "lp", "compound", "veno",
                 "yeah", "illinois", "westwood", "highspeed", "scalable"]
# Agent/TCP knobs that belong to one variant; a flow turned into TCP-Linux drops them.
VARIANT_KNOBS = {"no_fast_retrans", "partial_ack", "ss_div4", "rampdown", "v_alpha", "v_beta", "v_gamma", "rbp",
                 "rbp_scale", "rbp_rate_algorithm", "newreno_changes", "newreno_changes1",
                 "partial_window_deflation", "exit_recovery_fix", "bug_fix_ack", "bug_fix_ts"}
SINKS = ["tcpsink", "delack", "sack1", "sack1_delack"]
BANDWIDTHS = ["9.6kb", "64kb", "200kb", "500kb", "1Mb", "1.5Mb", "2Mb", "5Mb", "10Mb", "45Mb", "100Mb", "1Gb"]
DELAYS = ["0ms", "0.1ms", "1ms", "2ms", "5ms", "10ms", "20ms", "33ms", "50ms", "100ms", "250ms"]
MAX_EVENTS = 3_000_000  # tcplab's estimate, above which a scenario is skipped


# ---------------------------------------------------------------------------------------------
# Scenario generation
# ---------------------------------------------------------------------------------------------

def pick_time(r: random.Random, lo: float, hi: float) -> str:
    """A time in [lo, hi) seconds, on a millisecond grid most of the time (the usual case) and
    sometimes with microseconds (odd values stress float rounding of event times)."""
    t = r.uniform(lo, hi)
    return f"{t:.3f}s" if r.random() < 0.7 else f"{t:.6f}s"


def topology(r: random.Random) -> tuple[list[str], list[tuple[str, str]], list[str], list[str]]:
    """Nodes, links (pairs), and the nodes that make good senders and receivers."""
    kind = r.choice(["pair", "dumbbell", "dumbbell", "chain", "square", "diamond", "tree", "mesh"])
    if kind == "pair":
        return ["a", "b"], [("a", "b")], ["a"], ["b"]
    if kind == "dumbbell":
        k = r.randint(1, 3)
        srcs = [f"s{i}" for i in range(k)]
        dsts = [f"k{i}" for i in range(k)]
        links = [(s, "r1") for s in srcs] + [("r1", "r2")] + [("r2", d) for d in dsts]
        return srcs + ["r1", "r2"] + dsts, links, srcs, dsts
    if kind == "chain":
        n = r.randint(3, 6)
        nodes = [f"c{i}" for i in range(n)]
        return nodes, list(zip(nodes, nodes[1:])), nodes[:2], nodes[-2:]
    if kind == "square":
        # a ring of four: two equal-cost paths between opposite corners
        nodes = ["a", "b", "c", "d"]
        return nodes, [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")], nodes, nodes
    if kind == "diamond":
        # s reaches d over m paths of two hops each
        m = r.randint(2, 3)
        mids = [f"m{i}" for i in range(m)]
        links = [("s", x) for x in mids] + [(x, "d") for x in mids]
        if r.random() < 0.5:
            links += [("s0", "s"), ("d", "d0")]
            return ["s", "d", "s0", "d0"] + mids, links, ["s", "s0"], ["d", "d0"]
        return ["s", "d"] + mids, links, ["s"], ["d"]
    if kind == "tree":
        # a binary tree of depth 2 whose leaves also pair up, giving equal-cost alternatives
        nodes = ["t0", "t1", "t2", "l0", "l1", "l2", "l3"]
        links = [("t0", "t1"), ("t0", "t2"), ("t1", "l0"), ("t1", "l1"), ("t2", "l2"), ("t2", "l3")]
        if r.random() < 0.6:
            links += [("l1", "l2")]
        if r.random() < 0.4:
            links += [("l0", "l3")]
        return nodes, links, ["l0", "l1"], ["l2", "l3"]
    # mesh: a random spanning tree plus a few extra edges
    n = r.randint(4, 7)
    nodes = [f"x{i}" for i in range(n)]
    links = [(nodes[i], nodes[r.randrange(i)]) for i in range(1, n)]
    for _ in range(r.randint(1, 3)):
        a, b = r.sample(nodes, 2)
        if (a, b) not in links and (b, a) not in links:
            links.append((a, b))
    return nodes, links, nodes, nodes


def red_knobs(r: random.Random) -> dict:
    knobs = {}
    if r.random() < 0.3:
        knobs["bytes"] = r.random() < 0.5
    if r.random() < 0.3:
        knobs["queue_in_bytes"] = r.random() < 0.5
    if r.random() < 0.2:
        knobs["mean_pktsize"] = r.choice([100, 500, 1000, 1500])
    if r.random() < 0.4:
        th = r.choice([1, 2, 3, 5, 8, 15])
        knobs["thresh"] = th
        knobs["maxthresh"] = th * r.choice([1, 2, 3, 5])
    if r.random() < 0.3:
        knobs["q_weight"] = r.choice([0, -1, -2, 0.002, 0.02, 0.2, 1.0])
    if r.random() < 0.2:
        knobs["linterm"] = r.choice([1, 3, 10, 50])
    for k in ("wait", "gentle", "setbit", "use_mark_p", "drop_tail", "ns1_compat"):
        if r.random() < 0.2:
            knobs[k] = r.random() < 0.5
    if r.random() < 0.2:
        knobs["mark_p"] = r.choice([0.01, 0.1, 0.5, 1.0, 2.0])
    if r.random() < 0.15:
        knobs["targetdelay"] = r.choice(["1ms", "5ms", "20ms"])
    return knobs


def link(r: random.Random, a: str, b: str) -> dict:
    l = {"from": a, "to": b, "bandwidth": r.choice(BANDWIDTHS), "delay": r.choice(DELAYS)}
    if r.random() < 0.5:
        l["queue_limit"] = r.choice([1, 2, 3, 5, 8, 10, 20, 30, 100])
    if r.random() < 0.15:
        l["reverse_queue_limit"] = r.choice([1, 2, 5, 10, 50])
    if r.random() < 0.3:
        l["queue"] = "red"
        knobs = red_knobs(r)
        if knobs:
            l["red"] = knobs
    return l


def tcp_knobs(r: random.Random, variant: str | None, p: float) -> dict:
    """A random subset of ns-2 Agent/TCP knobs; each present with probability about p.
    variant None: the scenario-wide [tcp] table (no variant-only knobs)."""
    t = {}

    def maybe(key, value_fn, scale=1.0):
        if r.random() < p * scale:
            t[key] = value_fn()

    maybe("window", lambda: r.choice([1, 2, 3, 4, 8, 12, 20, 32, 64, 200]), 2)
    maybe("window_init", lambda: r.choice([1, 2, 3, 4, 6, 10, 30]), 2)
    maybe("window_init_option", lambda: r.choice([1, 2]))
    maybe("syn", lambda: r.random() < 0.5, 3)
    maybe("delay_growth", lambda: r.random() < 0.5)
    maybe("max_cwnd", lambda: r.choice([0, 1, 2, 3, 5, 8, 15]), 1.5)
    maybe("maxburst", lambda: r.choice([0, 1, 2, 3, 5]))
    maybe("tcp_tick", lambda: r.choice(["0.1ms", "1ms", "10ms", "100ms", "0.5s"]))
    maybe("rtxcur_init", lambda: r.choice(["0.2s", "0.5s", "1s", "3s", "6s"]))
    maybe("minrto", lambda: r.choice(["0s", "0.05s", "0.2s", "1s"]))
    maybe("srtt_init", lambda: r.choice([0, 1, 2]))
    maybe("rttvar_init", lambda: r.choice([0, 1, 3, 12]))
    maybe("numdupacks", lambda: r.choice([1, 2, 3, 4, 6]))
    maybe("singledup", lambda: r.choice([0, 1]))
    for k in ("bug_fix", "precision_reduce", "slow_start_restart", "use_headers", "bugfix_ss",
              "timerfix", "rfc2988", "old_ecn", "less_careful"):
        maybe(k, lambda: r.random() < 0.5, 0.5)
    maybe("ecn", lambda: r.random() < 0.6, 1.5)
    maybe("timestamps", lambda: r.random() < 0.6, 1.5)
    maybe("decrease_num", lambda: r.choice([0.3, 0.5, 0.75, 0.875]))
    maybe("increase_num", lambda: r.choice([0.5, 1.0, 2.0]))
    maybe("numdupacks_frac", lambda: r.choice([-1, 1, 2, 4, 16]), 0.5)
    maybe("tcpip_base_hdr_size", lambda: r.choice([20, 40, 52, 60]), 0.5)
    if r.random() < p * 0.5:
        t["srtt_bits"] = r.randint(1, 5)
        t["rttvar_exp"] = r.randint(0, 4)
        t["rttvar_bits"] = r.randint(1, min(8, t["srtt_bits"] + t["rttvar_exp"]))
    if r.random() < p * 0.5:
        t["maxrto"] = r.choice(["1s", "2s", "10s", "64s"])
        if "minrto" in t and t["minrto"] == "1s" and t["maxrto"] == "1s":
            pass  # equal is allowed
    if variant == "tahoe":
        maybe("no_fast_retrans", lambda: r.random() < 0.5)
    if variant == "newreno":
        for k in ("newreno_changes", "newreno_changes1", "partial_window_deflation",
                  "exit_recovery_fix", "bug_fix_ack", "bug_fix_ts"):
            maybe(k, lambda: r.random() < 0.5)
    if variant == "sack1":
        maybe("partial_ack", lambda: r.random() < 0.5, 2)
    if variant == "fack":
        maybe("ss_div4", lambda: r.random() < 0.5, 2)
        maybe("rampdown", lambda: r.random() < 0.5, 2)
    if variant == "vegas":
        if r.random() < p * 2:
            a = r.randint(0, 4)
            t["v_alpha"], t["v_beta"], t["v_gamma"] = a, a + r.randint(0, 4), r.randint(0, 3)
    if variant in ("reno", "vegas") and r.random() < 0.25:
        t["rbp"] = True
        maybe("rbp_scale", lambda: r.choice([0.25, 0.5, 0.75, 1.0, 1.5]), 3)
        if variant == "vegas":
            maybe("rbp_rate_algorithm", lambda: r.choice([1, 2]), 3)
    return t


def full_knobs(r: random.Random, variant: str, p: float) -> dict:
    """Agent/TCP knobs and a random subset of one FullTcp agent's own, each with probability
    about p."""
    t = tcp_knobs(r, None, p)

    def maybe(key, value_fn, scale=1.0):
        if r.random() < p * scale:
            t[key] = value_fn()

    maybe("segsize", lambda: r.choice([0, 100, 536, 1000, 1460]), 2)
    maybe("segsperack", lambda: r.choice([1, 2, 3]), 2)
    maybe("spa_thresh", lambda: r.choice([0, 1000, 10000]))
    maybe("tcprexmtthresh", lambda: r.choice([1, 2, 3, 4]))
    maybe("iss", lambda: r.choice([0, 1, 2144, 10000]))
    maybe("interval", lambda: r.choice(["0s", "10ms", "100ms", "200ms"]), 1.5)
    for k in ("nodelay", "data_on_syn", "dupseg_fix", "dupack_reset", "reno_fastrecov",
              "open_cwnd_on_pack", "halfclose", "nopredict"):
        maybe(k, lambda: r.random() < 0.5, 0.5)
    if variant == "fulltcp_newreno":
        maybe("recov_maxburst", lambda: r.choice([0, 1, 2, 4]), 2)
    if variant == "fulltcp_sack":
        maybe("clear_on_timeout", lambda: r.random() < 0.5)
        maybe("max_sack_blocks", lambda: r.choice([0, 1, 2, 3]))
        maybe("sack_rtx_threshmode", lambda: r.choice([0, 1, 2, 3, 4]), 2)
        maybe("sack_rtx_cthresh", lambda: r.choice([1, 2, 3]))
        maybe("sack_rtx_bthresh", lambda: r.choice([1, 536, 2000]))
    return t


def flow(r: random.Random, i: int, nodes, srcs, dsts, duration: float) -> dict:
    src = r.choice(srcs if r.random() < 0.8 else nodes)
    dst = r.choice([n for n in (dsts if r.random() < 0.8 else nodes) if n != src] or
                   [n for n in nodes if n != src])
    f = {"name": f"f{i}", "from": src, "to": dst}
    if r.random() < 0.2:
        f["protocol"] = "udp"
        f["rate"] = r.choice(["16kb", "64kb", "200kb", "448kb", "1Mb", "3Mb"])
        if r.random() < 0.6:
            f["packet_size"] = r.choice([1, 40, 100, 210, 500, 1000, 1500])
            if f["packet_size"] < 100:
                f["rate"] = r.choice(["1kb", "16kb", "64kb"])  # ns-2 is slow on floods of tiny packets
    elif r.random() < 0.2:
        # two-way: a FullTcp agent at each end, each with its own knobs
        variant = r.choice(FULL_VARIANTS)
        f["protocol"] = variant
        p = r.choice([0.05, 0.12, 0.3])
        for table in ("tcp", "peer"):
            if (knobs := full_knobs(r, variant, p)):
                f[table] = knobs
        if r.random() < 0.1:
            f["listen"] = False  # a simultaneous open, if the peer's app starts
        if r.random() < 0.2:
            f["packets"] = r.choice([1, 2, 5, 10, 30, 100])
    else:
        variant = r.choice(TCP_VARIANTS)
        f["protocol"] = variant
        if r.random() < 0.5:
            f["sink"] = r.choice(SINKS)
            if f["sink"].endswith("delack") and r.random() < 0.5:
                f["delack_interval"] = r.choice(["10ms", "50ms", "100ms", "200ms"])
        if r.random() < 0.3:
            f["tcpsink"] = {k: r.random() < 0.5 for k in
                            r.sample(["syn_immediate_ack", "rfc2581_immediate_ack", "ts_echo_rfc1323"], r.randint(1, 2))}
        if r.random() < 0.5:
            f["packet_size"] = r.choice([1, 41, 100, 536, 512, 1000, 1460, 1500, 9000])
        knobs = tcp_knobs(r, variant, r.choice([0.05, 0.12, 0.12, 0.3, 0.6]))
        if knobs:
            f["tcp"] = knobs
        if r.random() < 0.2:
            f["packets"] = r.choice([1, 2, 5, 10, 30, 100])
    if r.random() < 0.1:
        f["fid"] = r.choice([i + 5, 17, 100])
    if r.random() < 0.5:
        f["start"] = pick_time(r, 0, duration * 0.6)
    if r.random() < 0.2:
        lo = float(f.get("start", "0s")[:-1])
        f["stop"] = pick_time(r, lo + 0.01, duration * 1.2)
    return f


def linux_and_apps(seed: int, index: int, flows: list[dict]) -> None:
    """Turns some one-way TCP flows into TCP-Linux ones and gives some flows another application.
    These draws come from a stream of their own, so that the rest of each scenario is what it was
    before they were added (earlier runs' cases regenerate unchanged where these draw nothing)."""
    r = random.Random(f"difffuzz-linux-apps-{seed}-{index}")
    # two TCP-Linux globals (ns-2 holds them for all its Linux agents)
    linux_globals = {k: r.choice(v) for k, v in (("tcp_abc", [0, 1, 2]), ("tcp_max_burst", [0, 1, 3, 8]))
                     if r.random() < 0.2}
    for f in flows:
        if f["protocol"] in TCP_VARIANTS and r.random() < 0.12:
            f["protocol"] = "linux"
            tcp = {k: v for k, v in f.get("tcp", {}).items() if k not in VARIANT_KNOBS}
            tcp["ca"] = r.choice(LINUX_MODULES)
            f["tcp"] = {**tcp, **linux_globals}
            f["sink"] = r.choice(["sack1", "sack1", "sack1_delack", "tcpsink"])
            f.pop("delack_interval", None)
        if r.random() >= 0.1 or f["protocol"].startswith("fulltcp"):
            continue
        f.pop("packets", None)  # FTP's only
        if f["protocol"] == "udp":
            f["app"] = r.choice(["exponential", "pareto", "telnet"])
            if f["app"] == "telnet":
                f["interval"] = r.choice([0, 0.005, 0.05, 0.3])
                del f["rate"]
                continue
            f["rate"] = r.choice(["64kb", "200kb", "1Mb", "3Mb"])
            f["burst_time"] = r.choice(["10ms", "100ms", "500ms"])
            f["idle_time"] = r.choice(["1ms", "50ms", "500ms"])
            if f["app"] == "pareto" and r.random() < 0.5:
                f["shape"] = r.choice([1.2, 1.5, 2.5])
        else:
            f["app"] = r.choice(["telnet", "cbr"])
            if f["app"] == "telnet":
                f["interval"] = r.choice([0, 0.002, 0.02, 0.2])
            else:
                f["rate"] = r.choice(["16kb", "200kb", "1Mb", "5Mb"])


def scenario(seed: int, index: int) -> dict:
    """The index-th random scenario of a run seeded with seed."""
    r = random.Random(f"difffuzz-{seed}-{index}")
    duration = round(r.uniform(0.5, 5.0), r.choice([1, 2, 3]))
    nodes, pairs, srcs, dsts = topology(r)
    if r.random() < 0.3:
        r.shuffle(nodes)  # node ids follow this order; ties in routing go to the lower id
    s = {"name": f"fz{seed}-{index}", "duration": f"{duration}s", "nodes": nodes,
         "links": [link(r, a, b) for a, b in pairs]}
    if r.random() < 0.2:
        s["seed"] = r.randint(1, 2147483646)
    if r.random() < 0.08:
        s["ip_version"] = 6
    # A stressed scenario has more of everything: flows, losses, actions, coinciding times.
    stress = r.random() < 0.35
    nflows = r.choice([2, 3, 4, 6]) if stress else r.choice([1, 1, 2, 2, 3, 4])
    s["flows"] = [flow(r, i, nodes, srcs, dsts, duration) for i in range(nflows)]
    linux_and_apps(seed, index, s["flows"])
    if stress:
        for f in s["flows"]:
            if r.random() < 0.4:
                f["start"] = s["flows"][0].get("start", "0s")  # same-time events: order matters
            if r.random() < 0.15:
                f["fid"] = 3  # flows sharing a fid share their loss models' counts
        for l in s["links"]:
            if r.random() < 0.5:
                l["queue_limit"] = r.choice([1, 2, 3, 4, 6])
    tcp_flows = [f for f in s["flows"] if f["protocol"] != "udp"]
    if tcp_flows and r.random() < 0.3:
        s["tcp"] = tcp_knobs(r, None, 0.1) or {"window": r.choice([4, 8, 30])}
    if tcp_flows and r.random() < 0.15:
        s["tcpsink"] = {"syn_immediate_ack": r.random() < 0.5}
    if tcp_flows and r.random() < 0.1:
        # ECN end to end: capable senders and marking RED queues
        s.setdefault("tcp", {})["ecn"] = True
        for l in s["links"]:
            if r.random() < 0.7:
                l["queue"] = "red"
                l.setdefault("red", {})["setbit"] = True

    directions = [f"{l['from']}->{l['to']}" for l in s["links"]] + [f"{l['to']}->{l['from']}" for l in s["links"]]
    losses = []
    for _ in range(r.choice([1, 2, 3, 4, 5] if stress else [0, 0, 1, 1, 2, 3])):
        loss = {"link": r.choice(directions)}
        model = r.choice(["list", "list", "uniform", "ber", "periodic"])
        if model == "periodic":
            loss["model"] = "periodic"
            loss["offset"] = r.choice([0, 1, 3, 10, 40])
            loss["period"] = r.choice([5, 25, 100])
            if r.random() < 0.2:
                loss["burst"] = r.choice([2, 3])
        elif model == "list":
            # the first few packets often: losses before the first new ACK take rare paths
            first = 8 if r.random() < 0.4 else 120
            loss["packets"] = sorted(r.sample(range(0, first), r.randint(1, min(6, first))))
        elif model == "uniform":
            loss["model"] = "uniform"
            loss["rate"] = r.choice([0.001, 0.01, 0.03, 0.1, 0.3])
        else:
            loss["model"] = "ber"
            loss["ber"] = r.choice([1e-7, 1e-6, 1e-5, 5e-5])
        action = r.choice(["drop", "drop", "drop", "mark", "delay"])
        if action != "drop" or r.random() < 0.2:
            loss["action"] = action
        if action == "delay":
            loss["delay"] = r.choice(["1ms", "10ms", "50ms", "200ms"])
        if r.random() < 0.3:
            names = [f["name"] for f in s["flows"]]
            loss["flows"] = r.sample(names, r.randint(1, len(names)))
        losses.append(loss)
    if losses:
        s["losses"] = losses

    actions = []
    # Coinciding times: the flows' own starts and stops, and the end itself (where ns-2 runs
    # the actions written before its halt).
    times = [f[k] for f in s["flows"] for k in ("start", "stop") if k in f and float(f[k][:-1]) < duration]
    times.append(s["duration"])
    for _ in range(r.choice([1, 2, 3, 5, 8] if stress else [0, 0, 0, 1, 2, 3])):
        f = r.choice(s["flows"])
        ftp = f["protocol"] != "udp" and f.get("app", "ftp") == "ftp"
        full = f["protocol"].startswith("fulltcp")
        whats = ["start", "stop", "produce", "producemore"] if ftp else ["start", "stop"]
        if f.get("app") == "telnet" or (f.get("app") == "cbr" and f["protocol"] != "udp"):
            whats.append("set_interval")
        what = r.choice(whats + (["close", "advance_bytes", "start"] if full else []))
        at = r.choice(times) if r.random() < 0.25 else pick_time(r, 0, duration * 0.95)
        a = {"at": at, "flow": f["name"], "do": what}
        if full and r.random() < 0.4:
            a["end"] = "to"  # the peer's application, or its own close
        times.append(at)
        if what.startswith("produce"):
            a["packets"] = r.choice([0, 1, 3, 10, 50])
        if what == "advance_bytes":
            a["bytes"] = r.choice([1, 30, 536, 1000, 10000])
        if what == "set_interval":
            a["interval"] = r.choice([0, 0.001, 0.01, 0.1])
        actions.append(a)
    if actions:
        s["actions"] = actions

    # Now and then a feature ns-2 lacks, so that the skip path is exercised and counted.
    if r.random() < 0.03:
        lacking = r.choice(["rng", "gilbert", "rfc", "pacing"])
        if lacking == "rng":
            s["rng"] = "streams"
        elif lacking == "gilbert":
            s.setdefault("losses", []).append({"link": directions[0], "model": "gilbert",
                                               "p_good_bad": 0.01, "p_bad_good": 0.5})
        elif tcp_flows:
            f = tcp_flows[0]
            if lacking == "rfc":
                f.update(protocol="newreno", profile="rfc")
                for k in ("tcp", "sink", "peer", "listen"):
                    f.pop(k, None)
            else:
                f.setdefault("tcp", {}).pop("rbp", None)
                f["pacing"] = {"depth": 2}

    out = {}
    if r.random() < 0.2:
        out["trace_links"] = r.sample(directions, r.randint(1, min(3, len(directions))))
    if r.random() < 0.2:
        out["tcp_header"] = True
    if r.random() < 0.15:
        out["events"] = True
    if r.random() < 0.08:
        out["trace_flows"] = r.sample([f["name"] for f in s["flows"]], 1)
    if out:
        s["output"] = out
    return s


# ---------------------------------------------------------------------------------------------
# WLANs (--wlan): small ad hoc 802.11 networks of ns-2's mobile nodes (issue 42)
# ---------------------------------------------------------------------------------------------

RX_RANGE, CS_RANGE = 250.0, 550.0  # ns-2's defaults with TwoRayGround: received, sensed (m)


def wlan_positions(r: random.Random, nodes: list[str]) -> dict[str, list[float]]:
    """Distinct positions: all in one 150 m square (every station hears every other), spread
    over a field as wide as the sensing range (some sense but cannot receive each other: hidden
    terminals), or in a chain of hops 150-400 m long."""
    layout = r.choice(["close", "close", "spread", "spread", "chain"])
    positions: dict[str, list[float]] = {}
    for k, name in enumerate(nodes):
        while True:
            if layout == "close":
                lo, hi = (50.0, 200.0), (50.0, 200.0)
            elif layout == "spread":
                lo, hi = (1.0, 600.0), (1.0, 600.0)
            else:  # each station a hop from the one before
                px, py = positions[nodes[k - 1]] if k else (10.0, 300.0)
                lo, hi = (px + 150.0, px + 400.0), (max(1.0, py - 100.0), py + 100.0)
            if r.random() < 0.7:
                xy = [float(r.randint(int(lo[0]), int(lo[1]))), float(r.randint(int(hi[0]), int(hi[1])))]
            else:
                xy = [round(r.uniform(*lo), 2), round(r.uniform(*hi), 2)]
            if xy not in positions.values():
                break
        positions[name] = xy
    return positions


def wlan_flow(r: random.Random, i: int, src: str, dst: str, udp_sizes: list, windows: bool,
              start: tuple, duration: float) -> dict:
    """Flow `i` of a drawn WLAN: CBR over UDP a third of the time, else a TCP of one of the four
    variants, with a packet size from `udp_sizes` or TCP's, and (`windows`) now and then a small
    window; with chance `start[0]` a start within `start[1]` s, now and then a stop before
    `duration`'s end or after it. Its draws are the WLAN draw's, in their order: changing them
    changes every seed."""
    f: dict = {"name": f"f{i}", "from": src, "to": dst}
    if r.random() < 0.35:
        f["protocol"] = "udp"
        f["rate"] = r.choice(["16kb", "64kb", "200kb", "500kb"])
        if r.random() < 0.6:
            f["packet_size"] = r.choice(udp_sizes)
    else:
        f["protocol"] = r.choice(["tahoe", "reno", "newreno", "sack1"])
        if f["protocol"] == "sack1":
            f["sink"] = "sack1"
        if r.random() < 0.4:
            f["packet_size"] = r.choice([100, 512, 1000, 1460])
        if windows and r.random() < 0.3:
            f["tcp"] = {"window": r.choice([2, 4, 8, 32])}
    if r.random() < start[0]:
        f["start"] = pick_time(r, 0, start[1])
    if r.random() < 0.15:
        lo = float(f.get("start", "0s")[:-1])
        f["stop"] = pick_time(r, lo + 0.01, duration * 1.1)
    return f


def wlan_scenario(seed: int, index: int, infra: bool = False) -> dict:
    """The index-th random ad hoc WLAN of a run seeded with seed: 2-6 stations (now and then up
    to 20) close together, spread so that some are hidden from others, or in a chain; now and
    then moving (`setdest`, in and out of range); RTS/CTS before every frame (ns-2's default) or
    never; ns-2's retry limits or smaller ones; 1-6 TCP and CBR/UDP flows, mostly between
    stations in receive range of each other (DumbAgent sends one hop only). With `infra`, the
    same WLAN in ns-2's infrastructure mode (`infrastructure`)."""
    r = random.Random(f"difffuzz-wlan2-{seed}-{index}")
    n = r.randint(7, 20) if r.random() < 0.1 else r.randint(2, 6)
    nodes = [f"w{i}" for i in range(n)]
    duration = round(r.uniform(1.0, 4.0), r.choice([1, 2]))
    positions = wlan_positions(r, nodes)
    wlan: dict = {"nodes": nodes}
    if r.random() < 0.5:
        wlan["rts_threshold"] = 3000  # data without RTS/CTS
    elif r.random() < 0.15:
        wlan["rts_threshold"] = r.choice([100, 500, 1000, 1058, 1100])
    if r.random() < 0.15:
        wlan["queue_limit"] = r.choice([1, 2, 5, 10])
    if r.random() < 0.15:
        wlan["data_rate"] = r.choice(["2Mb", "5.5Mb", "11Mb"])
    if r.random() < 0.2:
        wlan["short_retry_limit"] = r.randint(1, 7)
    if r.random() < 0.2:
        wlan["long_retry_limit"] = r.randint(1, 4)
    s: dict = {"name": f"fw{seed}-{index}", "duration": f"{duration}s", "nodes": nodes,
               "positions": positions, "wlans": [wlan]}
    if r.random() < 0.2:
        s["seed"] = r.randint(1, 2147483646)
    if r.random() < 0.35:
        moves = []
        for _ in range(r.randint(1, 3)):
            to = [float(r.randint(1, 900)), float(r.randint(1, 700))]
            if r.random() < 0.3:
                to = [round(r.uniform(1, 900), 2), round(r.uniform(1, 700), 2)]
            moves.append({"node": r.choice(nodes), "at": pick_time(r, 0, duration), "to": to,
                          "speed": r.choice([1.0, 5.0, 10.0, 30.0, 100.0, 250.0, round(r.uniform(0.5, 150), 2)])})
        s["moves"] = moves
    if r.random() < 0.2:
        s["output"] = {"wireless_format": "new"}

    def dist(a: str, b: str) -> float:
        (ax, ay), (bx, by) = positions[a], positions[b]
        return ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5

    flows = []
    for i in range(r.choice([1, 1, 2, 2, 3, 4, 6])):
        src = r.choice(nodes)
        near = [d for d in nodes if d != src and dist(src, d) <= RX_RANGE]
        dst = r.choice(near if near and r.random() < 0.8 else [d for d in nodes if d != src])
        flows.append(wlan_flow(r, i, src, dst, [64, 210, 512, 1000, 1500], True, (0.7, duration * 0.5), duration))
    s["flows"] = flows
    losses = radio_losses(seed, index, nodes)
    if losses:
        s["losses"] = losses
    if infra:
        fields, eot = infrastructure(seed, index, nodes)
        s["wlans"][0].update(fields)
        if eot:
            s.setdefault("output", {})["eot_trace"] = True
    return s


def ext_scenario(seed: int, index: int) -> dict:
    """The index-th random WLAN of ns-2's Mac/802_11Ext and Phy/WirelessPhyExt radios: 2-6
    radios (now and then up to 20) close together, spread or in a chain; ex/802.11's radio
    settings or ns-2's defaults, capture switched on and off; two-ray ground, free space or
    Nakagami (with fading now and then, whole shapes); RTS/CTS above various thresholds; an
    Agent/PBC on (almost) every radio, broadcasting periodically and sending broadcasts and
    unicasts (to radios and to MAC addresses nobody has) of various sizes and schemes; now
    and then moving. A quarter are crowded: 8-30 radios broadcasting every 20-100 ms, whose
    frames collide, are captured and interrupt one another."""
    r = random.Random(f"difffuzz-ext-{seed}-{index}")
    crowded = r.random() < 0.25
    n = r.randint(8, 30) if crowded else r.randint(7, 20) if r.random() < 0.15 else r.randint(2, 6)
    nodes = [f"x{i}" for i in range(n)]
    duration = round(r.uniform(1.0, 3.0 if crowded else 5.0), 1)
    layout = r.choice(["close", "spread", "chain"])
    positions: dict[str, list[float]] = {}
    for k, name in enumerate(nodes):
        while True:
            if layout == "close":
                xy = [round(r.uniform(1, 40), r.choice([0, 2])), round(r.uniform(1, 40), r.choice([0, 2]))]
            elif layout == "spread":
                xy = [round(r.uniform(1, 300), r.choice([0, 2])), round(r.uniform(1, 300), r.choice([0, 2]))]
            else:
                px, py = positions[nodes[k - 1]] if k else (5.0, 50.0)
                xy = [round(px + r.uniform(20, 110), 1), round(max(1.0, py + r.uniform(-20, 20)), 1)]
            if xy not in positions.values():
                break
        positions[name] = xy
    ext: dict = {}
    if r.random() < 0.6:  # ex/802.11's radio
        ext.update({"tx_power": 0.001, "noise_floor": 2.51189e-13, "power_monitor_threshold": 2.10319e-12,
                    "sinr_preamble_capture": 2.5118, "sinr_data_capture": 100.0})
    elif r.random() < 0.5:
        ext["tx_power"] = r.choice([0.0005, 0.001, 0.01, 0.1])
    if r.random() < 0.2:
        ext["preamble_capture"] = False
    if r.random() < 0.25:
        ext["data_capture"] = True
        ext["sinr_data_capture"] = r.choice([10.0, 31.6, 100.0])
    if r.random() < 0.15:
        ext["cs_threshold"] = r.choice([6.30957e-13, 6.30957e-11])
    if r.random() < 0.1:
        ext["basic_modulation"] = r.choice(["qpsk", "qam16"])
    wlan: dict = {"nodes": nodes, "mac": "802_11Ext", "ext": ext}
    prop = r.random()
    if prop < 0.3:
        wlan["propagation"] = "nakagami"
        nak: dict = {"gamma": [round(r.uniform(1.9, 3.8), 1) for _ in range(3)], "m": [float(r.randint(1, 3)) for _ in range(3)]}
        if r.random() < 0.6:
            nak["fading"] = True
        wlan["nakagami"] = nak
    elif prop < 0.45:
        wlan["propagation"] = "free_space"
    wlan["rts_threshold"] = r.choice([3000, 3000, 2000, 500, 100, 0])
    if r.random() < 0.2:
        wlan["cw_min"] = r.choice([7, 31])
    if r.random() < 0.2:
        wlan["short_retry_limit"] = r.randint(1, 7)
    if r.random() < 0.2:
        wlan["long_retry_limit"] = r.randint(1, 4)
    if r.random() < 0.15:
        wlan["queue_limit"] = r.choice([2, 5, 10])
    agents = []
    for name in nodes:  # every radio has one: ns-2 stops at a broadcast to a node without
        a: dict = {"node": name, "payload": r.choice([50, 200, 500, 1000, 1500, 2500]),
                   "modulation": r.choice(["bpsk", "qpsk", "qam16", "qam64"])}
        if crowded or r.random() < 0.6:
            a["periodic"] = True
            interval = r.choice([0.02, 0.05, 0.1] if crowded else [0.05, 0.1, 0.2, 0.5, 1.0, round(r.uniform(0.03, 1.0), 3)])
            a["interval"] = f"{interval}s"
            a["variance"] = f"{round(r.uniform(0, interval / 2), 4)}s"
        sends = []
        for _ in range(r.choice([0, 0, 1, 3, 6])):
            send: dict = {"at": pick_time(r, 0, duration)}
            if r.random() < 0.6:
                send["to"] = r.choice(nodes) if r.random() < 0.85 else n + r.randint(0, 3)
            if r.random() < 0.3:
                send["payload"] = r.choice([20, 100, 1000, 1972, 1973, 2500])
            sends.append(send)
        if sends:
            a["sends"] = sends
        agents.append(a)
    s: dict = {"name": f"fx{seed}-{index}", "duration": f"{duration}s", "nodes": nodes, "positions": positions,
               "wlans": [wlan], "pbc": agents}
    if r.random() < 0.3:
        s["seed"] = r.randint(1, 2147483646)
    if r.random() < 0.25:
        s["moves"] = [{"node": r.choice(nodes), "at": pick_time(r, 0, duration),
                       "to": [float(r.randint(1, 400)), float(r.randint(1, 400))],
                       "speed": r.choice([1.0, 10.0, 30.0, 100.0])} for _ in range(r.randint(1, 3))]
    output: dict = {}
    if r.random() < 0.6:
        output["phy_trace"] = True
    if r.random() < 0.1:
        output["mac_trace"] = False
    if r.random() < 0.2:
        output["wireless_format"] = "new"
    if output:
        s["output"] = output
    return s


def dsdv_scenario(seed: int, index: int) -> dict:
    """The index-th random WLAN routed by ns-2's DSDV (`routing = "dsdv"`): 3-6 stations (now
    and then up to 10) in a chain or a grid whose neighbours are 150-240 m apart (in receive
    range of each other, the next but one mostly not), or spread over a field; long enough for
    routes to settle (DSDV holds a new route back for twice its settling time, 12 s at first);
    TCP and CBR flows between any two stations, so most go over several hops, some waiting in
    DSDV's queue for a route; now and then a station moves (routes break, the MAC's retry drops
    reach DSDV, neighbours time out), a short interface queue or retry limit."""
    r = random.Random(f"difffuzz-dsdv-{seed}-{index}")
    n = r.randint(3, 6) if r.random() < 0.9 else r.randint(7, 10)
    nodes = [f"w{i}" for i in range(n)]
    gap = float(r.randint(150, 240))
    layout = r.random()
    if layout < 0.4:
        xy = [(10.0 + i * gap, 300.0 + r.randint(-30, 30)) for i in range(n)]
    elif layout < 0.8:
        cols = 2 if n <= 4 else 3
        xy = [(10.0 + (i % cols) * gap, 10.0 + (i // cols) * gap) for i in range(n)]
    else:
        xy = sorted({(float(r.randint(1, 600)), float(r.randint(1, 600))) for _ in range(n)})
        nodes = nodes[:len(xy)]
    positions = {name: [x, y] for name, (x, y) in zip(nodes, xy)}
    duration = round(r.uniform(5.0, 40.0), 1)
    wlan: dict = {"nodes": nodes, "routing": "dsdv"}
    if r.random() < 0.5:
        wlan["rts_threshold"] = 3000
    if r.random() < 0.15:
        wlan["data_rate"] = r.choice(["2Mb", "11Mb"])
    if r.random() < 0.15:
        wlan["short_retry_limit"] = r.randint(1, 7)
    if r.random() < 0.15:
        wlan["long_retry_limit"] = r.randint(1, 4)
    if r.random() < 0.15:
        wlan["queue_limit"] = r.choice([2, 5, 10])
    s: dict = {"name": f"fw{seed}-{index}", "duration": f"{duration}s", "nodes": nodes,
               "positions": positions, "wlans": [wlan]}
    if r.random() < 0.2:
        s["seed"] = r.randint(1, 2147483646)
    if r.random() < 0.3:
        s["moves"] = [{"node": r.choice(nodes), "at": pick_time(r, 0, duration),
                       "to": [float(r.randint(1, 900)), float(r.randint(1, 700))],
                       "speed": r.choice([5.0, 10.0, 20.0, 50.0])}]
    if r.random() < 0.2:
        s["output"] = {"wireless_format": "new"}
    flows = []
    for i in range(r.choice([0, 1, 1, 2, 3, 4])):
        src, dst = r.sample(nodes, 2)
        flows.append(wlan_flow(r, i, src, dst, [64, 210, 512, 1000], False, (0.8, duration * 0.6), duration))
    s["flows"] = flows
    return s


def wired_dsdv_scenario(seed: int, index: int) -> dict:
    """dsdv_scenario's index-th WLAN joined to 1-3 wired nodes (`base_station`, ns-2's
    wired-cum-wireless with hierarchical addresses): its first station is the base station, the
    wired nodes hang off it in a tree, and most flows go between a wired node and a
    station, either way. Drawn from a generator of its own: the WLAN is dsdv_scenario's."""
    s = dsdv_scenario(seed, index)
    r = random.Random(f"difffuzz-wired-{seed}-{index}")
    stations = s["nodes"]
    wired = [f"c{i}" for i in range(r.randint(1, 3))]
    s["nodes"] = wired + stations  # ns-2 makes the wired nodes first or crashes
    s["wlans"][0]["base_station"] = stations[0]
    # a tree of wired nodes hanging off the base station by one link (what the translator takes)
    ends = [(stations[0], "c0")] + [(r.choice(wired[:i]), c) for i, c in enumerate(wired) if i]
    s["links"] = [{"from": a, "to": b, "bandwidth": r.choice(["1Mb", "2Mb", "10Mb", "100Mb"]),
                   "delay": r.choice(["1ms", "5ms", "10ms", "30ms"])} for a, b in ends]
    for f in s["flows"]:
        if r.random() < 0.8:
            end = "from" if r.random() < 0.5 else "to"
            f[end] = r.choice(wired)
    return s


def infrastructure(seed: int, index: int, nodes: list[str]) -> tuple[dict, bool]:
    """ns-2's infrastructure mode for a WLAN: one or two access points beaconing, the other
    stations scanning (actively or passively, at once or later; now and then one never does),
    their frames relayed by the access point they join. Drawn from a stream of its own, so the
    rest of a case is the ad hoc case's. The fields to add to the WLAN, and whether the trace
    writes `x` lines (`eot_trace`)."""
    r = random.Random(f"difffuzz-wlan-infra-{seed}-{index}")
    aps = r.sample(nodes, 1 if len(nodes) < 4 or r.random() < 0.6 else 2)
    fields: dict = {"access_points": aps, "scans": []}
    for node in nodes:
        if node in aps or r.random() < 0.1:
            continue
        scan = {"node": node, "type": r.choice(["active", "passive"])}
        if r.random() < 0.3:
            scan["at"] = pick_time(r, 0, 1.0)
        fields["scans"].append(scan)
    if r.random() < 0.3:
        fields["beacon_interval"] = r.choice(["0.05s", "0.2s", "0.5s"])
    return fields, r.random() < 0.5


def radio_losses(seed: int, index: int, nodes: list[str]) -> list[dict]:
    """Error models on a quarter of the WLANs' radios (ns-2's IncomingErrProc: every frame a
    radio senses is judged as it begins), at most one per radio. Drawn from a stream of their
    own, so the rest of a case is what it was before losses were drawn."""
    r = random.Random(f"difffuzz-wlan-loss-{seed}-{index}")
    if r.random() >= 0.25:
        return []
    losses = []
    for node in r.sample(nodes, r.randint(1, min(2, len(nodes)))):
        loss: dict = {"wlan": "wlan0", "node": node}
        model = r.choice(["uniform", "uniform", "ber", "list", "periodic"])
        loss["model"] = model
        if model == "uniform":
            loss["rate"] = r.choice([0.01, 0.05, 0.1, 0.3])
        elif model == "ber":
            loss["ber"] = r.choice([1e-6, 1e-5, 5e-5, 1e-4])
        elif model == "list":
            loss["packets"] = sorted(r.sample(range(200), r.randint(1, 8)))
        else:
            loss["period"] = r.randint(3, 40)
            loss["offset"] = r.randint(0, 5)
            if r.random() < 0.3:
                loss["burst"] = r.randint(1, 3)
        losses.append(loss)
    return losses


def error_models(seed: int, index: int, nodes: list[str]) -> list[dict]:
    """`--errmodels`: error models on 1-3 radios, incoming or outgoing or both (ns-2's
    -IncomingErrProc, -OutgoingErrProc), drawn among all kinds the translator writes, ns-2's
    bit unit with datapktsize/cntrlpktsize and MultiState (by time or by packet) included.
    Drawn from a stream of their own; they replace the case's radio losses."""
    r = random.Random(f"difffuzz-wlan-errmodels-{seed}-{index}")
    losses = []
    for node in r.sample(nodes, r.randint(1, min(3, len(nodes)))):
        for direction in r.choice([["in"], ["out"], ["in", "out"]]):
            loss: dict = {"wlan": "wlan0", "node": node, "direction": direction}
            model = r.choice(["uniform", "bits", "bits", "multistate", "multistate", "list", "periodic"])
            if model == "uniform":
                loss.update(model="uniform", rate=r.choice([0.01, 0.05, 0.1]))
            elif model == "bits":
                loss.update(model="ber", ber=r.choice([1e-6, 1e-5, 5e-5]), data_bits=r.choice([500, 1000, 1500]),
                            control_bits=r.choice([40, 80, 200]))
            elif model == "multistate":
                n = r.randint(2, 3)
                rows = []
                for _ in range(n):
                    w = [r.randint(0, 4) for _ in range(n)]
                    w[r.randrange(n)] += 1
                    rows.append([x / sum(w) for x in w])
                    rows[-1][-1] = 1.0 - sum(rows[-1][:-1])  # a row sums to 1 as ns-2 adds it up
                step = r.choice(["time", "packet"])
                states = [{"rate": r.choice([0.0, 0.0, 0.1, 0.5, 0.9])} for _ in range(n)]
                if step == "time":
                    for st in states:
                        st["period"] = r.choice(["0s", "2ms", "7.5ms", "50ms", "0.5s"])
                loss.update(model="multistate", states=states, transitions=rows, step=step)
            elif model == "list":
                loss.update(model="list", packets=sorted(r.sample(range(200), r.randint(1, 8))))
            else:
                loss.update(model="periodic", period=r.randint(3, 40), offset=r.randint(0, 5))
            losses.append(loss)
    return losses


# ---------------------------------------------------------------------------------------------
# Running both simulators
# ---------------------------------------------------------------------------------------------

def moving(seed: int, index: int, s: dict) -> None:
    """Sets stations of the drawn WLAN `s` moving: some or all of them, each through 1-4
    setdests (a pause at speed 0 now and then) at walking to driving speeds, for 8-40 s (a
    DSDV case keeps its length), half the cases in the new trace format, which prints where
    each station is on every line."""
    r = random.Random(f"difffuzz-moves-{seed}-{index}")
    nodes = s["wlans"][0]["nodes"]
    duration = max(float(s["duration"].rstrip("s")), round(r.uniform(8.0, 40.0), 1))
    s["duration"] = f"{duration}s"
    moves = []
    for node in r.sample(nodes, r.randint(1, len(nodes))):
        at = r.uniform(0.0, duration * 0.3)
        for _ in range(r.randint(1, 4)):
            to = [float(r.randint(1, 900)), float(r.randint(1, 700))]
            if r.random() < 0.3:
                to = [round(r.uniform(1, 900), 2), round(r.uniform(1, 700), 2)]
            speed = r.choice([0.0, 1.0, 2.5, 5.0, 10.0, 20.0, 33.3, 50.0])
            moves.append({"node": node, "at": f"{at:.6f}s", "to": to, "speed": speed})
            at += r.uniform(0.5, duration / 2)
            if at >= duration:
                break
    s["moves"] = moves
    if r.random() < 0.5:
        s.setdefault("output", {})["wireless_format"] = "new"


def skip_reason(e: Exception) -> str:
    """A short, countable reason: the field path without list indices, or the message's gist."""
    text = str(e)
    m = re.match(r"([\w\[\]\.]+):", text)
    if m:
        return re.sub(r"\[\d+\]", "[]", m.group(1))
    return text.splitlines()[0][:80]


def read_lines(path: str | None) -> list[str]:
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip() for line in f if line.strip()]


@dataclass(frozen=True)
class Draw:
    """What kind of scenario to draw: wired networks, or WLANs (ad hoc; in infrastructure
    mode; routed by DSDV, behind a base station with `wired`), with ns-2's defer timer instead
    of its backoff on an idle medium (`defer`: `bugFix_timer_ false`), with error models,
    incoming and outgoing, of every kind (`errmodels`), with stations on the move for longer
    (`moves`), with the WLAN's stations listed in another order than the nodes (`shuffle`)."""
    wlan: bool = False
    infra: bool = False
    dsdv: bool = False
    wired: bool = False
    defer: bool = False
    errmodels: bool = False
    moves: bool = False
    shuffle: bool = False
    ext: bool = False


def run_case(seed: int, index: int, out_dir: str, ns_timeout: float, draw: Draw = Draw()) -> dict:
    """Generate, validate and run one scenario of the kind `draw` says; returns {"status",
    "reason"?, "detail"?}."""
    t0 = time.time()
    res = _run_case(seed, index, out_dir, ns_timeout, draw)
    res["wall_s"] = time.time() - t0
    return res


def _run_case(seed: int, index: int, out_dir: str, ns_timeout: float, draw: Draw) -> dict:
    s = case_scenario(seed, index, draw)
    try:
        tcplab.validate(s)
        events = tcplab.estimate(s)["estimate"]["events"]
    except tcplab.ScenarioError as e:
        return {"status": "skipped", "reason": "invalid: " + skip_reason(e)}
    if events > MAX_EVENTS:  # ns-2 takes minutes on these (fast links with no delay)
        return {"status": "skipped", "reason": "too big for a quick fuzz"}
    work = tempfile.mkdtemp(prefix=f"difffuzz-{seed}-{index}-")
    try:
        try:
            theirs = ns2.run_ns2(s, os.path.join(work, "ns2"), timeout=ns_timeout, cwnd=True)
        except tcplab.ScenarioError as e:  # a subclass of ValueError: test it first
            return {"status": "skipped", "reason": "invalid: " + skip_reason(e)}
        except ValueError as e:
            # the translator's "no ns-2 variable/equivalent" for a knob ns-2 lacks
            return {"status": "skipped", "reason": "no ns-2 equivalent: " + skip_reason(e)}
        except ns2.NS2Error as e:
            # ns-2 stopping with an error where tcplab stops too (a script error ns-2 has, such as
            # a Telnet started with its timer armed) is agreement; where tcplab runs, a finding
            try:
                tcplab.run(s, out=os.path.join(work, "tcplab"))
            except tcplab.ScenarioError as ours:
                return {"status": "stopped by both", "detail": f"tcplab: {ours}"}
            except Exception as ours:  # both failed, tcplab by an internal error: that is the finding
                return keep(s, out_dir, seed, index, work, "tcplab failed", f"{type(ours).__name__}: {ours}")
            return keep(s, out_dir, seed, index, work, "ns-2 failed", str(e)[-2000:])
        try:
            tcplab.run(s, out=os.path.join(work, "tcplab"), trace=["ns2", "cwnd"])
        except tcplab.ScenarioError as e:  # e.g. refused as too big for the machine
            return {"status": "skipped", "reason": "tcplab refused: " + skip_reason(e)}
        except Exception as e:  # an internal error or broken invariant is a finding
            return keep(s, out_dir, seed, index, work, "tcplab failed", f"{type(e).__name__}: {e}")

        ours_trace = os.path.join(work, "tcplab", "trace.tr")
        report = diff_traces(ours_trace, theirs["trace"])
        ours_cwnd = read_lines(os.path.join(work, "tcplab", "cwnd.tr"))
        their_cwnd = read_lines(theirs["cwnd"])
        details = []
        if not report.identical:
            details.append(
                f"trace: {report.equal_prefix} lines agree (tcplab {report.lines_a} lines, ns-2 {report.lines_b}),"
                f" then tcplab line {report.first_diff_a}, ns-2 line {report.first_diff_b}:\n"
                f"  tcplab: {report.line_a}\n  ns-2:   {report.line_b}")
        differ = first_difference(ours_cwnd, their_cwnd)
        if differ is not None:
            k, ours, ns2s = differ  # a line is None past its file's end
            details.append(
                f"cwnd: {k} lines agree (tcplab {len(ours_cwnd)} lines, ns-2 {len(their_cwnd)}), then line {k + 1}:\n"
                f"  tcplab: {ours or '<end of file>'}\n  ns-2:   {ns2s or '<end of file>'}")
        if not details:
            return {"status": "identical", "lines": report.compared}
        # (hierarchical addresses are no node ids: the test would take every receipt for one)
        misdelivered = None if draw.wired else first_misdelivery(theirs["trace"])
        if misdelivered is not None and report.first_diff_b is not None and report.first_diff_b >= misdelivered:
            return {"status": "ns-2 misdelivers", "lines": report.equal_prefix}
        kind = "+".join(d.split(":")[0] for d in details)
        return keep(s, out_dir, seed, index, work, f"different ({kind})", "\n".join(details))
    finally:
        shutil.rmtree(work, ignore_errors=True)


# An agent's receipt in ns-2's wireless trace, old format and new: the node, the IP destination.
AGENT_RECEIPT = (re.compile(r"^r \S+ _(\d+)_ AGT .*?------- \[\d+:\d+ (-?\d+):"),
                 re.compile(r"^r -t \S+ -Hs (\d+) .*-Nl AGT .*-Id (-?\d+)\."))


def first_misdelivery(trace: str) -> int | None:
    """The line (from 1) of ns-2's first agent receipt at a node the packet is not addressed to.

    In infrastructure mode an access point relays a frame from a station outside every BSS to
    MAC 0 (its `dh_3a` is a fresh header's 0: wifi/infra.rs), and the node there takes it:
    DumbAgent hands up whatever the MAC passes (dumb-agent.cc asserts the packet is for the node,
    and Debian's build compiles the assert out), to the agent on the port the packet names. What
    that agent then does with another flow's packet is no model; tcplab does not copy it.
    """
    with open(trace, errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.startswith("r "):
                continue
            for pattern in AGENT_RECEIPT:
                m = pattern.match(line)
                if m and m.group(2) != "-1" and m.group(1) != m.group(2):
                    return n
    return None


def case_scenario(seed: int, index: int, draw: Draw) -> dict:
    """The index-th scenario of the kind `draw` asks for."""
    if draw.ext:
        s = ext_scenario(seed, index)
    elif draw.wired:
        s = wired_dsdv_scenario(seed, index)
    elif draw.dsdv:
        s = dsdv_scenario(seed, index)
    else:
        s = wlan_scenario(seed, index, draw.infra) if draw.wlan else scenario(seed, index)
    if draw.defer:
        s["wlans"][0]["backoff_when_idle"] = False
    if draw.errmodels:
        s["losses"] = error_models(seed, index, s["wlans"][0]["nodes"])
    if draw.moves:
        moving(seed, index, s)
    if draw.shuffle:
        # the WLAN lists its stations in any order; ns-2's channel keeps them in creation order
        stations = list(s["wlans"][0]["nodes"])  # a copy: the draw may share the list with `nodes`
        random.Random(f"difffuzz-shuffle-{seed}-{index}").shuffle(stations)
        s["wlans"][0]["nodes"] = stations
    return s


def keep(s: dict, out_dir: str, seed: int, index: int, work: str, status: str, detail: str) -> dict:
    """Write a disagreement where it can be looked at: the scenario, what differs, the Tcl."""
    prefix = "wlan-" if s["name"].startswith("fw") else "ext-" if s["name"].startswith("fx") else ""
    case = os.path.join(out_dir, prefix + f"{seed}-{index}")
    os.makedirs(case, exist_ok=True)
    with open(os.path.join(case, "scenario.json"), "w") as f:
        json.dump(s, f, indent=1)
        f.write("\n")
    with open(os.path.join(case, "diff.txt"), "w") as f:
        f.write(f"{status}\n{detail}\n")
    tcl = os.path.join(work, "ns2", "scenario.tcl")
    if os.path.exists(tcl):
        shutil.copy(tcl, os.path.join(case, "scenario.tcl"))
    return {"status": "different" if status.startswith("different") else status, "detail": detail, "case": case}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=100, help="scenarios to generate")
    p.add_argument("--seed", type=int, default=1, help="the run's seed")
    p.add_argument("--first", type=int, default=0, help="index of the first scenario")
    p.add_argument("--only", type=int, help="run just this index (regenerates one case)")
    p.add_argument("--out", help="directory for disagreements and the summary (required unless --print)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: one per core)")
    p.add_argument("--ns-timeout", type=float, default=120.0, help="seconds ns-2 may take per case")
    p.add_argument("--print", action="store_true", help="print the scenarios' JSON and stop")
    p.add_argument("--wlan", action="store_true", help="draw ad hoc 802.11 WLANs instead of wired networks")
    p.add_argument("--infra", action="store_true",
                   help="with --wlan: the same WLANs in ns-2's infrastructure mode (access points, scans)")
    p.add_argument("--dsdv", action="store_true",
                   help="with --wlan: chains and grids of 3-6 stations routed by ns-2's DSDV, flows over several hops")
    p.add_argument("--wired", action="store_true",
                   help="with --wlan --dsdv: the first station a base station with 1-3 wired nodes behind it")
    p.add_argument("--defer", action="store_true",
                   help="with --wlan (ad hoc): ns-2's defer timer on an idle medium (bugFix_timer_ false)")
    p.add_argument("--errmodels", action="store_true",
                   help="with --wlan: every case's radios get error models, incoming and outgoing, of every kind"
                        " (ns-2's bit unit and MultiState included), instead of a quarter's incoming ones")
    p.add_argument("--moves", action="store_true",
                   help="with --wlan: stations on the move in every case, several setdests each, for 8-40 s")
    p.add_argument("--shuffle", action="store_true",
                   help="with --wlan: the WLAN lists its stations in a shuffled order")
    p.add_argument("--ext", action="store_true",
                   help="with --wlan: WLANs of ns-2's Mac/802_11Ext and Phy/WirelessPhyExt radios with Agent/PBC"
                        " traffic, over two-ray ground, free space or Nakagami")
    args = p.parse_args(argv)
    if args.shuffle and not args.wlan:
        p.error("--shuffle reorders a WLAN's stations: add --wlan")
    if args.moves and not args.wlan:
        p.error("--moves moves stations: add --wlan")
    if args.errmodels and not args.wlan:
        p.error("--errmodels puts error models on radios: add --wlan")
    if args.wired and not args.dsdv:
        p.error("--wired joins a DSDV WLAN to wired nodes: add --wlan --dsdv")
    if (args.infra or args.dsdv) and not args.wlan:
        p.error("--infra and --dsdv draw WLANs: add --wlan")
    if args.infra and args.dsdv:
        p.error("--dsdv routes ad hoc WLANs: not with --infra")
    if args.defer and (args.infra or not args.wlan):
        p.error("--defer draws ad hoc WLANs: add --wlan, without --infra")
    if args.ext and (not args.wlan or args.infra or args.dsdv or args.defer or args.errmodels):
        p.error("--ext draws its own WLANs: add --wlan, without --infra, --dsdv, --defer or --errmodels")
    draw = Draw(args.wlan, args.infra, args.dsdv, args.wired, args.defer, args.errmodels, args.moves, args.shuffle,
                args.ext)

    indices = [args.only] if args.only is not None else list(range(args.first, args.first + args.count))
    if args.print:
        for i in indices:
            print(json.dumps(case_scenario(args.seed, i, draw)))
        return 0
    if not args.out:
        p.error("--out is required to run the scenarios")
    os.makedirs(args.out, exist_ok=True)
    jobs = max(1, args.jobs)

    counts, reasons, findings = Counter(), Counter(), []
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_case, args.seed, i, args.out, args.ns_timeout, draw): i for i in indices}
        for n, fut in enumerate(futures, 1):
            i = futures[fut]
            try:
                res = fut.result()
            except Exception as e:  # the harness itself failed on this case
                res = {"status": "harness error", "detail": f"{type(e).__name__}: {e}"}
            counts[res["status"]] += 1
            if res.get("wall_s", 0) > 30:  # slow cases make the fuzz slow: worth knowing
                print(f"[{i}] slow: {res['wall_s']:.0f} s", flush=True)
            if res["status"] == "skipped":
                reasons[res["reason"]] += 1
            elif res["status"] not in ("identical", "stopped by both", "ns-2 misdelivers"):
                findings.append((i, res))
                first = res.get("detail", "").splitlines()
                print(f"[{i}] {res['status']}: {res.get('case', '')}\n    " + "\n    ".join(first[:3]), flush=True)
            if n % 100 == 0:
                print(f"... {n}/{len(indices)} in {time.time() - t0:.0f} s: {dict(counts)}", flush=True)

    ran = sum(counts.values()) - counts["skipped"]
    summary = {"seed": args.seed, "wlan": args.wlan, "ext": args.ext, "infra": args.infra, "dsdv": args.dsdv,
               "defer": args.defer,
               "errmodels": args.errmodels, "moves": args.moves, "shuffle": args.shuffle,
               "generated": len(indices), "run": ran,
               "identical": counts["identical"], "stopped_by_both": counts["stopped by both"],
               "ns2_misdelivers": counts["ns-2 misdelivers"],
               "different": counts["different"],
               "ns2_failed": counts["ns-2 failed"], "tcplab_failed": counts["tcplab failed"],
               "harness_errors": counts["harness error"], "skipped": counts["skipped"],
               "skipped_by_reason": dict(reasons.most_common()),
               "cases": [f"{args.seed}-{i}" for i, _ in findings],
               "wall_s": round(time.time() - t0, 1)}
    kind = ("defer-" if args.defer else "") + (
        "wlan-ext-" if args.ext else "wlan-dsdv-wired-" if args.wired else "wlan-dsdv-" if args.dsdv else "wlan-infra-" if args.infra
        else "wlan-" if args.wlan else "")
    kind += ("err-" if args.errmodels else "") + ("moves-" if args.moves else "") + ("shuffle-" if args.shuffle else "")
    with open(os.path.join(args.out, f"summary-{kind}{args.seed}-{indices[0]}.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"seed {args.seed}: generated {len(indices)}, run {ran}, identical {counts['identical']}, "
          f"stopped by both {counts['stopped by both']}, ns-2 misdelivers {counts['ns-2 misdelivers']}, "
          f"different {counts['different']}, "
          f"ns-2 failed {counts['ns-2 failed']}, "
          f"tcplab failed {counts['tcplab failed']}, harness errors {counts['harness error']}, "
          f"skipped {counts['skipped']} in {summary['wall_s']} s")
    for reason, k in reasons.most_common():
        print(f"  skipped {k}: {reason}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
