//! A run's options beside its scenario (the command line's flags): a seed, a stop time, an
//! output folder, extra traces, checks and limits. A leaf: the budget reads them before a run
//! and the simulation during it, and neither depends on the other for them.

use crate::scenario::{Scenario, ScenarioError, Traces};
use std::path::PathBuf;
use tcplab_des::Time;

/// Per-run options that override or add to the scenario (the CLI's flags).
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub seed: Option<u64>,
    /// Stop at this time instead of the scenario's duration.
    pub until: Option<Time>,
    /// Where trace files go; needed when a file trace is on.
    pub out_dir: Option<PathBuf>,
    /// Traces added to the scenario's own.
    pub traces: Traces,
    /// Check the invariants while running (crate::check).
    pub check: bool,
    /// Run even when the estimate is far beyond the machine (crate::budget).
    pub no_limits: bool,
    /// Collect no series (`output.interval`'s samples, the cwnd and RTT series): for a runner
    /// that writes only the summary and the trace files (tcplab-sim).
    pub skip_series: bool,
    /// Stop the run, as failed, once it has dispatched this many events (crate::guard).
    pub max_events: Option<u64>,
}

impl RunOptions {
    /// The options as a command line gives them: `--seed`, `--until` ("5s"), an output
    /// directory and `--trace` names (ns2, cwnd). Errors name the option.
    pub fn from_args(
        scenario: &Scenario,
        seed: Option<i64>,
        until: Option<&str>,
        out_dir: Option<PathBuf>,
        traces: &[String],
    ) -> Result<RunOptions, ScenarioError> {
        let seed = seed.map(|s| crate::scenario::check_seed(scenario.rng, s, "--seed")).transpose()?;
        let until = match until {
            None => None,
            Some(t) => {
                let t = crate::units::parse_time(t).map_err(|m| ScenarioError::new("--until", m))?;
                if t == Time::ZERO {
                    return Err(ScenarioError::new("--until", "must be later than 0s"));
                }
                Some(t)
            }
        };
        let mut extra = Traces::default();
        for t in traces {
            if !extra.enable(t) {
                return Err(unknown_trace(t, &Traces::NAMES));
            }
        }
        Ok(RunOptions { seed, until, out_dir, traces: extra, ..RunOptions::default() })
    }
}

/// The error for a `--trace` that names none of `names`.
pub fn unknown_trace(name: &str, names: &[&str]) -> ScenarioError {
    let (last, rest) = names.split_last().expect("some trace names");
    let near =
        crate::scenario::suggest::nearest(name, names).map_or(String::new(), |k| format!(": did you mean \"{k}\"?"));
    ScenarioError::new("--trace", format!("unknown trace \"{name}\"{near} (expected {} or {last})", rest.join(", ")))
}
