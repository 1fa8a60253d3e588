//! The `[vegas]`, `[fast]`, `[pacing]` and `[modern]` tables, and the knobs the rfc profile reads.
//!
//! Each table may appear at the top level (for every flow it applies to) and in a flow (for that
//! flow); a flow's field overrides the scenario's, field by field, as `[tcp]` does.

use super::fields::{err, flag, int_in, one_of, real_in, time, Res};
use super::raw::{Quantity, RawFast, RawModern, RawPacing, RawTcp, RawVegas};
use super::ModernConfig;
use tcplab_cc::{EpochRtt, FastConfig, PacingConfig, Progressive, RttSource, SlowStart, VegasConfig};

/// The flow's value of a field, else the scenario's, with the path of the one taken.
fn pick<R, T>(
    own: Option<&R>,
    global: Option<&R>,
    get: impl Fn(&R) -> Option<T>,
    table: &str,
    field: &str,
    flow: &str,
) -> Option<(T, String)> {
    own.and_then(&get)
        .map(|v| (v, format!("{flow}.{table}.{field}")))
        .or_else(|| global.and_then(&get).map(|v| (v, format!("{table}.{field}"))))
}

pub(super) fn vegas_config(own: Option<&RawVegas>, global: Option<&RawVegas>, flow: &str) -> Res<VegasConfig> {
    let mut c = VegasConfig::default();
    let real = |get: fn(&RawVegas) -> Option<f64>, field: &str, lo: f64, hi: f64| -> Res<Option<f64>> {
        pick(own, global, get, "vegas", field, flow).map(|(v, path)| real_in(v, lo, hi, &path)).transpose()
    };
    if let Some(v) = real(|r| r.alpha, "alpha", 0.0, 1e6)? {
        c.alpha = v;
    }
    if let Some(v) = real(|r| r.beta, "beta", 0.0, 1e6)? {
        c.beta = v;
    }
    if let Some(v) = real(|r| r.gamma, "gamma", 0.0, 1e6)? {
        c.gamma = v;
    }
    if c.beta < c.alpha {
        let path =
            pick(own, global, |r| r.beta, "vegas", "beta", flow).map_or(format!("{flow}.vegas.beta"), |(_, p)| p);
        return err(path, format!("{} is below alpha ({})", c.beta, c.alpha));
    }
    if let Some((v, path)) = pick(own, global, |r| r.epoch_rtt.clone(), "vegas", "epoch_rtt", flow) {
        c.epoch_rtt = match one_of(&v, &["last", "min"], "epoch RTT", &path)? {
            "min" => EpochRtt::Min,
            _ => EpochRtt::Last,
        };
    }
    if let Some(v) = real(|r| r.loss_decrease, "loss_decrease", 0.0, 0.99)? {
        c.loss_decrease = v;
    }
    if let Some(v) = real(|r| r.ecn_decrease, "ecn_decrease", 0.0, 0.99)? {
        c.ecn_decrease = v;
    }
    if let Some(v) = real(|r| r.spurious_loss_decrease, "spurious_loss_decrease", 0.0, 0.99)? {
        c.spurious_loss_decrease = v;
    }
    if let Some(v) = real(|r| r.rebase_backlog, "rebase_backlog", 0.0, 1e6)? {
        c.rebase_backlog = v;
    }
    if let Some((v, path)) = pick(own, global, |r| r.rebase_epochs, "vegas", "rebase_epochs", flow) {
        c.rebase_epochs = int_in(v, 0, 1_000_000, &path)?;
    }
    if let Some((v, path)) = pick(own, global, |r| r.congestion_measure, "vegas", "congestion_measure", flow) {
        c.congestion_measure = flag(v, &path)?;
    }
    let gain = real(|r| r.progressive_gain, "progressive_gain", 1e-6, 100.0)?;
    if let Some((v, path)) = pick(own, global, |r| r.progressive.clone(), "vegas", "progressive", flow) {
        c.progressive = match one_of(&v, &["off", "p1", "p2"], "progressive mode", &path)? {
            "off" => Progressive::Off,
            "p1" => Progressive::P1 { gain: gain.unwrap_or(0.5) },
            _ => Progressive::P2,
        };
    }
    if gain.is_some() && !matches!(c.progressive, Progressive::P1 { .. }) {
        let (_, path) = pick(own, global, |r| r.progressive_gain, "vegas", "progressive_gain", flow).expect("set");
        return err(path, "is only used with progressive = \"p1\"");
    }
    // The progressive-cwnd specification grows in every epoch of slow start.
    c.slow_start = if c.progressive == Progressive::Off { SlowStart::EveryOtherRtt } else { SlowStart::EveryRtt };
    if let Some((v, path)) = pick(own, global, |r| r.slow_start.clone(), "vegas", "slow_start", flow) {
        c.slow_start = match one_of(&v, &["every_other_rtt", "every_rtt"], "slow start", &path)? {
            "every_rtt" => SlowStart::EveryRtt,
            _ => SlowStart::EveryOtherRtt,
        };
    }
    Ok(c)
}

pub(super) fn fast_config(own: Option<&RawFast>, global: Option<&RawFast>, flow: &str) -> Res<FastConfig> {
    let mut c = FastConfig::default();
    if let Some((v, path)) = pick(own, global, |r| r.alpha, "fast", "alpha", flow) {
        c.alpha = real_in(v, 1e-6, 1e6, &path)?;
    }
    if let Some((v, path)) = pick(own, global, |r| r.gamma, "fast", "gamma", flow) {
        c.gamma = real_in(v, 1e-6, 1.0, &path)?;
    }
    if let Some((v, path)) = pick(own, global, |r| r.period.clone(), "fast", "period", flow) {
        c.period = match &v {
            Quantity::Text(t) if t == "rtt" => None,
            q => {
                let t = time(q, &path)?;
                if t.ps() == 0 {
                    return err(path, "must be longer than zero (or \"rtt\")");
                }
                Some(t.as_secs_f64())
            }
        };
    }
    Ok(c)
}

/// The flow's pacing, or None when it does not pace.
pub(super) fn pacing_config(
    own: Option<&RawPacing>,
    global: Option<&RawPacing>,
    flow: &str,
) -> Res<Option<PacingConfig>> {
    if own.is_none() && global.is_none() {
        return Ok(None);
    }
    if let Some((v, path)) = pick(own, global, |r| r.enabled, "pacing", "enabled", flow) {
        if !flag(v, &path)? {
            return Ok(None);
        }
    }
    let mut c = PacingConfig::default();
    if let Some((v, path)) = pick(own, global, |r| r.rtt.clone(), "pacing", "rtt", flow) {
        c.rtt = match one_of(&v, &["latest", "smoothed", "min", "initial"], "RTT source", &path)? {
            "latest" => RttSource::Latest,
            "smoothed" => RttSource::Smoothed,
            "min" => RttSource::Min,
            _ => RttSource::Initial,
        };
    }
    if let Some((v, path)) = pick(own, global, |r| r.depth, "pacing", "depth", flow) {
        c.depth = real_in(v, 1.0, 1e6, &path)?;
    }
    if let Some((v, path)) = pick(own, global, |r| r.gain, "pacing", "gain", flow) {
        c.gain = real_in(v, 1e-3, 1e3, &path)?;
    }
    Ok(Some(c))
}

/// The `[tcp]` knobs the rfc profile's sender reads; the others are ns-2's alone.
const RFC_KNOBS: &[&str] = &[
    "window",
    "window_init",
    "window_init_option",
    "max_cwnd",
    "maxburst",
    "rtxcur_init",
    "minrto",
    "maxrto",
    "numdupacks",
    "singledup",
    "ecn",
    "tcpip_base_hdr_size",
];

/// The knobs a `[tcp]` table sets that the rfc profile does not read.
pub(super) fn ns2_only_knobs(raw: &RawTcp) -> Vec<String> {
    let set = serde_json::to_value(raw).expect("knobs serialise");
    let fields = set.as_object().expect("a table");
    fields.iter().filter(|(k, v)| !v.is_null() && !RFC_KNOBS.contains(&k.as_str())).map(|(k, _)| k.clone()).collect()
}

/// The modern sender's switches: the flow's `[modern]` over the scenario's over Linux's.
pub(super) fn modern_config(own: Option<&RawModern>, global: Option<&RawModern>, flow: &str) -> Res<ModernConfig> {
    let mut c = ModernConfig::default();
    let switch = |get: fn(&RawModern) -> Option<super::raw::Flag>, field: &str, default: bool| -> Res<bool> {
        match pick(own, global, get, "modern", field, flow) {
            Some((v, path)) => flag(v, &path),
            None => Ok(default),
        }
    };
    c.rack = switch(|r| r.rack, "rack", c.rack)?;
    c.tlp = switch(|r| r.tlp, "tlp", c.tlp)?;
    c.fq_pacing = switch(|r| r.fq_pacing, "fq_pacing", c.fq_pacing)?;
    c.handshake = switch(|r| r.handshake, "handshake", c.handshake)?;
    if let Some((v, path)) = pick(own, global, |r| r.seed, "modern", "seed", flow) {
        c.seed = Some(int_in(v, 0, u32::MAX as i64, &path)? as u64);
    }
    Ok(c)
}

/// The error for an ns-2 knob in an rfc-profile table, pointing to the rfc equivalent if any.
pub(super) fn ns2_knob_error<T>(path: &str, knob: &str) -> Res<T> {
    let hint = match knob {
        "v_alpha" | "v_beta" | "v_gamma" => format!(" (use vegas.{})", &knob[2..]),
        "rbp" | "rbp_scale" | "rbp_rate_algorithm" => " (use [pacing])".to_string(),
        _ => String::new(),
    };
    err(format!("{path}.{knob}"), format!("is an ns-2 profile knob; the rfc profile does not read it{hint}"))
}
