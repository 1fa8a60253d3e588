"""A real Linux TCP sender and receiver for measurements, mainly inside ``tcplab emulate``.

    python -m tcplab.realtcp recv [--bind ADDR] [--port N] [--count N] [--out DIR] [--name NAME]
    python -m tcplab.realtcp send HOST [--port N] [--cc NAME] [--time T | --bytes N]
                                       [--sample S] [--interval S] [--out DIR] [--name NAME]

``send`` opens one bulk TCP connection with the congestion control ``--cc`` (``TCP_CONGESTION``:
reno, cubic, bbr, whatever the kernel offers) and, while it sends, reads the socket's
``TCP_INFO`` every ``--sample`` seconds (5 ms by default). It writes into ``--out``, in the
files and columns ``tcplab run`` writes for simulated flows, so that both plot side by side:

- ``series-tcp.parquet``: every sample. ``time, flow, cwnd, ssthresh, srtt_s, in_flight,
  pacing_rate`` as for a simulated TCP sender (segments, seconds, segments per second; ssthresh
  is NaN while the kernel's is unset), then the kernel's own: ``rttvar_s, min_rtt_s,
  delivery_rate_bps, pacing_rate_bps, retransmits`` (segments retransmitted so far),
  ``bytes_acked`` (data bytes: the kernel's count less the SYN and FIN), ``bytes_sent``
  (retransmissions included), ``lost, ca_state, mss``. ``pacing_rate`` is the kernel's
  ``sk_pacing_rate``, which it enforces only for a paced flow (BBR, or the fq qdisc).
- ``series-flows.parquet``: every ``--interval`` (100 ms by default) ``time, flow,
  goodput_bps`` (bytes newly acknowledged), ``throughput_bps`` (bytes sent, retransmissions
  included), ``delivered_bytes`` (acknowledged so far).
- ``realtcp.json``: what was sent and how.

``recv`` accepts ``--count`` connections (1 by default; 0: until killed), drains them and, with
``--out``, writes its own ``series-flows.parquet`` (the bytes it received per ``--interval``);
for each connection it prints one JSON line (bytes, first and last byte's times, goodput).

Times are seconds since the emulation's start when run under ``tcplab emulate`` (which sets
``TCPLAB_EMU_T0``, its time 0 on CLOCK_MONOTONIC), else since the program started; a real flow's
series then share the time axis of the simulated flows' series of the same run. The sender
retries its connection for ``--connect-timeout`` seconds, so a receiver and a sender may be
started together. On SIGTERM (an emulation's end) either writes what it has and exits. Under
``tcplab emulate --out DIR`` (which sets ``TCPLAB_OUT``) ``--out`` defaults to ``DIR/NAME``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import select
import signal
import socket
import struct
import sys
import time
from pathlib import Path

PROG = "python -m tcplab.realtcp"

# struct tcp_info as <linux/tcp.h> lays it out (fields of kernel 6.x up to tcpi_snd_wnd): each
# field is naturally aligned, so "=" (no padding) gives the kernel's offsets. An older kernel
# returns fewer bytes: the fields it does not fill read as 0.
_TCP_INFO_FIELDS = [
    ("state", "B"), ("ca_state", "B"), ("retransmits", "B"), ("probes", "B"), ("backoff", "B"),
    ("options", "B"), ("wscale", "B"), ("app_limited", "B"),
    ("rto", "I"), ("ato", "I"), ("snd_mss", "I"), ("rcv_mss", "I"),
    ("unacked", "I"), ("sacked", "I"), ("lost", "I"), ("retrans", "I"), ("fackets", "I"),
    ("last_data_sent", "I"), ("last_ack_sent", "I"), ("last_data_recv", "I"), ("last_ack_recv", "I"),
    ("pmtu", "I"), ("rcv_ssthresh", "I"), ("rtt", "I"), ("rttvar", "I"), ("snd_ssthresh", "I"),
    ("snd_cwnd", "I"), ("advmss", "I"), ("reordering", "I"),
    ("rcv_rtt", "I"), ("rcv_space", "I"),
    ("total_retrans", "I"),
    ("pacing_rate", "Q"), ("max_pacing_rate", "Q"), ("bytes_acked", "Q"), ("bytes_received", "Q"),
    ("segs_out", "I"), ("segs_in", "I"),
    ("notsent_bytes", "I"), ("min_rtt", "I"), ("data_segs_in", "I"), ("data_segs_out", "I"),
    ("delivery_rate", "Q"),
    ("busy_time", "Q"), ("rwnd_limited", "Q"), ("sndbuf_limited", "Q"),
    ("delivered", "I"), ("delivered_ce", "I"),
    ("bytes_sent", "Q"), ("bytes_retrans", "Q"), ("dsack_dups", "I"), ("reord_seen", "I"),
    ("rcv_ooopack", "I"),
    ("snd_wnd", "I"),
]
TCP_INFO = struct.Struct("=" + "".join(f for _, f in _TCP_INFO_FIELDS))
TCP_INFO_NAMES = [n for n, _ in _TCP_INFO_FIELDS]
# the kernel's ssthresh before the first loss (TCP_INFINITE_SSTHRESH)
INFINITE_SSTHRESH = 0x7FFFFFFF
# tcpi_ca_state
CA_STATES = ("open", "disorder", "cwr", "recovery", "loss")

TCP_COLUMNS = ("time", "flow", "cwnd", "ssthresh", "srtt_s", "in_flight", "pacing_rate",
               "rttvar_s", "min_rtt_s", "delivery_rate_bps", "pacing_rate_bps", "retransmits",
               "bytes_acked", "bytes_sent", "lost", "ca_state", "mss")
FLOW_COLUMNS = ("time", "flow", "goodput_bps", "throughput_bps", "delivered_bytes")


def tcp_info(sock: socket.socket) -> dict:
    """The socket's TCP_INFO as a dict of the kernel's fields (tcpi_ left off; times in µs,
    rates in bytes per second, as the kernel gives them)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO.size)
    return dict(zip(TCP_INFO_NAMES, TCP_INFO.unpack(raw.ljust(TCP_INFO.size, b"\0"))))


def sample_row(t: float, flow: str, i: dict) -> tuple:
    """One row of series-tcp from a TCP_INFO dict, in TCP_COLUMNS' order."""
    mss = i["snd_mss"] or 1
    in_flight = i["unacked"] - (i["sacked"] + i["lost"]) + i["retrans"]  # tcp_packets_in_flight
    ssthresh = math.nan if i["snd_ssthresh"] >= INFINITE_SSTHRESH else float(i["snd_ssthresh"])
    pacing = i["pacing_rate"] if i["pacing_rate"] < 2 ** 63 else 0  # ~0: no rate set
    return (t, flow, float(i["snd_cwnd"]), ssthresh, i["rtt"] * 1e-6, float(in_flight), pacing / mss,
            i["rttvar"] * 1e-6, i["min_rtt"] * 1e-6, i["delivery_rate"] * 8.0, pacing * 8.0,
            i["total_retrans"], i["bytes_acked"], i["bytes_sent"], i["lost"],
            CA_STATES[i["ca_state"]] if i["ca_state"] < len(CA_STATES) else str(i["ca_state"]), i["snd_mss"])


def clock0() -> float:
    """Time 0 on CLOCK_MONOTONIC: the emulation's (TCPLAB_EMU_T0) or now."""
    try:
        return float(os.environ["TCPLAB_EMU_T0"])
    except (KeyError, ValueError):
        return time.monotonic()


def flow_rows(times: list[float], acked: list[int], sent: list[int], flow: str, interval: float) -> list[tuple]:
    """series-flows rows every `interval` from cumulative counters sampled at `times`: the
    interval ending at each row's time, counted from the last sample at or before its ends."""
    rows = []
    if not times:
        return rows
    k, prev_acked, prev_sent = 0, 0, 0
    end = (math.floor(times[0] / interval) + 1) * interval
    while True:
        while k + 1 < len(times) and times[k + 1] <= end + 1e-12:
            k += 1
        a, s = (acked[k], sent[k]) if times[k] <= end + 1e-12 else (prev_acked, prev_sent)
        rows.append((round(end, 9), flow, (a - prev_acked) * 8 / interval, (s - prev_sent) * 8 / interval, a))
        prev_acked, prev_sent = a, s
        if end >= times[-1]:
            return rows
        end += interval


def write_series(out: Path, name: str, columns: tuple, rows: list[tuple], fmt: str) -> Path:
    import pandas as pd

    frame = pd.DataFrame.from_records(rows, columns=list(columns))
    path = out / f"series-{name}.{fmt}"
    if fmt == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path


class Stop(Exception):
    """SIGTERM or SIGINT: write what there is and end."""


def _on_signal(signum, _frame):
    raise Stop(signum)


def _hold_signals():
    """From here on SIGTERM and SIGINT wait: the series are being written."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})


def connect(host: str, port: int, cc: str | None, timeout: float) -> socket.socket:
    deadline = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        if cc:
            try:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
            except OSError as e:
                s.close()
                raise SystemExit(f"{PROG}: error: congestion control {cc!r} is not available here ({e.strerror}; "
                                 f"see /proc/sys/net/ipv4/tcp_available_congestion_control)") from None
        try:
            s.connect((host, port))
            return s
        except (ConnectionRefusedError, OSError) as e:
            s.close()
            if time.monotonic() >= deadline:
                raise SystemExit(f"{PROG}: error: cannot connect to {host}:{port}: {e.strerror or e}") from None
            time.sleep(0.05)


def out_dir(args) -> Path | None:
    """--out, else under `tcplab emulate --out DIR` (TCPLAB_OUT) DIR/NAME, else none."""
    if args.out:
        return Path(args.out)
    return Path(os.environ["TCPLAB_OUT"]) / args.name if os.environ.get("TCPLAB_OUT") else None


def send(args) -> int:
    if args.time is None and args.bytes is None:
        args.time = 10.0
    out = out_dir(args)
    if out:
        out.mkdir(parents=True, exist_ok=True)
        import pandas  # noqa: F401 - before the transfer, so the end does not wait for the import
    t0 = clock0()
    s = connect(args.host, args.port, args.cc, args.connect_timeout)
    cc = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0].decode()
    s.setblocking(False)
    block = memoryview(bytes(1 << 18))
    start = time.monotonic()
    stop_at = start + args.time if args.time is not None else math.inf
    budget = args.bytes if args.bytes is not None else math.inf
    rows, times, acked, sent_b = [], [], [], []
    written, shut, ended_by = 0, False, "time"
    next_sample = start

    def sample(now):
        i = tcp_info(s)
        # the kernel counts the SYN and the FIN as a byte acknowledged each: data bytes only
        i["bytes_acked"] = min(max(i["bytes_acked"] - 1, 0), written)
        t = now - t0
        rows.append(sample_row(t, args.name, i))
        times.append(t)
        acked.append(i["bytes_acked"])
        sent_b.append(i["bytes_sent"])
        return i

    try:
        while True:
            now = time.monotonic()
            if now >= next_sample:
                info = sample(now)
                next_sample = max(next_sample + args.sample, now + args.sample / 2)
                if shut and info["unacked"] == 0 and info["notsent_bytes"] == 0:
                    break  # everything sent has been acknowledged
            if not shut and (now >= stop_at or written >= budget):
                s.shutdown(socket.SHUT_WR)
                shut, drain_until = True, now + args.drain
                ended_by = "bytes" if written >= budget else "time"
            if shut and now >= drain_until:
                break
            wait = max(0.0, next_sample - time.monotonic())
            _, writable, _ = select.select([], [] if shut else [s], [], wait)
            if writable:
                n = min(len(block), budget - written) if budget != math.inf else len(block)
                try:
                    written += s.send(block[:n])
                except BlockingIOError:
                    pass
                except OSError as e:
                    ended_by = f"error: {e.strerror or e}"
                    break
    except Stop:
        ended_by = "signal"
    _hold_signals()  # what there is gets written, even if a stop comes now
    wall = time.monotonic() - start
    final = tcp_info(s)
    final["bytes_acked"] = min(max(final["bytes_acked"] - 1, 0), written)
    s.close()
    report = {"flow": args.name, "cc": cc, "to": f"{args.host}:{args.port}", "bytes_written": written,
              "bytes_acked": final["bytes_acked"], "retransmits": final["total_retrans"], "seconds": wall,
              "start_s": start - t0, "samples": len(rows), "ended_by": ended_by,
              "goodput_bps": final["bytes_acked"] * 8 / wall if wall > 0 else 0.0}
    if out:
        write_series(out, "tcp", TCP_COLUMNS, rows, args.series)
        write_series(out, "flows", FLOW_COLUMNS, flow_rows(times, acked, sent_b, args.name, args.interval),
                     args.series)
        (out / "realtcp.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report), flush=True)
    return 0 if ended_by in ("time", "bytes") else 1


def recv(args) -> int:
    out = out_dir(args)
    if out:
        out.mkdir(parents=True, exist_ok=True)
        import pandas  # noqa: F401
    t0 = clock0()
    family = socket.AF_INET6 if ":" in args.bind else socket.AF_INET
    ls = socket.socket(family, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((args.bind, args.port))
    ls.listen(8)
    bins: dict[int, int] = {}  # bytes received per interval, by the interval's number
    buf = bytearray(1 << 18)
    served, code = 0, 0
    try:
        while args.count == 0 or served < args.count:
            c, peer = ls.accept()
            total, first, last = 0, None, None
            with c:
                while True:
                    n = c.recv_into(buf)
                    if not n:
                        break
                    last = time.monotonic() - t0
                    if first is None:
                        first = last
                    total += n
                    k = int(last // args.interval)
                    bins[k] = bins.get(k, 0) + n
            served += 1
            span = (last - first) if first is not None and last > first else 0.0
            print(json.dumps({"flow": args.name, "from": f"{peer[0]}:{peer[1]}", "bytes": total, "first_s": first,
                              "last_s": last, "goodput_bps": total * 8 / span if span else 0.0}), flush=True)
    except Stop:
        code = 0 if served else 1
    finally:
        ls.close()
    _hold_signals()
    if out and bins:
        rows, delivered = [], 0
        for k in range(min(bins), max(bins) + 1):
            delivered += bins.get(k, 0)
            rate = bins.get(k, 0) * 8 / args.interval
            rows.append((round((k + 1) * args.interval, 9), args.name, rate, rate, delivered))
        write_series(out, "flows", FLOW_COLUMNS, rows, args.series)
    return code


def seconds(text: str) -> float:
    t = text.strip()
    for suffix, scale in (("ms", 1e-3), ("us", 1e-6), ("s", 1.0)):
        if t.endswith(suffix):
            return float(t[: -len(suffix)]) * scale
    return float(t)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="A real TCP sender and receiver for measurements: "
                                "bulk TCP with a chosen congestion control, TCP_INFO sampled into tcplab's series.")
    sub = p.add_subparsers(dest="what", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--port", type=int, default=5201, help="TCP port (default 5201)")
    common.add_argument("--out", metavar="DIR",
                        help="write the series here (default: under tcplab emulate --out DIR, DIR/NAME)")
    common.add_argument("--name", default="real", help="the flow's name in the series (default real)")
    common.add_argument("--interval", type=seconds, default=0.1, metavar="S",
                        help="series-flows' interval (default 0.1 s)")
    common.add_argument("--series", choices=("parquet", "csv"), default="parquet", help="file format (default parquet)")

    s = sub.add_parser("send", parents=[common], help="send bulk data, sampling TCP_INFO")
    s.add_argument("host", help="the receiver's address")
    s.add_argument("--cc", help="congestion control (TCP_CONGESTION; default the kernel's)")
    s.add_argument("--time", type=seconds, metavar="T", help="send for T seconds (default 10 s)")
    s.add_argument("--bytes", type=int, metavar="N", help="send N bytes")
    s.add_argument("--sample", type=seconds, default=0.005, metavar="S", help="TCP_INFO every S (default 5 ms)")
    s.add_argument("--drain", type=seconds, default=5.0, metavar="S",
                   help="after the last byte, sample until it is acknowledged, at most S (default 5 s)")
    s.add_argument("--connect-timeout", type=seconds, default=10.0, metavar="S",
                   help="retry the connection this long (default 10 s)")
    s.set_defaults(func=send)

    r = sub.add_parser("recv", parents=[common], help="receive and discard, counting")
    r.add_argument("--bind", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    r.add_argument("--count", type=int, default=1, help="connections to serve, 0 for any number (default 1)")
    r.set_defaults(func=recv)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.interval <= 0 or getattr(args, "sample", 1) <= 0:
        raise SystemExit(f"{PROG}: error: intervals must be positive")
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
