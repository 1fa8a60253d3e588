"""Side-by-side conformance with ns-2.35's own regression suites.

For each suite (``test-suite-<name>.tcl`` from Debian's ``ns2-examples``), every test that has
a tcplab scenario under ``conformance/ns2/<suite>/<test>.toml`` is run twice: by ns-2, in a
scratch copy of the examples' test folder, which leaves the packet trace ``all.tr`` behind
(the suites then call plotting helpers Debian does not ship, so ns exits non-zero after the
trace is complete), and by tcplab on the scenario. The two traces are compared line by line.
Tests listed in the suite's ``skipped.toml`` are reported with their reason; tests with neither
a scenario nor a reason are reported as skipped too ("no tcplab scenario").

A suite whose tests write no packet trace but the cwnd_ traces of their senders (``noTraceFiles``
and ``enable_tracecwnd``, as test-suite-tcpHighspeed.tcl) names those files in its ``suite.toml``
(``[cwnd_traces]``, file = the sender's node address); they are compared with tcplab's cwnd
trace, one sender at a time.

A suite whose tests write their trace elsewhere names it (``trace = "out.tr"``); one whose Tcl
writes lines of its own into it (test-suite-simple.tcl's ``v testName ...``) lists how they start
(``not_compared``), and those lines of ns-2's trace are left out of the comparison. The tests a
wireless suite ends with ``finish-basenode``, which keeps only the wireless lines of its trace,
are listed in ``finish_basenode``; tcplab's trace is cut the same way. The suites run in a copy of
the examples' ``test`` folder beside one of ``mobility`` (scene files unzipped), where they look.

A folder whose ``suite.toml`` names one of the examples' scripts (``script =
"ex/802.11/infra.tcl"``) compares that script: ns-2 runs it in a scratch copy of its folder, and
the trace it writes (``trace``; ``"-"``: the trace lines of its standard output) is compared
with tcplab's run of the folder's one scenario; ``args`` are the script's command-line
arguments (the ex/802.11 validation scripts take their seed there, and with none draw one from
the clock). One that tcplab cannot express says why (``skip``), and is reported skipped with
that reason.

A suite whose Tcl runs no test names the folder of Debian's reference outputs instead
(``outputs = "test-output-wireless-lan"``): each test's ``<test>.gz`` there is ns-2's trace. The
wireless suites source ``../mobility/scene/`` files, copied (unpacked) beside the test folder.

A suite whose folder has a ``suite.toml`` saying ``reference = "translate"`` is tcplab's own: its
tests are its scenario files (or those of the repository folder named by ``scenarios``), and
ns-2 runs each one as ``tcplab.ns2`` translates it to Tcl. One of WLAN scenarios names the
wireless trace formats to compare (``wireless_formats = ["old", "new"]``): each scenario is then
run, and compared, once per format.

    tcplab conformance ns2 [--suite tcpVariants ...] [--json]
"""

from __future__ import annotations

import gzip
import os
import gzip
import re
import shutil
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import tcplab
from tcplab.tracediff import diff_traces
from tcplab.ns2 import ns_environment

#: Where Debian's ns2-examples keeps the suites (override with TCPLAB_NS2_EXAMPLES).
EXAMPLES = Path(os.environ.get("TCPLAB_NS2_EXAMPLES", "/usr/share/doc/ns2/examples/tcl"))


class ConformanceError(RuntimeError):
    """ns-2 or its suites are missing, or a suite cannot be listed."""


def scenario_root() -> Path:
    """conformance/ns2 of the source tree this package runs from (or of the working directory)."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        root = base / "conformance" / "ns2"
        if root.is_dir():
            return root
    raise ConformanceError("cannot find conformance/ns2 (run from the tcplab repository)")


def available_suites(root: Path | None = None) -> list[str]:
    root = root or scenario_root()
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


@dataclass
class SuiteReport:
    tests: list[str] = field(default_factory=list)
    identical: list[str] = field(default_factory=list)
    different: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)

    def as_json(self) -> dict:
        return {
            "total": len(self.identical) + len(self.different),
            "identical": len(self.identical),
            "different": self.different,
            "skipped": self.skipped,
        }


class Ns2Suites:
    """A scratch copy of the ns-2 examples' tcl/test folder to run suite tests in."""

    def __init__(self, examples: Path = EXAMPLES):
        self.ns = shutil.which("ns")
        if self.ns is None:
            raise ConformanceError("ns-2 (`ns`) is not installed: bash conformance/install-ns2.sh")
        if not (examples / "test").is_dir():
            raise ConformanceError(f"no ns-2 test suites in {examples}: install ns2-examples")
        self._tmp = tempfile.TemporaryDirectory(prefix="tcplab-ns2-suites-")
        self.examples = examples
        self.dir = Path(self._tmp.name) / "test"
        shutil.copytree(examples / "test", self.dir)
        # the wireless suites source ../mobility/scene/<file>, which Debian gzips
        scenes = examples / "mobility" / "scene"
        if scenes.is_dir():
            copy = Path(self._tmp.name) / "mobility" / "scene"
            copy.mkdir(parents=True)
            for f in scenes.iterdir():
                if f.suffix == ".gz":
                    (copy / f.stem).write_bytes(gzip.decompress(f.read_bytes()))
                elif f.is_file():
                    shutil.copy(f, copy / f.name)

    def close(self) -> None:
        self._tmp.cleanup()

    def tests(self, suite: str) -> list[str]:
        """The suite's test names, as its usage message lists them."""
        out = self._ns(suite)
        m = re.search(r"Valid tests are:\s*(.*)", out.stdout + out.stderr)
        if m:
            return m.group(1).split()
        # A suite with its own usage message (rbp, the wireless suites, whose messages name
        # tests they do not have): its tests are its Test/ classes.
        tests = re.findall(r"^[ \t]*Class Test/(\S+)", (self.dir / f"test-suite-{suite}.tcl").read_text(), re.M)
        if not tests:
            raise ConformanceError(f"cannot list the tests of test-suite-{suite}.tcl")
        return tests

    def trace(self, suite: str, test: str, dest: Path, name: str = "all.tr") -> Path:
        """Runs one test and moves its packet trace (`name`, all.tr for most suites) to `dest`."""
        return self.traces(suite, test, {name: dest})[name]

    def traces(self, suite: str, test: str, dests: dict[str, Path]) -> dict[str, Path]:
        """Runs one test and moves each file it writes that `dests` names to its destination."""
        for name in dests:
            (self.dir / name).unlink(missing_ok=True)
        out = self._ns(suite, test, "QUIET")
        moved = {}
        for name, dest in dests.items():
            if not (self.dir / name).exists():
                raise ConformanceError(f"ns-2 wrote no {name} for {suite}/{test}: {out.stderr.strip()[-300:]}")
            moved[name] = Path(shutil.move(self.dir / name, dest))
        return moved

    def example(self, script: str, dest: Path, name: str, args: list[str] | None = None) -> Path:
        """Runs one of the examples' scripts (`script`, relative to the examples' folder, with
        its command-line `args`) in a scratch copy of its folder and moves the trace it writes
        there (`name`) to `dest`; `name` "-" is its standard output, of which the trace lines
        are kept (the script's own `puts` lines and C's are not the trace)."""
        source = self.examples / script
        if not source.is_file():
            raise ConformanceError(f"no {script} in {self.examples}: install ns2-examples")
        # one flat copy per folder: ex/ and ex/802.11/ must not nest in each other
        folder = Path(self._tmp.name) / "examples" / str(Path(script).parent).replace("/", "--")
        if not folder.is_dir():
            shutil.copytree(source.parent, folder)
        if name != "-":
            (folder / name).unlink(missing_ok=True)
        out = subprocess.run([self.ns, source.name, *(args or [])], cwd=folder, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=600, env=ns_environment())
        if name == "-":
            if out.returncode != 0:
                raise ConformanceError(f"ns-2 failed on {script}: {out.stderr.strip()[-300:]}")
            dest.write_text("".join(line for line in out.stdout.splitlines(keepends=True)
                                    if re.match(r"[srDfM] \d", line)))
            return dest
        if not (folder / name).exists():
            raise ConformanceError(f"ns-2 wrote no {name} for {script}: {out.stderr.strip()[-300:]}")
        return Path(shutil.move(folder / name, dest))

    def reference_output(self, folder: str, test: str, dest: Path) -> Path:
        """Debian's reference output of a test (`<folder>/<test>.gz` in the test folder),
        unpacked to `dest`."""
        source = self.dir / folder / f"{test}.gz"
        if not source.is_file():
            raise ConformanceError(f"no {folder}/{test}.gz in {self.examples / 'test'}")
        dest.write_bytes(gzip.decompress(source.read_bytes()))
        return dest

    def _ns(self, suite: str, *args: str) -> subprocess.CompletedProcess:
        # stdin from /dev/null: test-suite-rh.tcl asks for its drops there, and reads "" (none)
        return subprocess.run([self.ns, f"test-suite-{suite}.tcl", *args], cwd=self.dir,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600,
                              env=ns_environment())


def _meta(folder: Path) -> dict:
    """The suite's suite.toml: `reference = "translate"` (and `scenarios`) for tcplab's own
    suites, `trace` for an ns-2 suite whose tests write their trace elsewhere than all.tr,
    `script_header_lines` for one whose trace opens with lines its Tcl writes itself, `script`
    for one of the examples' scripts."""
    meta_file = folder / "suite.toml"
    return tomllib.loads(meta_file.read_text()) if meta_file.exists() else {}


def _own_suite(folder: Path) -> Path | None:
    """For a suite of tcplab scenarios that ns-2 runs through tcplab's translator, the folder
    holding its scenarios; None for a suite of ns-2's."""
    meta = _meta(folder)
    if meta.get("reference") != "translate":
        return None
    # `scenarios` is relative to the repository (conformance/ns2/<suite> is three levels down)
    return folder.parents[2] / meta["scenarios"] if "scenarios" in meta else folder


def _wireless_lines_only(trace: Path) -> None:
    """What the wireless suites' `finish-basenode` leaves of a trace: the `M` lines and the
    lines of more than 15 fields (the wireless ones; a wired line has 12)."""
    lines = trace.read_text().splitlines(keepends=True)
    trace.write_text("".join(ln for ln in lines if ln.startswith("M") or len(ln.split(" ")) > 15))


def _drop_lines(trace: Path, prefixes: list[str]) -> None:
    """Removes from ns-2's trace the lines that start with one of `prefixes`: lines a suite's
    Tcl writes itself (its test's name), not the simulator."""
    if prefixes:
        lines = trace.read_text().splitlines(keepends=True)
        trace.write_text("".join(ln for ln in lines if not ln.startswith(tuple(prefixes))))


def _compare(report: SuiteReport, test: str, ours: Path, theirs: Path) -> None:
    diff = diff_traces(str(ours), str(theirs))
    if diff.identical:
        report.identical.append(test)
    else:
        report.different.append({
            "test": test,
            "equal_lines": diff.equal_prefix,
            "first_line": diff.first_diff_a,
            "tcplab": diff.line_a,
            "ns2": diff.line_b,
        })


def _cwnd_lines(path: Path, addr: int) -> list[str]:
    """The lines of tcplab's cwnd trace for the sender at node address `addr`. The suites call
    `trace cwnd_` before `attach`, so ns-2 writes no line when the trace is attached; tcplab's
    line for that moment (its first, at time 0: a new agent's cwnd_) is left out."""
    lines = [line for line in path.read_text().splitlines() if line.split()[1] == str(addr)]
    if lines and lines[0].split()[0] == "0.00000":
        lines = lines[1:]
    return lines


def _compare_cwnd(report: SuiteReport, test: str, ours: Path, theirs: dict[str, Path], addrs: dict[str, int]) -> None:
    for name, addr in addrs.items():
        mine, other = _cwnd_lines(ours, addr), theirs[name].read_text().splitlines()
        k = next((i for i, (a, b) in enumerate(zip(mine, other)) if a != b), min(len(mine), len(other)))
        if k < max(len(mine), len(other)):
            report.different.append({
                "test": f"{test} ({name})",
                "equal_lines": k,
                "first_line": k + 1,
                "tcplab": mine[k] if k < len(mine) else None,
                "ns2": other[k] if k < len(other) else None,
            })
            return
    report.identical.append(test)


def _in_share(report: SuiteReport, test: str, every: int) -> bool:
    """Whether `test` is compared when only every `every`-th test of a suite is (a fixed share:
    the first, then every `every`-th after it); one left out is reported skipped, saying so."""
    if report.tests.index(test) % every == 0:
        return True
    report.skipped.append({"test": test, "reason": f"left out of this run's share (one test in {every})"})
    return False


def run_suite(suite: str, ns2: Ns2Suites, root: Path, work: Path, every: int = 1) -> SuiteReport:
    folder = root / suite
    own = _own_suite(folder)
    if own is not None:
        from tcplab.ns2 import run_ns2

        stems = sorted(p.stem for p in own.glob("*.toml") if p.name != "suite.toml")
        formats = _meta(folder).get("wireless_formats")
        if not formats:
            report = SuiteReport(tests=stems)
            for test in report.tests:
                if not _in_share(report, test, every):
                    continue
                scenario = own / f"{test}.toml"
                theirs = run_ns2(scenario, str(work / f"{suite}-{test}.ns2"), cwnd=False)["trace"]
                out = work / f"{suite}-{test}"
                tcplab.run(scenario, out=out, trace=["ns2"])
                _compare(report, test, out / "trace.tr", Path(theirs))
            return report
        # A WLAN suite: each scenario once per wireless trace format ns-2 writes (the old CMU
        # format, and the new one of `$ns use-newtrace`), as "<test> (<format>)".
        report = SuiteReport(tests=[f"{stem} ({fmt})" for stem in stems for fmt in formats])
        for stem in stems:
            doc = tomllib.loads((own / f"{stem}.toml").read_text())
            for fmt in formats:
                if not _in_share(report, f"{stem} ({fmt})", every):
                    continue
                scenario = {**doc, "output": {**doc.get("output", {}), "wireless_format": fmt}}
                theirs = run_ns2(scenario, str(work / f"{suite}-{stem}-{fmt}.ns2"), cwnd=False)["trace"]
                out = work / f"{suite}-{stem}-{fmt}"
                tcplab.run(scenario, out=out, trace=["ns2"])
                _compare(report, f"{stem} ({fmt})", out / "trace.tr", Path(theirs))
        return report
    script = _meta(folder).get("script")
    if script is not None:
        # one of the examples' scripts, and its one scenario (or why it has none: `skip`)
        test = Path(script).stem
        report = SuiteReport(tests=[test])
        if "skip" in _meta(folder):
            report.skipped.append({"test": test, "reason": _meta(folder)["skip"]})
            return report
        theirs = ns2.example(script, work / f"{suite}-{test}.ns2.tr", _meta(folder)["trace"], _meta(folder).get("args"))
        out = work / f"{suite}-{test}"
        tcplab.run(folder / f"{test}.toml", out=out, trace=["ns2"])
        _compare(report, test, out / "trace.tr", theirs)
        return report
    skipped_file = folder / "skipped.toml"
    reasons = tomllib.loads(skipped_file.read_text())["skipped"] if skipped_file.exists() else {}
    report = SuiteReport(tests=ns2.tests(suite))
    for test in report.tests:
        scenario = folder / f"{test}.toml"
        if not scenario.exists():
            report.skipped.append({"test": test, "reason": reasons.get(test, "no tcplab scenario")})
            continue
        if not _in_share(report, test, every):
            continue
        out = work / f"{suite}-{test}"
        cwnd = _meta(folder).get("cwnd_traces")
        if cwnd:
            theirs_cwnd = ns2.traces(suite, test, {name: work / f"{suite}-{test}.ns2.{name}" for name in cwnd})
            tcplab.run(scenario, out=out, trace=["cwnd"])
            _compare_cwnd(report, test, out / "cwnd.tr", theirs_cwnd, cwnd)
            continue
        if "outputs" in _meta(folder):
            # a suite whose Tcl runs no test (test-suite-wireless-lan.tcl exits at once, saying
            # wireless-lan-newnode subsumes it): Debian's reference outputs stand for ns-2
            theirs = ns2.reference_output(_meta(folder)["outputs"], test, work / f"{suite}-{test}.ns2.tr")
        else:
            theirs = ns2.trace(suite, test, work / f"{suite}-{test}.ns2.tr", _meta(folder).get("trace", "all.tr"))
        _drop_lines(theirs, _meta(folder).get("not_compared", []))
        tcplab.run(scenario, out=out, trace=["ns2"])
        if test in _meta(folder).get("finish_basenode", []):
            _wireless_lines_only(out / "trace.tr")
        _compare(report, test, out / "trace.tr", theirs)
    return report


def run(suites: list[str] | None = None, progress=None, every: int = 1) -> dict[str, SuiteReport]:
    """Runs the given suites (all that have scenarios when None), comparing every test, or with
    `every` > 1 a fixed share of each suite's: the first and every `every`-th after it."""
    root = scenario_root()
    available = available_suites(root)
    suites = suites or available
    unknown = [s for s in suites if s not in available]  # a name, not a path
    if unknown:
        raise tcplab.ScenarioError("--suite", f"no scenarios for {', '.join(map(repr, unknown))} "
                                   f"(available: {', '.join(available)})")
    ns2 = Ns2Suites()
    try:
        with tempfile.TemporaryDirectory(prefix="tcplab-conformance-") as work:
            reports = {}
            for suite in suites:
                if progress:
                    progress(suite)
                reports[suite] = run_suite(suite, ns2, root, Path(work), every)
            return reports
    finally:
        ns2.close()


def format_table(reports: dict[str, SuiteReport]) -> str:
    lines = [f"{'suite':<16} {'compared':>8} {'identical':>9} {'different':>9} {'skipped':>7}"]
    for name, r in reports.items():
        j = r.as_json()
        lines.append(f"{name:<16} {j['total']:>8} {j['identical']:>9} {len(r.different):>9} {len(r.skipped):>7}")
    for name, r in reports.items():
        for d in r.different:
            lines.append(f"\n{name}/{d['test']}: {d['equal_lines']} lines agree, then line {d['first_line']}:")
            lines.append(f"  tcplab: {d['tcplab']}")
            lines.append(f"  ns-2:   {d['ns2']}")
    return "\n".join(lines)
