//! tcplab-sim end to end: a run writes the summary the core computes; bad input exits 2 with
//! one line naming the field.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn sim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tcplab-sim"))
}

fn scenario(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name).display().to_string()
}

/// A fresh folder for one test.
fn work_dir(test: &str) -> PathBuf {
    let work = std::env::temp_dir().join(format!("tcplab-sim-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    work
}

/// `yew2011-wired/ee-reno.toml` with `extra` appended, written to `work/s.toml`: its text.
fn ee_reno_with(work: &Path, extra: &str) -> String {
    let text = std::fs::read_to_string(scenario("yew2011-wired/ee-reno.toml")).unwrap() + extra;
    std::fs::write(work.join("s.toml"), &text).unwrap();
    text
}

#[test]
fn a_run_writes_the_summary_of_the_core() {
    let out = std::env::temp_dir().join(format!("tcplab-sim-test-{}", std::process::id()));
    let status = sim()
        .args([&scenario("yew2011-wired/ee-reno.toml"), "--out", out.to_str().unwrap(), "--until", "20s", "--check"])
        .status()
        .unwrap();
    assert!(status.success());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["duration_s"], 20.0);
    let flows = summary["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 2);
    assert!(flows.iter().all(|f| f["goodput_bps"].as_f64().unwrap() > 100_000.0));
    std::fs::remove_dir_all(out).unwrap();
}

/// tcplab-sim collects no series, and that changes nothing it writes: with `output.interval`
/// and the cwnd trace, its summary and cwnd.tr are those of the core collecting both.
#[test]
fn collecting_no_series_changes_nothing_written() {
    use tcplab_net::{RunOptions, Scenario, Simulation};
    let work = work_dir("series");
    let text = ee_reno_with(&work, "\n[output]\ninterval = \"100ms\"\ntrace = [\"cwnd\"]\n");
    let status = sim()
        .args([work.join("s.toml").to_str().unwrap(), "--out", work.join("sim").to_str().unwrap(), "--until", "20s"])
        .status()
        .unwrap();
    assert!(status.success());
    let core = Scenario::from_toml(&text).unwrap();
    let opts = RunOptions::from_args(&core, None, Some("20s"), Some(work.join("core")), &[]).unwrap();
    let r = Simulation::new(core, &opts).unwrap().finish().unwrap();
    assert!(r.series.flows.is_some() && r.series.cwnd.is_some(), "the core collected the series");
    let summary = serde_json::to_string_pretty(&r.summary).unwrap() + "\n";
    assert_eq!(std::fs::read_to_string(work.join("sim/summary.json")).unwrap(), summary);
    assert_eq!(std::fs::read(work.join("sim/cwnd.tr")).unwrap(), std::fs::read(work.join("core/cwnd.tr")).unwrap());
    std::fs::remove_dir_all(work).unwrap();
}

/// An `rtt` asked for by the scenario file is a series tcplab-sim does not write: the run goes
/// on, and says so.
#[test]
fn a_series_the_scenario_asks_for_is_named_as_not_written() {
    let work = work_dir("rtt");
    ee_reno_with(&work, "\n[output]\ntrace = [\"rtt\"]\n");
    let out = sim()
        .args([work.join("s.toml").to_str().unwrap(), "--out", work.join("out").to_str().unwrap(), "--until", "1s"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "tcplab-sim: note: output.trace's rtt is a series, and tcplab-sim writes none (`tcplab run` does)\n"
    );
    assert!(work.join("out/summary.json").is_file());
    std::fs::remove_dir_all(work).unwrap();
}

#[test]
fn the_default_folder_is_the_name_made_harmless() {
    let work = work_dir("folder");
    std::fs::create_dir_all(work.join("inner")).unwrap();
    let text = std::fs::read_to_string(scenario("yew2011-wired/ee-reno.toml"))
        .unwrap()
        .replace("name = \"ee-reno\"", "name = \"../up here\"");
    std::fs::write(work.join("inner/s.toml"), text).unwrap();
    let status = sim().args(["s.toml", "--until", "1s"]).current_dir(work.join("inner")).status().unwrap();
    assert!(status.success());
    assert!(work.join("inner/results/.._up_here/summary.json").is_file(), "results/<the name made harmless>");
    assert!(!work.join("up here").exists());
    std::fs::remove_dir_all(work).unwrap();
}

#[test]
fn bad_input_exits_2_naming_the_field() {
    for (args, field) in [
        (vec![scenario("yew2011-wired/ee-reno.toml"), "--until".into(), "soon".into()], "--until"),
        (
            vec![scenario("yew2011-wired/ee-reno.toml"), "--trace".into(), "xgraph".into()],
            "(expected ns2, cwnd, pcap or nam)",
        ),
        (vec![scenario("yew2011-wired/ee-reno.toml"), "--trace".into(), "rtt".into()], "--trace: rtt is a series"),
        (vec![scenario("no-such.toml")], "no-such.toml"),
        (vec!["--frobnicate".into()], "unknown option"),
    ] {
        let out = sim().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("tcplab-sim: ") && err.contains(field), "{args:?}: {err}");
    }
    let out = sim().arg(scenario("yew2011-wired/ee-reno.toml")).env("TCPLAB_MAX_MEMORY", "lots").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("TCPLAB_MAX_MEMORY: \"lots\" is not a size"), "{err}");
}

/// A run its guard stops (here ns-2's estimator, whose 32-bit ticks a 10 ps tick overflows)
/// exits 2 with one line naming the field, whatever the limits.
#[test]
fn a_stopped_run_exits_2_naming_the_field() {
    let work = work_dir("stopped");
    let text = std::fs::read_to_string(scenario("yew2011-wired/ee-reno.toml")).unwrap();
    std::fs::write(work.join("s.toml"), text.replacen("[tcp]\n", "[tcp]\ntcp_tick = \"10ps\"\n", 1)).unwrap();
    for extra in [&[][..], &["--no-limits"][..]] {
        let out = sim()
            .arg(work.join("s.toml"))
            .args(["--out", work.join("out").to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("tcplab-sim: error: flows[0].tcp.tcp_tick: ") && err.lines().count() == 1, "{err}");
    }
}

#[test]
fn exit_status_survives_a_closed_stderr() {
    // the pipe's only reader is gone before tcplab-sim starts: each line it writes fails
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = sim().arg("--frobnicate").stderr(Stdio::from(writer)).status().unwrap();
    assert_eq!(status.code(), Some(2));
}
