"""Emulation (tcplab emulate): real Linux hosts in network namespaces exchange packets through
the simulated network in real time. Run as root, as CI runs; skipped elsewhere."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("ethtool"),
    reason="emulation needs root, ip and ethtool",
)

RATE = 10e6
DELAY = 0.020
# Host names end in this process's tag, so that two test runs on one machine (CI beside a
# developer's) do not collide: a host's namespace is tl-NAME, and a run refuses names another
# run holds.
TAG = str(os.getpid() % 100000)


def host(name: str) -> str:
    return name + TAG


def ns(name: str) -> str:
    """The namespace of host `name`."""
    return "tl-" + host(name)


def ns_var(name: str) -> str:
    """The shell variable that names host `name`'s namespace in an emulation's commands."""
    return "$TCPLAB_NS_" + host(name).upper()


def scenario(tmp_path: Path, names=("ha", "hb"), duration="60s", queue=100) -> Path:
    a, b = map(host, names)
    text = f"""
name = "emu"
duration = "{duration}"
nodes = ["a", "b"]
links = [{{ from = "a", to = "b", bandwidth = "10Mb", delay = "20ms", queue_limit = {queue} }}]

[[hosts]]
name = "{a}"
node = "a"
address = "10.0.1.2/24"

[[hosts]]
name = "{b}"
node = "b"
address = "10.0.2.2/24"
"""
    path = tmp_path / f"emu-{a}.toml"
    path.write_text(text)
    return path


def tcplab_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "tcplab", *args]


def netns() -> set[str]:
    d = Path("/run/netns")
    return {p.name for p in d.iterdir()} if d.exists() else set()


# What runs inside the emulation (as its `-- CMD`): ping from ha to hb, then a bulk TCP
# transfer from ha to hb with Python sockets, measured at the receiver.
TRANSFER = textwrap.dedent(r'''
    import json, os, re, socket, subprocess, sys, time
    out, ha, hb = sys.argv[1], os.environ[sys.argv[2]], os.environ[sys.argv[3]]
    ping = subprocess.run(["ip", "netns", "exec", ha, "ping", "-n", "-c", "20", "-i", "0.1", "10.0.2.2"],
                          capture_output=True, text=True)
    RECEIVER = """
    import socket, time, json, sys
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("10.0.2.2", 5001)); s.listen(1); print("ready", flush=True)
    c, _ = s.accept(); marks = []; total = 0; t0 = time.monotonic()
    while True:
        b = c.recv(1 << 16)
        if not b: break
        total += len(b); marks.append((time.monotonic() - t0, total))
    print(json.dumps(marks[::20] + marks[-1:]))
    """
    SENDER = """
    import socket, sys, time
    s = socket.create_connection(("10.0.2.2", 5001)); block = bytes(1 << 16); end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end: s.sendall(block)
    s.close()
    """
    rx = subprocess.Popen(["ip", "netns", "exec", hb, sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)
    assert rx.stdout.readline().strip() == "ready"
    subprocess.run(["ip", "netns", "exec", ha, sys.executable, "-c", SENDER, "14"], check=True)
    marks = json.loads(rx.stdout.read())
    rx.wait()
    json.dump({"ping": ping.stdout, "marks": marks}, open(out, "w"))
''')


@needs_root
def test_a_real_tcp_transfer_fills_the_link_and_ping_sees_the_scenarios_rtt(tmp_path):
    script = tmp_path / "transfer.py"
    script.write_text(TRANSFER)
    measured = tmp_path / "measured.json"
    out = tmp_path / "out"
    run = subprocess.run(
        tcplab_cmd("emulate", str(scenario(tmp_path)), "--out", str(out), "--", sys.executable, str(script), str(measured),
                   ns_var("ha")[1:], ns_var("hb")[1:]),
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr + run.stdout
    m = json.loads(measured.read_text())
    emu = json.loads((out / "emulation.json").read_text())["emulation"]

    # ping: 84-byte IPv4 packets, serialised at 10 Mb/s and delayed 20 ms each way
    rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", m["ping"])]
    assert len(rtts) >= 18, m["ping"]
    expected = 2 * (DELAY + 84 * 8 / RATE) * 1e3
    median = sorted(rtts)[len(rtts) // 2]
    assert abs(median - expected) < 1.0, (median, expected, rtts)

    # TCP: from 2 s after the first byte to the end, the receiver's goodput; each 1448-byte
    # segment is a 1500-byte packet on the link (20 IP + 32 TCP bytes with timestamps)
    marks = m["marks"]
    t_end, b_end = marks[-1]
    t_from, b_from = next((t, b) for t, b in marks if t >= marks[0][0] + 2.0)
    goodput = (b_end - b_from) * 8 / (t_end - t_from)
    link_rate = goodput * 1500 / 1448
    print(f"goodput {goodput / 1e6:.3f} Mb/s, link rate reached {link_rate / RATE:.1%}, ping RTT median "
          f"{median:.3f} ms (scenario {expected:.3f}), lateness p99 {emu['lateness']['p99_ms']:.3f} ms, "
          f"max {emu['lateness']['max_ms']:.3f} ms")
    assert link_rate >= 0.95 * RATE, (goodput, link_rate)
    assert emu["ended_by"] == "command" and emu["command_exit"] == 0
    assert not netns() & {ns("ha"), ns("hb")}, "the namespaces are gone"


@needs_root
def test_a_sigkilled_run_leaves_nothing_after_the_next_start(tmp_path):
    killed = subprocess.Popen(tcplab_cmd("emulate", str(scenario(tmp_path, ("kx", "ky"))), "--duration", "60s"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not {ns("kx"), ns("ky")} <= netns():
            assert time.monotonic() < deadline, "the namespaces did not appear"
            assert killed.poll() is None, "the run ended early"
            time.sleep(0.05)
        time.sleep(0.3)
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
    assert {ns("kx"), ns("ky")} <= netns(), "SIGKILL leaves them for the next start"
    # the next start, with other names, cleans what the killed run's state file lists
    nxt = subprocess.run(tcplab_cmd("emulate", str(scenario(tmp_path, ("nx", "ny"))), "--", "true"),
                         capture_output=True, text=True, timeout=60)
    assert nxt.returncode == 0, nxt.stderr
    assert not netns() & {ns("kx"), ns("ky"), ns("nx"), ns("ny")}
    assert not [p for p in Path("/sys/class/net").iterdir() if p.name in {ns("kx"), ns("ky"), ns("nx"), ns("ny")}]
    assert not list(Path("/run/tcplab").glob(f"emulate-{killed.pid}.state"))


@needs_root
def test_sigterm_ends_the_run_and_removes_its_namespaces(tmp_path):
    run = subprocess.Popen(tcplab_cmd("emulate", str(scenario(tmp_path, ("tx", "ty"))), "--duration", "60s"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not {ns("tx"), ns("ty")} <= netns():
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 128 + signal.SIGTERM, err
    assert not netns() & {ns("tx"), ns("ty")}


@pytest.mark.skipif(not shutil.which("unshare"), reason="needs unshare (util-linux)")
def test_without_root_it_refuses_in_one_line(tmp_path):
    # in a user namespace of its own the process is not root (uid 65534), yet reads its files
    run = subprocess.run(["unshare", "-U", *tcplab_cmd("emulate", str(scenario(tmp_path, ("ux", "uy"))), "--duration", "1s")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs root" in lines[0], run.stderr
    assert not netns() & {ns("ux"), ns("uy")}


@needs_root
def test_a_hosts_run_command_starts_inside_its_namespace(tmp_path):
    path = scenario(tmp_path, ("rx", "ry"))
    seen = tmp_path / "seen.txt"
    path.write_text(path.read_text().replace('address = "10.0.1.2/24"\n', f'''address = "10.0.1.2/24"

[[hosts.run]]
command = "ip -br addr show eth0 > {seen}; ip route show default >> {seen}; chrt -p $$ >> {seen}"
start = "0.2s"
''', 1))
    out = tmp_path / "out"
    run = subprocess.run(tcplab_cmd("emulate", str(path), "--duration", "1.5s", "--out", str(out)),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    text = seen.read_text()
    assert "10.0.1.2/24" in text and "default via 10.0.1.1 dev eth0" in text, text
    # the network ran at real-time priority, the command at the normal one
    assert json.loads((out / "emulation.json").read_text())["emulation"]["realtime"] is True
    assert "policy: SCHED_OTHER" in text, text
    assert not netns() & {ns("rx"), ns("ry")}


@needs_root
@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark")
def test_a_pcap_of_the_emulated_link_holds_the_real_tcp_headers(tmp_path):
    out = tmp_path / "out"
    talk = (f"ip netns exec {ns_var('py')} python3 -c 'import socket; s = socket.socket(); "
            "s.bind((\"10.0.2.2\", 5002)); s.listen(1); c, _ = s.accept(); [None for _ in iter(lambda: c.recv(65536), b\"\")]' & "
            f"sleep 0.3; ip netns exec {ns_var('px')} python3 -c 'import socket; "
            "s = socket.create_connection((\"10.0.2.2\", 5002)); s.sendall(bytes(100000)); s.close()'; wait")
    run = subprocess.run(tcplab_cmd("emulate", str(scenario(tmp_path, ("px", "py"))), "--out", str(out), "--trace", "pcap",
                                    "--", "sh", "-c", talk), capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr + run.stdout
    fields = subprocess.run(["tshark", "-r", str(out / "pcap" / "a-b.pcap"), "-Y", "tcp", "-T", "fields",
                             "-e", "ip.src", "-e", "tcp.flags.syn", "-e", "tcp.options.mss_val",
                             "-e", "tcp.options.timestamp.tsval"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    rows = [line.split("\t") for line in fields]
    assert len(rows) > 50, fields
    syn = [r for r in rows if r[0] == "10.0.1.2" and r[1] in ("1", "True")][0]
    assert syn[2] == "1460", syn  # the SYN's real MSS option
    assert all(r[3] for r in rows), "every segment carries its real timestamp option"


@needs_root
@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark")
def test_real_packets_show_in_the_ns2_trace_and_red_marks_their_ip_headers(tmp_path):
    """A real ECN-capable transfer through a RED queue that marks: the ns-2 trace names its
    packets tcp and ack with their ports, sizes and relative sequence numbers, and flags
    the marked ones CE ("E"); the marks reach the real receiver in the IP header, which echoes
    them (ECE) to the real sender."""
    out = tmp_path / "out"
    path = scenario(tmp_path, ("ea", "eb"), queue=60)
    red = '{ bytes = false, queue_in_bytes = false, thresh = 5, maxthresh = 15, setbit = true, q_weight = 0.02 }'
    path.write_text(path.read_text().replace('queue_limit = 60 }', f'queue_limit = 60, queue = "red", red = {red} }}'))
    ecn = f"ip netns exec {ns_var('ea')} sysctl -qw net.ipv4.tcp_ecn=1; ip netns exec {ns_var('eb')} sysctl -qw net.ipv4.tcp_ecn=1; "
    talk = ecn + (f"ip netns exec {ns_var('eb')} $TCPLAB_PYTHON -m tcplab.realtcp recv --bind 10.0.2.2 & "
                  f"ip netns exec {ns_var('ea')} $TCPLAB_PYTHON -m tcplab.realtcp send 10.0.2.2 --cc reno --time 4; wait")
    run = subprocess.run(tcplab_cmd("emulate", str(path), "--out", str(out), "--trace", "ns2", "--trace", "pcap",
                                    "--", "sh", "-c", talk), capture_output=True, text=True, timeout=60)
    assert run.returncode in (0, 3), run.stderr + run.stdout  # 3: unfaithful on a loaded machine

    # ns-2's wired trace: `ev time from to type size flags fid src.port dst.port seq uid`
    lines = [line.split() for line in (out / "trace.tr").read_text().splitlines()]
    data = [x for x in lines if x[0] == "-" and x[2:5] == ["0", "1", "tcp"]]
    acks = [x for x in lines if x[0] == "-" and x[2:5] == ["1", "0", "ack"]]
    assert len(data) > 500 and len(acks) > 200, (len(data), len(acks))
    # realtcp's sender retries until the receiver listens: the last connection is the transfer
    port = data[-1][8]
    syn = [x for x in data if x[8] == port][0]
    assert (syn[5], syn[10]) == ("60", "0"), syn  # the SYN: 20 + 40 bytes, relative sequence number 0
    assert {x[9] for x in data} == {"1.5201"}, "to realtcp's port"
    # as the queue takes them (`+`, before any drop): each new segment starts where the
    # highest so far ended (its payload: the size less 20 IP and 32 TCP bytes), or it is a
    # retransmission of an earlier one
    sent = [(int(x[10]), int(x[5]) - 52) for x in lines
            if x[0] == "+" and x[2:5] == ["0", "1", "tcp"] and x[8] == port and x[5] != "60"]
    assert sent[0][0] == 1 and sum(n == 1448 for _, n in sent) > 0.9 * len(sent)
    end = 1
    for seq, n in sent:
        assert seq == end or seq < end, (seq, end)
        end = max(end, seq + n)
    # ECN-capable data (Linux sends retransmissions without ECT, RFC 3168 6.1.5), some marked
    ect = [x for x in data if x[8] == port and x[5] == "1500" and "N" in x[6]]
    assert len(ect) > 0.9 * sum(x[8] == port and x[5] == "1500" for x in data)
    marked = [x for x in ect if "E" in x[6]]
    assert marked, "some marked CE"

    # the marks are in the real headers (the link's capture holds both directions): CE on the
    # data, the receiver's ECE on its ACKs, and the sender's CWR after it reduced its window
    def rows(filt: str) -> int:
        r = subprocess.run(["tshark", "-r", str(out / "pcap" / "a-b.pcap"), "-Y", filt, "-T", "fields",
                            "-e", "frame.number"], capture_output=True, text=True, check=True)
        return len(r.stdout.split())
    assert rows("ip.src == 10.0.1.2 && ip.dsfield.ecn == 3 && tcp.len > 0") == len(marked)
    assert rows("ip.src == 10.0.2.2 && tcp.flags.ece == 1 && tcp.flags.syn == 0") > 0, "the receiver echoed them"
    assert rows("ip.src == 10.0.1.2 && tcp.flags.cwr == 1 && tcp.flags.syn == 0") > 0, "the sender reacted"


@needs_root
def test_a_real_host_on_a_mobile_node_follows_it_through_its_handover(tmp_path):
    """Hosts on the correspondent node and on the mobile node of the yew2011 handover scenario
    (802.11b access networks, HMIPv6), the move sped up to leave home at 2 s: ping's echoes
    cross the home WLAN, stop while the mobile node hands over, and come back over the
    foreign network's longer path (N1 - MAP at 2 Mb/s and 50 ms)."""
    base = (Path(__file__).parents[2] / "scenarios" / "yew2011-handover" / "spacing.toml").read_text()
    text = base[: base.index("[[flows]]")].replace('at = "5s"\nto = [1200, 0]\nspeed = 100',
                                                     'at = "2s"\nto = [1200, 0]\nspeed = 500')
    assert 'at = "2s"' in text
    text += "".join(f'\n[[hosts]]\nname = "{host(n)}"\nnode = "{node}"\naddress = "{a}"\n'
                    for n, node, a in [("mc", "cn", "10.0.1.2/24"), ("mm", "mn", "10.0.2.2/24")])
    path = tmp_path / "mobile.toml"
    path.write_text(text)
    out = tmp_path / "out"
    out.mkdir()
    talk = f"ip netns exec {ns_var('mc')} ping -n -c 60 -i 0.1 -W 1 10.0.2.2 > {out}/ping.txt"
    run = subprocess.run(tcplab_cmd("emulate", str(path), "--out", str(out), "--", "sh", "-c", talk),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode in (0, 1), run.stderr + run.stdout  # ping's 1: some echoes lost, as they must be
    echoes = {int(q): float(t) for q, t in re.findall(r"icmp_seq=(\d+) ttl=\d+ time=([\d.]+) ms",
                                                     (out / "ping.txt").read_text())}
    # at home (sent before 2 s): 2 x (2 + 2 ms wired, then the home WLAN)
    home = [t for q, t in echoes.items() if q <= 15]
    # after the handover: 2 x (2 + 50 + 2 ms) and the 2 and 1 Mb/s links, then AR1's WLAN
    away = [t for q, t in echoes.items() if q >= 50]
    assert len(home) >= 12 and all(8 < t < 15 for t in home), home
    assert len(away) >= 9 and all(110 < t < 140 for t in away), away
    lost = [q for q in range(1, 61) if q not in echoes]
    assert lost and all(15 < q < 50 for q in lost), lost
    emu = json.loads((out / "emulation.json").read_text())["emulation"]
    assert emu["real_dropped"] >= 1


def scenario_at(tmp_path: Path, names: tuple[str, str], bandwidth: str, queue: int, extra_a: str = "",
                extra_b: str = "", interval: str | None = None) -> Path:
    """Hosts NAMES[0] (10.0.1.2, on a) and NAMES[1] (10.0.2.2, on b) across one link of
    `bandwidth` and 20 ms; `extra_a`/`extra_b` follow each host's table ([[hosts.run]])."""
    a, b = map(host, names)
    output = f'output = {{ interval = "{interval}" }}\n' if interval else ""
    text = f"""
name = "emu-{bandwidth}"
duration = "60s"
nodes = ["a", "b"]
links = [{{ from = "a", to = "b", bandwidth = "{bandwidth}", delay = "20ms", queue_limit = {queue} }}]
{output}
[[hosts]]
name = "{a}"
node = "a"
address = "10.0.1.2/24"
{extra_a}
[[hosts]]
name = "{b}"
node = "b"
address = "10.0.2.2/24"
{extra_b}
"""
    path = tmp_path / f"emu-{a}.toml"
    path.write_text(text)
    return path


@needs_root
def test_at_50mbps_a_real_cubic_transfer_fills_the_link_and_the_run_keeps_time(tmp_path):
    """The 50 Mb/s case of issue 40: tcplab.realtcp's CUBIC through 50 Mb/s and 20 ms reaches
    95% of the link rate, and ping sees the scenario's RTT within 1 ms, in a run that kept time
    (faithful: events' lateness under 1 ms at p99) while the network carried ~4,300 packets a
    second each way. Whether the machine lets a run keep time is not tcplab's to promise: a run
    that did not is reported so, with its figures, and not judged (as `tcplab conformance
    linux` does); docs/emulation.md gives the lateness measured idle and under load."""
    rate = 50e6
    out = tmp_path / "out"
    # the receiver first; the sender retries its connection until the receiver listens
    talk = (f"ip netns exec {ns_var('fa')} $TCPLAB_PYTHON -m tcplab.realtcp recv --bind 10.0.2.2 "
            f"--out {out}/rx --name rx > {out}/rx.json & "
            f"ip netns exec {ns_var('f5')} ping -n -c 10 -i 0.1 10.0.2.2 > {out}/ping.txt; "
            f"ip netns exec {ns_var('f5')} $TCPLAB_PYTHON -m tcplab.realtcp send 10.0.2.2 --cc cubic --time 8 "
            f"--out {out}/tx --name tx > {out}/tx.json; wait")
    out.mkdir()
    run = subprocess.run(tcplab_cmd("emulate", str(scenario_at(tmp_path, ("f5", "fa"), "50Mb", 200)), "--out", str(out),
                                    "--", "sh", "-c", talk), capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr + run.stdout
    emu = json.loads((out / "emulation.json").read_text())["emulation"]

    rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", (out / "ping.txt").read_text())]
    assert len(rtts) >= 9, rtts
    expected = 2 * (DELAY + 84 * 8 / rate) * 1e3
    median = sorted(rtts)[len(rtts) // 2]

    import pandas as pd

    rx = pd.read_parquet(out / "rx" / "series-flows.parquet")
    start = rx["time"].iloc[0]
    steady = rx[(rx["time"] > start + 2.0) & (rx["time"] < rx["time"].iloc[-1])]  # whole intervals only
    goodput = steady["goodput_bps"].mean()
    link_rate = goodput * 1500 / 1448
    tx = json.loads((out / "tx.json").read_text())
    late = emu["lateness"]
    print(f"50 Mb/s: goodput {goodput / 1e6:.2f} Mb/s, link rate reached {link_rate / rate:.1%}, "
          f"retransmits {tx['retransmits']}, ping RTT median {median:.3f} ms (scenario {expected:.3f}), lateness "
          f"{late['events']} events, p99 {late['p99_ms']:.3f} ms, max {late['max_ms']:.3f} ms, "
          f"{late['late_over_1ms']} over 1 ms")
    assert tx["cc"] == "cubic" and tx["ended_by"] == "time"
    assert emu["ended_by"] == "command" and emu["command_exit"] == 0
    assert late["events"] > 10_000 and late["p99_ms"] <= late["max_ms"], late
    assert emu["faithful"] == (late["p99_ms"] <= 1.0 and late["max_ms"] <= 20.0), (emu["faithful"], late)
    if not emu["faithful"]:
        pytest.skip(f"the machine did not let the run keep time (p99 {late['p99_ms']:.3f} ms, "
                    f"max {late['max_ms']:.3f} ms): not judged")
    assert abs(median - expected) < 1.0, (median, expected, rtts)
    assert link_rate >= 0.95 * rate, (goodput, link_rate)


@needs_root
def test_realtcp_samples_tcp_info_into_the_series_a_simulated_flow_has(tmp_path):
    """tcplab.realtcp started by [[hosts.run]]: its series-tcp and series-flows have the
    simulated flows' columns, on the emulation's clock, with the cwnd and RTT of 10 Mb/s, 20 ms."""
    out = tmp_path / "out"
    rx_run = (f'\n[[hosts.run]]\ncommand = "$TCPLAB_PYTHON -m tcplab.realtcp recv --bind 10.0.2.2 --out {out}/rx"\n')
    tx_run = (f'\n[[hosts.run]]\ncommand = "$TCPLAB_PYTHON -m tcplab.realtcp send 10.0.2.2 --cc reno --time 5 '
              f'--out {out}/tx --name linux-reno"\nstart = "0.5s"\n')
    path = scenario_at(tmp_path, ("sa", "sb"), "10Mb", 100, extra_a=tx_run, extra_b=rx_run)
    # the sender needs 5.5 s; the rest is room for Python to start on a busy machine
    run = subprocess.run(tcplab_cmd("emulate", str(path), "--duration", "12s"), capture_output=True, text=True,
                         timeout=60)
    # 3: the run fell behind the wall clock (a loaded machine); the 50 Mb/s test checks that
    assert run.returncode in (0, 3), run.stderr + run.stdout

    import pandas as pd

    from tcplab.realtcp import FLOW_COLUMNS, TCP_COLUMNS

    # the simulated series' columns come first, in the same order
    sim = tcplab_sim_series()
    tcp = pd.read_parquet(out / "tx" / "series-tcp.parquet")
    flows = pd.read_parquet(out / "tx" / "series-flows.parquet")
    assert list(tcp.columns) == list(TCP_COLUMNS) and list(tcp.columns[: len(sim["tcp"])]) == sim["tcp"]
    assert list(flows.columns) == list(FLOW_COLUMNS) == sim["flows"]
    assert set(tcp["flow"]) == {"linux-reno"}

    # every ~5 ms for 5 s, from its start at 0.5 s of the emulation's clock (and Python's own,
    # which takes seconds on a busy machine)
    t0 = tcp["time"].iloc[0]
    assert 0.5 <= t0 < 5.0, t0
    gaps = tcp["time"].diff().dropna()
    assert 700 <= len(tcp) <= 1200 and gaps.median() == pytest.approx(0.005, abs=0.001), (len(tcp), gaps.describe())

    # plausible for 10 Mb/s, 40 ms and a 100-packet queue: the pipe holds 33 packets, so past
    # slow start Reno's cwnd lies between half of it and pipe + queue, and its RTT between
    # 40 ms and 40 ms + the full queue's 120 ms
    steady = tcp[tcp["time"] > t0 + 1.5]
    assert 15 <= steady["cwnd"].median() <= 140, steady["cwnd"].describe()
    assert steady["cwnd"].max() <= 200
    assert 0.040 <= steady["srtt_s"].median() <= 0.170, steady["srtt_s"].describe()
    assert (tcp["mss"] == 1448).all()
    assert tcp["bytes_acked"].is_monotonic_increasing and tcp["retransmits"].is_monotonic_increasing
    # what the sender saw acknowledged is what the receiver received
    rx = pd.read_parquet(out / "rx" / "series-flows.parquet")
    report = json.loads((out / "tx" / "realtcp.json").read_text())
    assert report["bytes_acked"] == report["bytes_written"] == rx["delivered_bytes"].iloc[-1]
    assert flows["delivered_bytes"].iloc[-1] == report["bytes_acked"]
    goodput = flows[(flows["time"] > t0 + 1.5) & (flows["time"] <= t0 + 5.0)]["goodput_bps"].mean()
    assert 0.85 * RATE * 1448 / 1500 <= goodput <= RATE, goodput


def tcplab_sim_series() -> dict[str, list[str]]:
    """The columns of a simulated TCP flow's tcp and flows series."""
    import tcplab

    r = tcplab.run("""
name = "cols"
duration = "1s"
nodes = ["a", "b"]
links = [{ from = "a", to = "b", bandwidth = "10Mb", delay = "20ms" }]
flows = [{ from = "a", to = "b", protocol = "reno" }]
output = { interval = "100ms" }
""")
    return {k: list(r.series[k].columns) for k in ("tcp", "flows")}


@needs_root
def test_ipv6_hosts_find_their_gateway_by_neighbour_discovery_and_talk_through_the_network(tmp_path):
    """Hosts with an address6: the node answers their neighbour solicitations for the gateway,
    and their IPv6 packets (ping, a realtcp transfer) cross the simulated 10 Mb/s, 20 ms link."""
    out = tmp_path / "out"
    path = scenario_at(tmp_path, ("v6a", "v6b"), "10Mb", 100, extra_a='address6 = "fd00:1::2/64"\n',
                       extra_b='address6 = "fd00:2::2/64"\n')
    talk = (f"ip netns exec {ns_var('v6b')} $TCPLAB_PYTHON -m tcplab.realtcp recv --bind fd00:2::2 --out {out}/rx & "
            f"ip netns exec {ns_var('v6a')} ping -6 -n -c 10 -i 0.1 fd00:2::2 > {out}/ping.txt; "
            f"ip netns exec {ns_var('v6a')} ip -6 neigh show > {out}/neigh.txt; "
            f"ip netns exec {ns_var('v6a')} $TCPLAB_PYTHON -m tcplab.realtcp send fd00:2::2 --cc cubic --bytes 2000000 "
            f"--out {out}/tx > {out}/tx.json; wait")
    out.mkdir()
    trace = ["--trace", "pcap"] if shutil.which("tshark") else []
    run = subprocess.run(tcplab_cmd("emulate", str(path), "--out", str(out), *trace, "--", "sh", "-c", talk),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr + run.stdout
    emu = json.loads((out / "emulation.json").read_text())["emulation"]
    a, b = emu["hosts"]
    assert a["neighbor_advertisements"] >= 1 and b["neighbor_advertisements"] >= 1, emu["hosts"]
    assert a["unroutable"] == b["unroutable"] == 0
    # the gateway's MAC, learnt from the advertisement (the router flag set)
    neigh = (out / "neigh.txt").read_text()
    assert re.search(r"fd00:1::1 dev eth0 lladdr 02:74:6c:00:00:02 router", neigh), neigh

    # ping: 104-byte IPv6 packets (40 + 8 + 56), serialised at 10 Mb/s and delayed 20 ms each way
    rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", (out / "ping.txt").read_text())]
    assert len(rtts) >= 9, (out / "ping.txt").read_text()
    expected = 2 * (DELAY + 104 * 8 / RATE) * 1e3
    median = sorted(rtts)[len(rtts) // 2]
    assert abs(median - expected) < 1.0, (median, expected, rtts)
    # TCP over IPv6: every byte through, the MSS of IPv6 (1500 - 40 - 20 - 12)
    tx = json.loads((out / "tx.json").read_text())
    assert tx["bytes_acked"] == 2000000 and a["packets6_in"] > 1000
    import pandas as pd

    assert (pd.read_parquet(out / "tx" / "series-tcp.parquet")["mss"] == 1428).all()
    assert pd.read_parquet(out / "rx" / "series-flows.parquet")["delivered_bytes"].iloc[-1] == 2000000
    if trace:  # the link's capture holds the real IPv6 packets, their TCP headers read by tshark
        fields = subprocess.run(["tshark", "-r", str(out / "pcap" / "a-b.pcap"), "-Y", "ipv6 && tcp", "-T", "fields",
                                 "-e", "ipv6.src", "-e", "tcp.options.mss_val"],
                                capture_output=True, text=True, check=True).stdout.splitlines()
        rows = [line.split("\t") for line in fields]
        assert len(rows) > 1000 and {r[0] for r in rows} == {"fd00:1::2", "fd00:2::2"}, fields[:5]
        assert ["fd00:1::2", "1440"] in rows, "the SYN's MSS option, as IPv6 gives it"
