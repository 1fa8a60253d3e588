"""Shared bits of the tcplab API/CLI tests (test_api.py, test_cli.py)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# These tests run the compiled extension: fail loudly (not skip) when it has not been built.
try:
    importlib.import_module("tcplab._core")
except ImportError as e:  # pragma: no cover
    raise ImportError(f"tcplab._core is not built ({e}): run scripts/setup.sh first") from e

DATA = Path(__file__).parent / "data"
DUMBBELL = DATA / "dumbbell.toml"
DUMBBELL_TEXT = DUMBBELL.read_text()
REPO = Path(__file__).resolve().parents[2]


def dumbbell_doc() -> dict:
    """The dumbbell scenario as a dict (a fresh copy each time)."""
    return tomllib.loads(DUMBBELL_TEXT)


def without_name(text: str) -> str:
    """``text`` without its ``name = "dumbbell"`` line."""
    out = text.replace('name = "dumbbell"\n', "", 1)
    assert out != text
    return out
