"""Writes tcplab's own `traffic` suite: scenarios with ns-2's traffic sources (Telnet, CBR on a
TCP agent, the Exponential and Pareto on/off sources), the quiescence option and delay spikes,
which `tcplab conformance ns2 --suite traffic` runs through tcplab and, as tcplab.ns2 translates
them, through ns-2. The random sources draw from ns-2's default generator, interleaved with a
RED queue's draws on the same path, so the traces agree only if both draw the same numbers in
the same order.

Run from anywhere: python conformance/ns2/traffic/generate.py

Topology (NODES6, net2 of ns-2's suites): s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb 20ms
RED (limit 25), s3-r2 10Mb 4ms, s4-r2 10Mb 5ms.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES6, action_toml, flow_toml, knobs_toml, net2_links,  # noqa: E402
                    output_toml, table_toml, tables_toml)


def scenario(name: str, about: str, duration: str, *tables: str, seed: int = 1) -> str:
    head = "\n".join([
        f"# {about}",
        "# Written by conformance/ns2/traffic/generate.py; compare with `tcplab conformance ns2`.",
        f'name = "{name}"', f'duration = "{duration}"', f"seed = {seed}",
        "nodes = " + "[" + ", ".join(f'"{n}"' for n in NODES6) + "]"])
    return tables_toml(head, *tables) + "\n"


RED = net2_links(queue="red", queue_limit=25)


def ftp(name, fid, src, dst, protocol="reno", **fields):
    return flow_toml(name, fid, src, dst, protocol, **fields)


def scenarios() -> dict[str, str]:
    out = {}
    for seed in (1, 7):
        out[f"exponential-red-{seed}"] = scenario(
            f"exponential-red-{seed}", "Two Exponential on/off sources over UDP (64 kb/s and "
            "400 kb/s bursts) against a Reno FTP through RED", "20s",
            RED, ftp("tcp1", 0, "s1", "s3"),
            flow_toml("expoo1", 1, "s2", "s4", "udp", app="exponential", start="0.5s"),
            flow_toml("expoo2", 2, "s2", "s3", "udp", app="exponential", rate="400kb",
                      packet_size="500B", burst_time="200ms", idle_time="1s", start="1s",
                      stop="15s"),
            output_toml(), seed=seed)
    out["pareto-red"] = scenario(
        "pareto-red", "A Pareto on/off source (shape 1.4) over UDP against a Sack1 FTP through "
        "RED", "20s", RED, ftp("tcp1", 0, "s1", "s3", "sack1", sink="sack1"),
        flow_toml("pareto1", 1, "s2", "s4", "udp", app="pareto", rate="800kb",
                  packet_size="1000B", burst_time="300ms", idle_time="400ms", shape=1.4,
                  start="0.2s"),
        output_toml())
    out["telnet-qoption"] = scenario(
        "telnet-qoption", "A Telnet (exponential, mean 20 ms, then 2 ms) on a Tahoe agent with "
        "QOption_ and control_increase_, against a Reno FTP through RED", "12s",
        RED, ftp("tcp1", 0, "s1", "s3"),
        flow_toml("telnet1", 1, "s2", "s4", "tahoe", app="telnet", interval=0.02,
                  tcp={"qoption": True, "control_increase": True}),
        action_toml("4s", "telnet1", "set_interval", interval=0.002),
        action_toml("8s", "telnet1", "set_interval", interval=0.05),
        output_toml())
    out["telnet-tcplib"] = scenario(
        "telnet-tcplib", "Two tcplib Telnets (interval 0) on Newreno agents, one with the RTT "
        "counter, beside a Reno FTP through RED", "15s",
        RED, ftp("tcp1", 0, "s1", "s3"),
        flow_toml("telnet1", 1, "s2", "s4", "newreno", app="telnet", interval=0),
        flow_toml("telnet2", 2, "s4", "s1", "tahoe", app="telnet", interval=0, start="1s",
                  tcp={"qoption": True, "rtt_counter": True}),
        output_toml())
    out["cbr-tcp-spike"] = scenario(
        "cbr-tcp-spike", "CBR on a Reno agent (interval 10 ms, 2 ms from 3 s) and a Reno FTP, "
        "with delay spikes on s1->r1 and r2->s3", "10s",
        RED, ftp("tcp1", 0, "s1", "s3"),
        flow_toml("cbr1", 1, "s2", "s4", "reno", app="cbr", rate="800kb", packet_size="1000B",
                  start="0.1s"),
        action_toml("3s", "cbr1", "set_interval", interval=0.002),
        table_toml("[[delay_spikes]]", {"link": "s1->r1", "at": "2s", "length": "500ms"}),
        table_toml("[[delay_spikes]]", {"link": "r2->s3", "at": "5.25s", "length": "1s"}),
        table_toml("[[delay_spikes]]", {"link": "s1->r1", "at": "7s", "length": "250ms"}),
        output_toml())
    # a video-like trace: a 1400-byte and a 4000-byte frame (three UDP packets) every 40 ms,
    # with some jitter; 37 records, so the random start picks one of them
    records = [[(40000 if i % 5 else 25000) + 731 * (i % 7), 4000 if i % 3 == 0 else 1400]
               for i in range(37)]
    out["trace-telnet-udp"] = scenario(
        "trace-telnet-udp", "Trace-driven sources over UDP (1400-byte packets) and on a Reno "
        "agent, and a Telnet over UDP, beside a Reno FTP through RED", "12s",
        RED, ftp("tcp1", 0, "s1", "s3"),
        flow_toml("video", 1, "s2", "s4", "udp", app="trace", records=records,
                  packet_size="1400B", start="0.3s", stop="10s"),
        flow_toml("video-tcp", 2, "s4", "s1", "reno", app="trace", records=records[:11],
                  start="1s"),
        flow_toml("telnet-udp", 3, "s3", "s2", "udp", app="telnet", interval=0.01,
                  packet_size="80B", start="0.5s"),
        action_toml("6s", "telnet-udp", "set_interval", interval=0),
        output_toml(), seed=3)
    # A Delayer's link all run long: it holds the queue's next packet outside the queue, so a
    # small queue overflows one packet later; spikes while the queue is full and empty.
    for queue, limit in (("droptail", 4), ("red", 10)):
        out[f"delayer-{queue}"] = scenario(
            f"delayer-{queue}", f"A Reno FTP and 700 kb/s CBR into a 1 Mb/s link with a {queue} "
            f"queue of {limit} and delay spikes (ns-2's Delayer)", "8s",
            "\n\n".join([
                table_toml("[[links]]", {"from": "s1", "to": "r1", "bandwidth": "1Mb",
                                         "delay": "5ms", "queue": queue, "queue_limit": limit}),
                table_toml("[[links]]", {"from": "r1", "to": "s3", "bandwidth": "10Mb",
                                         "delay": "10ms"})]),
            ftp("tcp1", 0, "s1", "s3"),
            flow_toml("cbr1", 1, "s1", "s3", "udp", rate="700kb", packet_size="500B"),
            table_toml("[[delay_spikes]]", {"link": "s1->r1", "at": "2s", "length": "300ms"}),
            table_toml("[[delay_spikes]]", {"link": "s1->r1", "at": "5.5s", "length": "50ms"}),
            output_toml())
    return out


def main() -> None:
    for old in HERE.glob("*.toml"):
        if old.name != "suite.toml":
            old.unlink()
    for name, text in scenarios().items():
        (HERE / f"{name}.toml").write_text(text)


if __name__ == "__main__":
    main()
