"""tcplab.realtcp on the loopback (no root): TCP_INFO read at the kernel's offsets, the series
files it writes, the interval series computed from the samples. The emulated runs are in
test_emulate.py."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from tcplab import realtcp


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_tcp_info_has_the_kernels_layout():
    # offsets of <linux/tcp.h>'s struct tcp_info
    offsets, off = {}, 0
    for name, fmt in realtcp._TCP_INFO_FIELDS:
        offsets[name] = off
        off += realtcp.struct.calcsize("=" + fmt)
    assert realtcp.TCP_INFO.size == off == 232
    assert (offsets["rto"], offsets["rtt"], offsets["snd_cwnd"], offsets["total_retrans"]) == (8, 68, 80, 100)
    assert (offsets["pacing_rate"], offsets["bytes_acked"], offsets["delivery_rate"]) == (104, 120, 160)
    assert (offsets["bytes_sent"], offsets["snd_wnd"]) == (200, 228)


def test_a_loopback_transfer_writes_the_series(tmp_path):
    port = free_port()
    py = [sys.executable, "-m", "tcplab.realtcp"]
    rx = subprocess.Popen([*py, "recv", "--bind", "127.0.0.1", "--port", str(port), "--out", str(tmp_path / "rx"),
                           "--series", "csv"], stdout=subprocess.PIPE, text=True)
    tx = subprocess.run([*py, "send", "127.0.0.1", "--port", str(port), "--cc", "reno", "--bytes", "3000000",
                         "--out", str(tmp_path / "tx"), "--name", "lo", "--sample", "1ms", "--series", "csv"],
                        capture_output=True, text=True, timeout=30)
    assert tx.returncode == 0, tx.stderr
    got = json.loads(rx.communicate(timeout=30)[0].splitlines()[0])
    sent = json.loads(tx.stdout)
    assert sent["ended_by"] == "bytes"
    assert sent["cc"] == "reno" and sent["bytes_written"] == sent["bytes_acked"] == got["bytes"] == 3000000

    import pandas as pd

    tcp = pd.read_csv(tmp_path / "tx" / "series-tcp.csv")
    assert list(tcp.columns) == list(realtcp.TCP_COLUMNS) and len(tcp) >= 1
    assert (tcp["cwnd"] >= 1).all() and (tcp["mss"] > 1000).all() and set(tcp["flow"]) == {"lo"}
    assert tcp["bytes_acked"].iloc[-1] == 3000000
    flows = pd.read_csv(tmp_path / "tx" / "series-flows.csv")
    assert list(flows.columns) == list(realtcp.FLOW_COLUMNS) and flows["delivered_bytes"].iloc[-1] == 3000000
    assert pd.read_csv(tmp_path / "rx" / "series-flows.csv")["delivered_bytes"].iloc[-1] == 3000000


def test_an_unknown_congestion_control_is_refused_in_one_line():
    tx = subprocess.run([sys.executable, "-m", "tcplab.realtcp", "send", "127.0.0.1", "--port", str(free_port()),
                         "--cc", "no-such-cc", "--time", "1"], capture_output=True, text=True, timeout=30)
    assert tx.returncode != 0 and "no-such-cc" in tx.stderr and len(tx.stderr.strip().splitlines()) == 1


def test_flow_rows_count_each_interval_from_the_samples_before_its_end():
    times = [0.05, 0.10, 0.17, 0.25, 0.31]
    acked = [0, 1000, 3000, 6000, 6500]
    rows = realtcp.flow_rows(times, acked, acked, "f", 0.1)
    assert [r[0] for r in rows] == [0.1, 0.2, 0.3, 0.4]
    assert [r[4] for r in rows] == [1000, 3000, 6000, 6500]
    assert [r[2] for r in rows] == pytest.approx([80000, 160000, 240000, 40000])
