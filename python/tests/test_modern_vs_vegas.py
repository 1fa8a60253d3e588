"""The study modern-vs-vegas (experiments/modern-vs-vegas/): its definition, without running it
whole. tests/test_studies.py runs its quick form as every study's."""

from __future__ import annotations

import runpy
import shutil

import tcplab
from tcplab import paper, studies, sweep

STUDY = studies.EXPERIMENTS / "modern-vs-vegas"
SCENARIOS = studies.EXPERIMENTS.parent / "scenarios" / "modern-vs-vegas"
CONTROLLERS = {"cubic", "bbr", "vegas", "enhanced-vegas"}


def test_study_toml_parses_and_its_sweep_validates():
    _, study, built = studies.study_sweep("modern-vs-vegas")
    assert study["tables"] and not study.get("unknowns")
    # 4 alone + 10 pairs (a controller against itself included) on the wired dumbbell, 4 on the
    # handover topology: 18 scenarios at the study's seeds
    assert len(built.runs) == 18 * study["sweep"]["seeds"]
    for path in SCENARIOS.glob("*.toml"):
        tcplab.validate(sweep.read_scenario(path))


def test_the_generated_files_are_up_to_date(tmp_path):
    """generate.py and cells.py write what is committed (edit them, not their output)."""
    copy = tmp_path / "scenarios"
    shutil.copytree(SCENARIOS.parent, copy, ignore=shutil.ignore_patterns("*.pyc"))
    runpy.run_path(str(copy / "modern-vs-vegas" / "generate.py"), run_name="__main__")
    for path in SCENARIOS.glob("*.toml"):
        assert (copy / "modern-vs-vegas" / path.name).read_text() == path.read_text(), path.name
    assert {p.name for p in (copy / "modern-vs-vegas").glob("*.toml")} == {p.name for p in SCENARIOS.glob("*.toml")}
    study = tmp_path / "study"
    study.mkdir()
    shutil.copy(STUDY / "cells.py", study)
    runpy.run_path(str(study / "cells.py"), run_name="__main__")
    assert (study / "paper.toml").read_text() == (STUDY / "paper.toml").read_text()


def test_every_cell_names_a_scenario_and_flow_of_the_study():
    flows = {}
    for path in SCENARIOS.glob("*.toml"):
        doc = sweep.read_scenario(path)
        flows[doc["name"]] = {f["name"] for f in doc["flows"]}
    tables = {t["id"] for t in paper.read_toml(STUDY / "study.toml")["tables"]}
    cells = paper.cells(STUDY)
    for c in cells:
        assert c.table in tables and c.scenario in flows
        assert c.flow is None or c.flow in flows[c.scenario]
    # the one reference line: two ns-2 Vegas flows of Yew, Ong and Ahmad's Table V (E/E)
    assert [(c.row, c.paper) for c in cells if c.paper is not None] == [("Vegas vs Vegas", 1983.24)]


def test_the_enhanced_vegas_is_the_yew2013_studys():
    """Spacing, progressive cwnd P1 and the congestion measure, as yew2013-enhanced-vegas's last
    ablation sets them."""
    doc = sweep.read_scenario(SCENARIOS / "wired-enhanced-vegas.toml")
    (f,) = doc["flows"]
    assert f["protocol"] == "vegas" and f["pacing"] == {"rtt": "latest"}
    assert f["vegas"] == {"progressive": "p1", "congestion_measure": True}
    handover = sweep.read_scenario(SCENARIOS / "handover-enhanced-vegas.toml")
    assert handover["tcp"] == {"ecn": True} and all(
        link.get("queue") == "red" for link in handover["links"] if link["from"] in ("n1", "map"))


def test_a_tiny_version_runs(tmp_path):
    """Two scenarios of 3 s, one seed: Vegas against CUBIC and CUBIC to the mobile node."""
    for name in ("wired-cubic-vegas", "handover-cubic"):
        doc = sweep.read_scenario(SCENARIOS / f"{name}.toml")
        doc["duration"] = "3s"
        result = tcplab.run(doc, seed=1)
        assert all(f["goodput_bps"] > 0 for f in result.summary["flows"]), name
