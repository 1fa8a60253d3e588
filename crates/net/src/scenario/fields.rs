//! The parser's field helpers: a quantity, a switch, a range, a name among names, a node, each
//! read at its field's path into a value or an error that names the path. validate.rs,
//! algorithms.rs and wireless.rs share them; they depend on nothing of the three.

use super::raw::{Flag, Quantity};
use super::ScenarioError;
use crate::units;
use std::collections::HashMap;
use tcplab_des::Time;

pub(super) type Res<T> = Result<T, ScenarioError>;

pub(super) fn err<T>(path: impl Into<String>, message: impl Into<String>) -> Res<T> {
    Err(ScenarioError::new(path, message))
}

pub(super) fn time(q: &Quantity, path: &str) -> Res<Time> {
    let r = match q {
        Quantity::Int(i) => units::seconds_to_time(*i as f64).map_err(|e| format!("{i} {e}")),
        Quantity::Float(f) => units::seconds_to_time(*f).map_err(|e| format!("{f} {e}")),
        Quantity::Text(s) => units::parse_time(s),
    };
    r.map_err(|m| ScenarioError::new(path, m))
}

/// A time as the exact double ns-2 would hold (events scheduled from the scenario use it).
pub(super) fn exact_seconds(q: &Quantity, path: &str) -> Res<f64> {
    let s = match q {
        Quantity::Int(i) => *i as f64,
        Quantity::Float(f) => *f,
        Quantity::Text(s) => units::parse_seconds(s).map_err(|m| ScenarioError::new(path, m))?,
    };
    time(q, path)?; // the range checks
    Ok(s)
}

pub(super) fn seconds(q: &Quantity, path: &str) -> Res<f64> {
    time(q, path).map(Time::as_secs_f64)
}

/// ns-2 keeps `srtt_init_` and `rttvar_init_` in C++ ints: whole seconds only.
pub(super) fn whole_seconds(q: &Quantity, path: &str) -> Res<f64> {
    let s = seconds(q, path)?;
    if s != s.trunc() {
        return err(path, format!("{s} s is not a whole number of seconds (ns-2 keeps this knob as an integer)"));
    }
    Ok(s)
}

pub(super) fn rate(q: &Quantity, path: &str) -> Res<u64> {
    let r = match q {
        Quantity::Int(i) => units::rate_from_bps(*i as f64).map_err(|e| format!("{i} {e}")),
        Quantity::Float(f) => units::rate_from_bps(*f).map_err(|e| format!("{f} {e}")),
        Quantity::Text(s) => units::parse_rate(s),
    };
    r.map_err(|m| ScenarioError::new(path, m))
}

pub(super) fn size(q: &Quantity, path: &str) -> Res<u64> {
    let r = match q {
        Quantity::Int(i) if *i >= 0 => Ok(*i as u64),
        Quantity::Int(i) => Err(format!("{i} is negative")),
        Quantity::Float(f) => Err(format!("{f} is not a whole number of bytes")),
        Quantity::Text(s) => units::parse_size(s),
    };
    r.map_err(|m| ScenarioError::new(path, m))
}

pub(super) fn flag(f: Flag, path: &str) -> Res<bool> {
    match f {
        Flag::Bool(b) => Ok(b),
        Flag::Int(0) => Ok(false),
        Flag::Int(1) => Ok(true),
        Flag::Int(i) => err(path, format!("{i} is not a switch (use true/false or 1/0)")),
    }
}

/// An integer in [lo, hi].
pub(super) fn int_in(v: i64, lo: i64, hi: i64, path: &str) -> Res<u32> {
    if v < lo || v > hi {
        err(path, format!("{v} is out of range (expected {lo}..={hi})"))
    } else {
        Ok(v as u32)
    }
}

pub(super) fn real_in(v: f64, lo: f64, hi: f64, path: &str) -> Res<f64> {
    if !v.is_finite() || v < lo || v > hi {
        err(path, format!("{v} is out of range (expected {lo}..={hi})"))
    } else {
        Ok(v)
    }
}

pub(super) fn one_of<'a>(value: &str, choices: &[&'a str], what: &str, path: &str) -> Res<&'a str> {
    choices.iter().find(|c| **c == value).copied().ok_or_else(|| {
        let near = super::suggest::nearest(value, choices).map_or(String::new(), |k| format!(": did you mean {k:?}?"));
        ScenarioError::new(path, format!("unknown {what} {value:?}{near} (expected one of: {})", choices.join(", ")))
    })
}

/// The id of node `name` at `path`, which is required.
pub(super) fn node_named(name: &Option<String>, path: &str, node_ids: &HashMap<&str, usize>) -> Res<usize> {
    let n = name.as_ref().ok_or_else(|| ScenarioError::new(path, "is required (a node name)"))?;
    node_id(n, path, node_ids)
}

/// The id of node `name` at `path`, or an error that names the node meant when one is near.
pub(super) fn node_id(name: &str, path: &str, node_ids: &HashMap<&str, usize>) -> Res<usize> {
    node_ids.get(name).copied().ok_or_else(|| {
        let mut known: Vec<&str> = node_ids.keys().copied().collect();
        known.sort_unstable(); // the same hint every time, whatever the map's order
        let near = super::suggest::nearest(name, &known).map_or(String::new(), |k| format!(": did you mean {k:?}?"));
        ScenarioError::new(path, format!("unknown node {name:?}{near}"))
    })
}
