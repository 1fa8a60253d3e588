//! `tcplab._core`: the Python binding. Glue only: parse, run with the GIL released, return JSON.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError};
use pyo3::prelude::*;
use std::path::PathBuf;
use tcplab_net::budget::{Estimate, Machine};
use tcplab_net::{Format, RunError, RunOptions, Scenario, ScenarioError};

create_exception!(
    _core,
    ScenarioError_,
    PyException,
    "A scenario field is missing or wrong: args are (path, message)."
);

fn scenario_error(e: ScenarioError) -> PyErr {
    ScenarioError_::new_err((e.path, e.message))
}

/// A run stopped by its guard is the scenario's error; one that could not write its files, an
/// OSError.
fn run_error(e: RunError) -> PyErr {
    match e {
        RunError::Stopped(e) => scenario_error(e),
        RunError::Io(e) => PyOSError::new_err(e.to_string()),
    }
}

fn format_of(name: &str) -> PyResult<Format> {
    match name {
        "toml" => Ok(Format::Toml),
        "json" => Ok(Format::Json),
        other => Err(scenario_error(ScenarioError::new(
            "format",
            format!("unknown scenario format \"{other}\" (toml or json)"),
        ))),
    }
}

fn parse(text: &str, format: &str, source: Option<&str>) -> PyResult<Scenario> {
    Scenario::parse_from(text, format_of(format)?, source.unwrap_or("scenario")).map_err(scenario_error)
}

/// Checks a scenario; returns it normalized (every default filled in) as JSON.
/// `source` is the file it came from.
#[pyfunction]
#[pyo3(signature = (text, format, source=None))]
fn normalize(text: &str, format: &str, source: Option<&str>) -> PyResult<String> {
    Ok(parse(text, format, source)?.normalized_json())
}

/// A name as one harmless path component (tcplab_net::scenario::folder_name).
#[pyfunction]
fn folder_name(name: &str, default: &str) -> String {
    tcplab_net::scenario::folder_name(name, default)
}

/// The estimated cost of running a scenario (tcplab_net::budget), what this machine has, and
/// the refusal (path, message) a run would meet, as JSON.
#[pyfunction]
#[pyo3(signature = (text, format, until=None, out_dir=None, traces=Vec::new(), source=None))]
fn estimate(
    text: &str,
    format: &str,
    until: Option<&str>,
    out_dir: Option<PathBuf>,
    traces: Vec<String>,
    source: Option<&str>,
) -> PyResult<String> {
    let scenario = parse(text, format, source)?;
    let opts = RunOptions::from_args(&scenario, None, until, out_dir, &traces).map_err(scenario_error)?;
    let estimate = Estimate::of(&scenario, &opts);
    let machine = Machine::probe(opts.out_dir.as_deref()).map_err(scenario_error)?;
    let refused = estimate.check(&machine).err().map(|e| (e.path, e.message));
    Ok(serde_json::json!({ "estimate": estimate, "machine": machine, "refused": refused }).to_string())
}

/// Runs a scenario as an emulation (tcplab_net::emu): its real hosts in network namespaces,
/// its network in real time, until its end (`duration`), `command`'s exit, or SIGINT/SIGTERM.
/// Returns {"emulation": ..., "result": ...} as JSON. Raises OSError with one line when it cannot
/// run here (not root, a tool missing, the plumbing failed).
#[pyfunction]
#[pyo3(signature = (text, format, duration=None, command=None, out_dir=None, traces=Vec::new(), source=None, seed=None, realtime=true))]
#[allow(clippy::too_many_arguments)]
fn emulate(
    py: Python<'_>,
    text: &str,
    format: &str,
    duration: Option<&str>,
    command: Option<String>,
    out_dir: Option<PathBuf>,
    traces: Vec<String>,
    source: Option<&str>,
    seed: Option<i64>,
    realtime: bool,
) -> PyResult<String> {
    let scenario = parse(text, format, source)?;
    let run =
        RunOptions::from_args(&scenario, seed, duration, out_dir, &traces).map_err(|e| match e.path.as_str() {
            "--until" => scenario_error(ScenarioError::new("--duration", e.message)),
            _ => scenario_error(e),
        })?;
    let opts = tcplab_net::emu::EmuOptions { run, command, realtime };
    match py.allow_threads(|| tcplab_net::emu::emulate(scenario, &opts)) {
        Ok(r) => Ok(serde_json::to_string(&r).expect("results serialise")),
        Err(tcplab_net::emu::EmuError::Refused(why)) => Err(PyOSError::new_err(why)),
        Err(tcplab_net::emu::EmuError::Run(e)) => Err(run_error(e)),
    }
}

/// A run in progress. `advance` steps it with the GIL released so Python can show progress.
#[pyclass(module = "tcplab._core")]
struct Simulation {
    sim: Option<tcplab_net::Simulation>,
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (text, format, seed=None, until=None, out_dir=None, traces=Vec::new(), source=None, check=false, limits=true, max_events=None))]
    #[allow(clippy::too_many_arguments)] // the keyword arguments of tcplab.run, one by one
    fn new(
        text: &str,
        format: &str,
        seed: Option<i64>,
        until: Option<&str>,
        out_dir: Option<PathBuf>,
        traces: Vec<String>,
        source: Option<&str>,
        check: bool,
        limits: bool,
        max_events: Option<u64>,
    ) -> PyResult<Self> {
        let scenario = parse(text, format, source)?;
        let opts = RunOptions {
            check,
            no_limits: !limits,
            max_events,
            ..RunOptions::from_args(&scenario, seed, until, out_dir, &traces).map_err(scenario_error)?
        };
        let sim = tcplab_net::Simulation::new(scenario, &opts).map_err(run_error)?;
        Ok(Simulation { sim: Some(sim) })
    }

    #[getter]
    fn now(&self) -> PyResult<f64> {
        Ok(self.get()?.now().as_secs_f64())
    }

    #[getter]
    fn end(&self) -> PyResult<f64> {
        Ok(self.get()?.end().as_secs_f64())
    }

    /// Runs up to simulated time `to` (seconds), or until `events` events have run: true once
    /// everything up to `to` has. Raises ScenarioError once the run's guard has stopped it.
    #[pyo3(signature = (to, events=u64::MAX))]
    fn advance(&mut self, py: Python<'_>, to: f64, events: u64) -> PyResult<bool> {
        let sim = self.sim.as_mut().ok_or_else(finished)?;
        let to = tcplab_des::Time::from_secs_f64(to);
        let reached = py.allow_threads(|| sim.advance_at_most(to, events));
        match sim.stopped() {
            Some(why) => Err(scenario_error(why.clone())),
            None => Ok(reached),
        }
    }

    /// Runs to the end and returns the results as JSON.
    fn finish(&mut self, py: Python<'_>) -> PyResult<String> {
        let sim = self.sim.take().ok_or_else(finished)?;
        py.allow_threads(|| sim.finish().map(|r| r.to_json())).map_err(run_error)
    }
}

impl Simulation {
    fn get(&self) -> PyResult<&tcplab_net::Simulation> {
        self.sim.as_ref().ok_or_else(finished)
    }
}

fn finished() -> PyErr {
    PyException::new_err("this simulation has already finished")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError_>())?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(folder_name, m)?)?;
    m.add_function(wrap_pyfunction!(emulate, m)?)?;
    m.add_class::<Simulation>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // tcplab.TRACES repeats these so that importing tcplab need not load the core; a test compares
    m.add("TRACE_NAMES", tcplab_net::scenario::Traces::NAMES.to_vec())?;
    Ok(())
}
