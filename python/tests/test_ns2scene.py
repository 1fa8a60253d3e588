"""tcplab.ns2scene: ns-2's setdest movement files and cbrgen connection files as scenario fields."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tcplab
from tcplab import ns2scene

coord = st.floats(min_value=0.0, max_value=5000.0, allow_nan=False)
speed = st.floats(min_value=0.0, max_value=50.0, allow_nan=False)
time = st.floats(min_value=0.0, max_value=1000.0, allow_nan=False)


def movement_file(positions, moves, god):
    """A movement file as setdest writes one (`%.12f`), God's lines between."""
    lines = ["set god_ [God instance]"]
    for i, (x, y) in enumerate(positions):
        lines += [f"$node_({i}) set X_ {x:.12f}", f"$node_({i}) set Y_ {y:.12f}", f"$node_({i}) set Z_ 0.000000000000"]
    lines += [f"$god_ set-dist {i} {j} {d}" for i, j, d in god]
    for node, at, (x, y), v in moves:
        lines.append(f'$ns_ at {at:.12f} "$node_({node}) setdest {x:.12f} {y:.12f} {v:.12f}"')
        lines.append(f'$ns_ at {at:.12f} "$god_ set-dist 0 1 16777215"')
    return "\n".join(lines) + "\n#\n# Destination Unreachables: 0\n#\n"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_movements_read_back_what_setdest_wrote(data):
    positions = data.draw(st.lists(st.tuples(coord, coord), min_size=2, max_size=6))
    n = len(positions)
    moves = data.draw(st.lists(st.tuples(st.integers(0, n - 1), time, st.tuples(coord, coord), speed), max_size=8))
    god = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(0, 9)), max_size=5))
    m = ns2scene.read_movements(movement_file(positions, moves, god))
    assert m.positions == {i: [float(f"{x:.12f}"), float(f"{y:.12f}")] for i, (x, y) in enumerate(positions)}
    assert [(mv["node"], float(mv["at"]), mv["to"], mv["speed"]) for mv in m.moves] == [
        (node, float(f"{at:.12f}"), [float(f"{x:.12f}"), float(f"{y:.12f}")], float(f"{v:.12f}"))
        for node, at, (x, y), v in moves]
    # God's lines: those at the start, then one `$ns_ at` line after each move
    assert m.set_dist == [("0", i, j, d) for i, j, d in god] + [(f"{at:.12f}", 0, 1, 16777215) for _, at, _, _ in moves]


def cbr_block(k, src, dst, size, interval, random, maxpkts, start):
    return f"""#
# {src} connecting to {dst} at time {start}
#
set udp_({k}) [new Agent/UDP]
$ns_ attach-agent $node_({src}) $udp_({k})
set null_({k}) [new Agent/Null]
$ns_ attach-agent $node_({dst}) $null_({k})
set cbr_({k}) [new Application/Traffic/CBR]
$cbr_({k}) set packetSize_ {size}
$cbr_({k}) set interval_ {interval}
$cbr_({k}) set random_ {random}
$cbr_({k}) set maxpkts_ {maxpkts}
$cbr_({k}) attach-agent $udp_({k})
$ns_ connect $udp_({k}) $null_({k})
$ns_ at {start} "$cbr_({k}) start"
"""


def tcp_block(k, src, dst, size, window, start):
    return f"""set tcp_({k}) [$ns_ create-connection  TCP $node_({src}) TCPSink $node_({dst}) 0]
$tcp_({k}) set window_ {window}
$tcp_({k}) set packetSize_ {size}
set ftp_({k}) [$tcp_({k}) attach-source FTP]
$ns_ at {start} "$ftp_({k}) start"
"""


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_connections_read_back_what_cbrgen_wrote(data):
    blocks = data.draw(st.lists(st.tuples(
        st.booleans(), st.integers(0, 5), st.integers(0, 5), st.sampled_from([64, 512, 1000]),
        st.sampled_from([0.25, 0.5, 1.0, 4.0]), st.integers(0, 1), st.integers(1, 10000), time), max_size=6))
    text, ports = "", {}
    for k, (tcp, src, dst, size, interval, random, maxpkts, start) in enumerate(blocks):
        text += tcp_block(k, src, dst, size, 32, start) if tcp else cbr_block(k, src, dst, size, interval, random, maxpkts, start)
    flows = ns2scene.read_connections(text)
    assert len(flows) == len(blocks)
    for k, (f, (tcp, src, dst, size, interval, random, maxpkts, start)) in enumerate(zip(flows, blocks)):
        # ns-2's ports: each node's next one, in attach order (sender, then its sink)
        from_port, to_port = ports.get(src, 0), ports.get(dst, 0) + (src == dst)
        ports[src], ports[dst] = from_port + 1, to_port + 1
        assert (f["from"], f["to"], f["packet_size"], f["start"]) == (src, dst, size, f"{start}s")
        assert (f.get("from_port", from_port), f.get("to_port", to_port)) == (from_port, to_port)
        if tcp:
            assert (f["protocol"], f["tcp"]) == ("tahoe", {"window": 32})
        else:
            assert f["protocol"] == "udp" and f["rate"] == f"{int(size * 8 / interval)}b"
            assert (f.get("random", False), f["packets"]) == (random == 1, maxpkts)


@pytest.mark.parametrize("text, where", [
    ("$node_(0) set X_ 1.0\n$node_(0) set Z_ 3.0\n", "2: cannot read '$node_(0) set Z_ 3.0'"),
    ("$node_(0) set X_ 1.0\n", "1: cannot read '$node_(0) set X_ 1.0': node 0 has no Y_"),
    ("\n$ns_ at 1 \"$node_(0) setdest 1 2\"\n", "2: cannot read"),
])
def test_movement_errors_name_the_line(text, where):
    with pytest.raises(ns2scene.SceneError, match="scen:" + where.replace("$", r"\$").replace("(", r"\(")
                       .replace(")", r"\)")):
        ns2scene.read_movements(text, "scen")


def test_connection_errors_name_the_line():
    text = cbr_block(0, 1, 2, 512, 4.0, 1, 10, 1.5).replace("$cbr_(0) attach-agent", "$cbr_(0) attach-agnet")
    with pytest.raises(ns2scene.SceneError, match=r"cbr:13: cannot read '\$cbr_\(0\) attach-agnet"):
        ns2scene.read_connections(text, "cbr")
    with pytest.raises(ValueError, match="not a whole number"):
        ns2scene.read_connections(cbr_block(0, 1, 2, 512, 3.0, 1, 10, 1.5), "cbr")


def test_imported_scene_is_a_valid_scenario():
    """The TOML runs as a scenario once a WLAN and a duration are added; speed-0 moves too."""
    moves = [(0, 1.0, (300.0, 10.0), 20.0), (0, 5.0, (300.0, 10.0), 0.0)]
    m = ns2scene.read_movements(movement_file([(10.0, 10.0), (200.0, 10.0)], moves, []))
    flows = ns2scene.read_connections(cbr_block(0, 0, 1, 512, 0.25, 1, 20, 0.5))
    text = 'name = "scene"\nduration = "10s"\n' + ns2scene.to_toml(ns2scene.scene_fields(m, flows))
    doc = tomllib.loads(text + '\n[[wlans]]\nnodes = ["n0", "n1"]\nrouting = "dsdv"\n')
    normalized = tcplab.validate(doc)
    assert [f["packets"] for f in normalized["flows"]] == [20] and normalized["flows"][0]["random"]


def test_cli_prints_the_toml_and_names_a_bad_line(tmp_path, capsys):
    from tcplab import cli

    scen, cbr = tmp_path / "scen", tmp_path / "cbr"
    scen.write_text(movement_file([(1.0, 2.0), (3.0, 4.0)], [(1, 2.0, (5.0, 6.0), 1.0)], [(0, 1, 1)]))
    cbr.write_text(cbr_block(0, 0, 1, 512, 4.0, 1, 10000, 1.5))
    assert cli.main(["ns2", "import-scene", "--movements", str(scen), "--connections", str(cbr)]) == 0
    doc = tomllib.loads(capsys.readouterr().out)
    assert doc["nodes"] == ["n0", "n1"] and doc["moves"][0]["node"] == "n1"
    assert doc["flows"][0]["rate"] == "1024b"
    scen.write_text("$node_(0) set X_ 1\nputs hello\n")
    assert cli.main(["ns2", "import-scene", "--movements", str(scen)]) == 2
    assert f"{scen}:2: cannot read 'puts hello'" in capsys.readouterr().err
