"""Writes the generated benchmark scenarios: S3 (the 100-flow 1 Gb/s dumbbell, and its 300-flow
and 60 s variants are set by the harness), S4 (a fat tree of 1,024 flows) and S6-ext (200
Mac/802_11Ext radios broadcasting).

Run from anywhere: python bench/generate.py
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent


def dumbbell(flows: int, duration: str, ca: str | None = None, modern: str | None = None) -> str:
    """S3: `flows` NewReno flows over 1 Gb/s links (1 ms access, 10 ms bottleneck), DropTail
    1000 packets, 1500-byte packets (1460 B of payload), starting 10 ms apart. With `ca`, the
    flows are ns-2's TCP-Linux agents running that Linux module (with their SACK sinks). With
    `modern`, they are the rfc profile's modern sender with that controller and Linux's
    defaults (1448 B of payload and 52 B of headers with timestamps: still 1500 B packets)."""
    what = f"TCP-Linux {ca}" if ca else f"modern {modern} (rfc profile)" if modern else "NewReno"
    variant = ca or (f"modern-{modern}" if modern else None)
    payload = "1448 B" if modern else "1460 B"
    lines = [
        f"# S3: {flows} {what} flows over a 1 Gb/s dumbbell (issue 7). Written by bench/generate.py.",
        "# Access links 1 Gb/s 1 ms, bottleneck 1 Gb/s 10 ms, DropTail 1000 packets everywhere,",
        f"# {payload} of payload (1500 B on the wire), window 10000 (never the limit), flows 10 ms apart.",
        f'name = "s3-dumbbell-{flows}{"-" + variant if variant else ""}"',
        f'duration = "{duration}"',
        "nodes = [" + ", ".join([f'"s{i}"' for i in range(flows)] + ['"r1"', '"r2"'] + [f'"d{i}"' for i in range(flows)]) + "]",
        "",
        "[tcp]",
        "window = 10000",
        "",
        "[[links]]",
        'from = "r1"',
        'to = "r2"',
        'bandwidth = "1Gb"',
        'delay = "10ms"',
        "queue_limit = 1000",
    ]
    for i in range(flows):
        for a, b in ((f"s{i}", "r1"), ("r2", f"d{i}")):
            lines += ["", "[[links]]", f'from = "{a}"', f'to = "{b}"', 'bandwidth = "1Gb"', 'delay = "1ms"', "queue_limit = 1000"]
    for i in range(flows):
        lines += ["", "[[flows]]", f'name = "f{i}"', f'from = "s{i}"', f'to = "d{i}"']
        if modern:
            # packet_size and the headers left to the modern sender's Linux defaults
            lines += [f'protocol = "{modern}"', 'profile = "rfc"', f'start = "{i * 10}ms"']
            continue
        lines += [f'protocol = "{"linux" if ca else "newreno"}"', 'packet_size = "1460B"', f'start = "{i * 10}ms"']
        if ca:
            lines += ["[flows.tcp]", f'ca = "{ca}"']
    return "\n".join(lines) + "\n"


def fat_tree(k: int, flows_per_host: int, duration: str) -> str:
    """S4: a k-ary fat tree (k^3/4 hosts, 5k^2/4 switches) of 100 Mb/s, 0.1 ms links with
    100-packet DropTail queues. Every host sends `flows_per_host` NewReno flows to hosts in other
    pods, starting over the first second. Routes are tcplab's shortest paths (no ECMP)."""
    half = k // 2
    cores = [f"c{i}" for i in range(half * half)]
    aggs = [[f"a{p}_{i}" for i in range(half)] for p in range(k)]
    edges = [[f"e{p}_{i}" for i in range(half)] for p in range(k)]
    hosts = [[[f"h{p}_{e}_{i}" for i in range(half)] for e in range(half)] for p in range(k)]
    flat_hosts = [h for pod in hosts for edge in pod for h in edge]
    nodes = cores + [a for pod in aggs for a in pod] + [e for pod in edges for e in pod] + flat_hosts
    links = []
    for p in range(k):
        for i in range(half):
            for j in range(half):
                links.append((aggs[p][i], cores[i * half + j]))  # aggregation i of every pod: core group i
                links.append((edges[p][i], aggs[p][j]))
                links.append((hosts[p][i][j], edges[p][i]))
    lines = [
        f"# S4: a k = {k} fat tree, {len(flat_hosts)} hosts, {len(flat_hosts) * flows_per_host} NewReno flows (issue 7).",
        "# Written by bench/generate.py. 100 Mb/s, 0.1 ms links, DropTail 100 packets, 1460 B of payload;",
        "# every host sends to hosts in other pods; flows start over the first second.",
        f'name = "s4-fattree-k{k}"',
        f'duration = "{duration}"',
        "nodes = [" + ", ".join(f'"{n}"' for n in nodes) + "]",
        "",
        "[tcp]",
        "window = 1000",
    ]
    for a, b in links:
        lines += ["", "[[links]]", f'from = "{a}"', f'to = "{b}"', 'bandwidth = "100Mb"', 'delay = "0.1ms"', "queue_limit = 100"]
    n = len(flat_hosts)
    pod_size = n // k
    f = 0
    for i, src in enumerate(flat_hosts):
        for j in range(flows_per_host):
            # a host `pod_size * (j + 1) + j` further on: another pod, spread over the tree
            dst = flat_hosts[(i + pod_size * (1 + j % (k - 1)) + j) % n]
            lines += ["", "[[flows]]", f'name = "f{f}"', f'from = "{src}"', f'to = "{dst}"', 'protocol = "newreno"',
                      'packet_size = "1460B"', f'start = "{(f * 997) % 1000}ms"']
            f += 1
    return "\n".join(lines) + "\n"


def ext_broadcasts(radios: int, duration: str) -> str:
    """S6-ext: ex/802.11/broadcast_validation.tcl's network for longer: `radios` Mac/802_11Ext
    radios 5 m apart on a line, each broadcasting 1000 bytes with QPSK every 1.0 +- 0.1 s
    (Agent/PBC), with that script's radio settings."""
    nodes = [f"n{i}" for i in range(radios)]
    listed = ", ".join(f'"{n}"' for n in nodes)
    lines = [
        f"# S6-ext: {radios} Mac/802_11Ext radios broadcasting, as ex/802.11/broadcast_validation.tcl for",
        f"# {duration}. Written by bench/generate.py.",
        f'name = "s6-ext-{radios}"',
        f'duration = "{duration}"',
        f"nodes = [{listed}]",
        "",
        "[positions]",
        *[f"{n} = [{5 * i}, 10]" for i, n in enumerate(nodes)],
        "",
        "[[wlans]]",
        f"nodes = [{listed}]",
        'mac = "802_11Ext"',
        "rts_threshold = 2000",
        "queue_limit = 20",
        "ext = { tx_power = 0.001, cs_threshold = 6.30957e-12, noise_floor = 2.51189e-13, "
        "power_monitor_threshold = 2.10319e-12, sinr_preamble_capture = 2.5118, sinr_data_capture = 100.0 }",
    ]
    for n in nodes:
        lines += ["", "[[pbc]]", f'node = "{n}"', "payload = 1000", 'modulation = "qpsk"', "periodic = true"]
    lines += ["", "[output]", "mac_trace = false"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    (HERE / "s3-dumbbell.toml").write_text(dumbbell(100, "30s"))
    (HERE / "s3-dumbbell-300.toml").write_text(dumbbell(300, "30s"))
    (HERE / "s3-cubic.toml").write_text(dumbbell(100, "30s", ca="cubic"))
    (HERE / "s3-modern-cubic.toml").write_text(dumbbell(100, "30s", modern="cubic"))
    (HERE / "s4-fattree.toml").write_text(fat_tree(8, 8, "10s"))
    (HERE / "s6-ext.toml").write_text(ext_broadcasts(200, "60s"))
