"""A paper's published numbers: the cells of a study's paper.toml, each tied to the scenario,
flow and metric it is compared with, and what a cell measures. A leaf of the study modules:
studies (the runs), readings, fingerprint, calibrate and study_report all read cells from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import tcplab
from tcplab import ScenarioError

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

RATES = ("goodput_bps", "throughput_bps")


def read_toml(path: Path) -> dict:
    """A study's TOML file; a STUDY may be any folder, so errors name the file (and reads are
    bounded, as every input's: tcplab._read_file)."""
    try:
        return tomllib.loads(tcplab._read_file(str(path)).text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(str(path), f"not valid TOML: {e}") from None


@dataclass
class Cell:
    table: str
    row: str
    column: str
    paper: float | None
    scenario: str
    metric: str
    flow: str | None  # a flow name, or None for an aggregate over the flows
    aggregate: str  # "sum" or "mean" over flows when flow is None
    scale: float
    params: dict  # the sweep grid's values of the run it is compared with ({} for any)
    handover: int | None = None  # a handover's effect (0: the first) instead of a flow metric
    normalise: str | None = None  # "max": over the column's largest mean; "inverse": 1 - that
    share: str | None = None  # a share of the flow's rate: of "capacity" or of the "total" of the flows
    capacity: float | None = None  # b/s, what a share of "capacity" divides by
    printed: str | None = None  # the paper's value as printed (its digits: "218.160"), if given


def cells(study_dir: Path) -> list[Cell]:
    """The paper's published numbers in the study's paper.toml, in its order."""
    doc = read_toml(study_dir / "paper.toml")
    out = []
    for i, c in enumerate(doc.get("cells", [])):
        printed = c.get("printed")
        cell = Cell(table=c["table"], row=c["row"], column=c["column"],
                    paper=float(printed) if printed is not None else c.get("paper"),
                    scenario=c["scenario"], metric=c.get("metric", "goodput_bps"), flow=c.get("flow"),
                    aggregate=c.get("aggregate", "sum"), scale=c.get("scale", 1.0), params=c.get("params", {}),
                    handover=c.get("handover"), normalise=c.get("normalise"), share=c.get("share"),
                    capacity=c.get("capacity"), printed=printed)
        if cell.share not in (None, "capacity", "total") or (cell.share == "capacity" and not cell.capacity):
            raise ScenarioError(f"paper.toml: cells[{i}].share", 'is "capacity" (with capacity in b/s) or "total"')
        out.append(cell)
    return out


def quantity(cell: Cell) -> str:
    """What a cell measures, as a paper's column groups it: throughput, share, delay, or its metric."""
    if cell.share:
        return "share"
    if cell.metric in RATES:
        return "throughput"
    return "delay" if cell.metric.startswith("delay") else cell.metric


def column_of(cell: Cell) -> str:
    """The paper column a cell belongs to, for errors per column: its table, quantity and column
    (the column alone when its name says the quantity already: "throughput (kb/s)")."""
    what = quantity(cell)
    return f"{cell.table} {cell.column}" if what.split("_")[0] in cell.column.lower() else f"{cell.table} {what} {cell.column}"


def fmt(v: float | None) -> str:
    """A number as the reports print one without a paper's digits to follow."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.4g}" if abs(v) < 1000 else f"{v:.0f}"
