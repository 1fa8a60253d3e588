//! `tcplab-sim`: runs one scenario file and writes `summary.json` (and the trace files asked
//! for) into the output folder, with no Python: for batch jobs and for timing the engine on its
//! own. It writes no series (`output.interval`'s samples, the cwnd and RTT series), and so does
//! not collect them. `tcplab run` (Python) is the everyday command; both run the same core.
//!
//!     tcplab-sim SCENARIO [--out DIR] [--seed N] [--until T] [--trace ns2|cwnd|pcap|nam]... [--check] [--no-limits]
//!                [--max-events N]
//!
//! `--check` checks the run's invariants as it goes (tcplab_net::check). A run estimated far
//! beyond the machine is refused unless `--no-limits` (tcplab_net::budget); `--max-events`
//! stops a run past that many events (tcplab_net::guard).
//! Exit status: 0 ok, 2 invalid scenario or option, or a run refused or stopped by its guard
//! (one line naming the field), 1 I/O error or a broken invariant (each printed).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use tcplab_net::scenario::{folder_name, Traces};
use tcplab_net::sim::unknown_trace;
use tcplab_net::{Format, RunError, RunOptions, Scenario, ScenarioError, Simulation};

const USAGE: &str = "usage: tcplab-sim SCENARIO [--out DIR] [--seed N] [--until T] [--trace ns2|cwnd|pcap|nam]... [--check] [--no-limits] [--max-events N]";

struct Args {
    scenario: PathBuf,
    out: Option<PathBuf>,
    seed: Option<String>,
    until: Option<String>,
    traces: Vec<String>,
    check: bool,
    no_limits: bool,
    max_events: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let (mut scenario, mut out, mut seed, mut until, mut traces, mut check, mut no_limits, mut max_events) =
        (None, None, None, None, Vec::new(), false, false, None);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--seed" => seed = Some(value("--seed")?),
            "--until" => until = Some(value("--until")?),
            "--trace" => traces.push(value("--trace")?),
            "--check" => check = true,
            "--no-limits" => no_limits = true,
            "--max-events" => max_events = Some(value("--max-events")?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}\n{USAGE}")),
            path if scenario.is_none() => scenario = Some(PathBuf::from(path)),
            extra => return Err(format!("one scenario at a time ({extra} is a second)\n{USAGE}")),
        }
    }
    let scenario = scenario.ok_or_else(|| USAGE.to_string())?;
    Ok(Args { scenario, out, seed, until, traces, check, no_limits, max_events })
}

fn load(args: &Args) -> Result<(Scenario, RunOptions), ScenarioError> {
    let source = args.scenario.display().to_string();
    let text = std::fs::read_to_string(&args.scenario)
        .map_err(|e| ScenarioError::new(&source, format!("cannot read it: {e}")))?;
    let format = if args.scenario.extension().is_some_and(|e| e == "json") { Format::Json } else { Format::Toml };
    let scenario = Scenario::parse_from(&text, format, &source)?;
    let seed = match &args.seed {
        Some(s) => {
            Some(s.parse::<i64>().map_err(|_| ScenarioError::new("--seed", format!("{s:?} is not a whole number")))?)
        }
        None => None,
    };
    // the writers of files, which tcplab-sim writes; rtt is a series, which it does not
    let written: Vec<&str> = Traces::NAMES.into_iter().filter(|&t| t != "rtt").collect();
    for t in &args.traces {
        if t == "rtt" {
            return Err(ScenarioError::new(
                "--trace",
                "rtt is a series, and tcplab-sim writes none (`tcplab run` does)",
            ));
        }
        if !written.contains(&t.as_str()) {
            return Err(unknown_trace(t, &written));
        }
    }
    if scenario.traces.rtt {
        say("note: output.trace's rtt is a series, and tcplab-sim writes none (`tcplab run` does)");
    }
    let out =
        args.out.clone().unwrap_or_else(|| PathBuf::from("results").join(folder_name(&scenario.name, "scenario")));
    let opts = RunOptions::from_args(&scenario, seed, args.until.as_deref(), Some(out), &args.traces)?;
    let max_events = match &args.max_events {
        Some(n) => Some(
            n.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| ScenarioError::new("--max-events", format!("{n:?} is not a whole number above 0")))?,
        ),
        None => None,
    };
    Ok((scenario, RunOptions { check: args.check, no_limits: args.no_limits, skip_series: true, max_events, ..opts }))
}

/// One line on stderr, from tcplab-sim (see `say_more`).
fn say(message: &str) {
    let _ = writeln!(std::io::stderr(), "tcplab-sim: {message}");
}

/// A line on stderr, if anyone still reads it: with stderr closed (a pipe whose reader quit),
/// `eprintln!` would panic, and the exit status would no longer say what went wrong.
fn say_more(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(message) => {
            say(&message);
            return ExitCode::from(2);
        }
    };
    let (scenario, opts) = match load(&args) {
        Ok(x) => x,
        Err(e) => {
            say(&format!("error: {e}"));
            return ExitCode::from(2);
        }
    };
    let out = opts.out_dir.clone().expect("load sets the output folder");
    let result = Simulation::new(scenario, &opts).and_then(|sim| sim.finish()).and_then(|r| {
        std::fs::create_dir_all(&out)?;
        let text = serde_json::to_string_pretty(&r.summary).expect("summaries serialise") + "\n";
        std::fs::write(out.join("summary.json"), text)?;
        Ok::<_, RunError>(r.check)
    });
    match result {
        Ok(Some(check)) if check.violations > 0 => {
            say(&format!("{} broken invariants; the first:", check.violations));
            for v in &check.first {
                say_more(&format!("  {v}"));
            }
            ExitCode::from(1)
        }
        Ok(_) => ExitCode::SUCCESS,
        Err(RunError::Stopped(e)) => {
            say(&format!("error: {e}"));
            ExitCode::from(2)
        }
        Err(RunError::Io(e)) => {
            say(&format!("error: {}: {e}", out.display()));
            ExitCode::from(1)
        }
    }
}
