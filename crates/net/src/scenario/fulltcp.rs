//! The knobs of ns-2's two-way `Agent/TCP/FullTcp` agents: written in `[tcp]` tables beside
//! Agent/TCP's own, read only by FullTcp flows.

use super::fields::{err, flag, int_in, seconds, Res};
use super::raw::RawTcp;
use super::FullParams;

/// The FullTcp variables a `[tcp]` table sets (none for a table without them).
pub(super) fn full_knobs(raw: &RawTcp) -> Vec<&'static str> {
    let set = [
        ("segsize", raw.segsize.is_some()),
        ("segsperack", raw.segsperack.is_some()),
        ("spa_thresh", raw.spa_thresh.is_some()),
        ("tcprexmtthresh", raw.tcprexmtthresh.is_some()),
        ("iss", raw.iss.is_some()),
        ("nodelay", raw.nodelay.is_some()),
        ("data_on_syn", raw.data_on_syn.is_some()),
        ("dupseg_fix", raw.dupseg_fix.is_some()),
        ("dupack_reset", raw.dupack_reset.is_some()),
        ("interval", raw.interval.is_some()),
        ("ts_option_size", raw.ts_option_size.is_some()),
        ("reno_fastrecov", raw.reno_fastrecov.is_some()),
        ("pipectrl", raw.pipectrl.is_some()),
        ("open_cwnd_on_pack", raw.open_cwnd_on_pack.is_some()),
        ("halfclose", raw.halfclose.is_some()),
        ("nopredict", raw.nopredict.is_some()),
        ("ecn_syn", raw.ecn_syn.is_some()),
        ("ecn_syn_wait", raw.ecn_syn_wait.is_some()),
        ("recov_maxburst", raw.recov_maxburst.is_some()),
        ("clear_on_timeout", raw.clear_on_timeout.is_some()),
        ("sack_block_size", raw.sack_block_size.is_some()),
        ("sack_option_size", raw.sack_option_size.is_some()),
        ("max_sack_blocks", raw.max_sack_blocks.is_some()),
        ("sack_rtx_cthresh", raw.sack_rtx_cthresh.is_some()),
        ("sack_rtx_bthresh", raw.sack_rtx_bthresh.is_some()),
        ("sack_rtx_threshmode", raw.sack_rtx_threshmode.is_some()),
    ];
    set.iter().filter(|(_, on)| *on).map(|(k, _)| *k).collect()
}

/// `p` with the FullTcp variables `raw` sets (`path` names the table in errors).
pub(super) fn full_params(mut p: FullParams, raw: &RawTcp, path: &str) -> Res<FullParams> {
    let at = |f: &str| format!("{path}.{f}");
    let int = |v: Option<i64>, lo: i64, hi: i64, f: &str| v.map(|v| int_in(v, lo, hi, &at(f))).transpose();
    let on = |v: Option<super::raw::Flag>, f: &str| v.map(|v| flag(v, &at(f))).transpose();
    if let Some(v) = int(raw.segsize, 0, 65_000, "segsize")? {
        p.segsize = v;
    }
    if let Some(v) = int(raw.segsperack, 1, 1000, "segsperack")? {
        p.segsperack = v;
    }
    if let Some(v) = int(raw.spa_thresh, 0, i32::MAX as i64, "spa_thresh")? {
        p.spa_thresh = v;
    }
    if let Some(v) = int(raw.tcprexmtthresh, 1, 1000, "tcprexmtthresh")? {
        p.tcprexmtthresh = v;
    }
    if let Some(v) = int(raw.iss, 0, 1 << 29, "iss")? {
        p.iss = v as i32;
    }
    if let Some(v) = int(raw.ts_option_size, 0, 40, "ts_option_size")? {
        p.ts_option_size = v;
    }
    if let Some(v) = int(raw.ecn_syn_wait, 0, 2, "ecn_syn_wait")? {
        p.ecn_syn_wait = v;
    }
    if let Some(v) = int(raw.recov_maxburst, 0, 1_000_000, "recov_maxburst")? {
        p.recov_maxburst = v;
    }
    if let Some(v) = int(raw.sack_block_size, 0, 40, "sack_block_size")? {
        p.sack_block_size = v;
    }
    if let Some(v) = int(raw.sack_option_size, 0, 40, "sack_option_size")? {
        p.sack_option_size = v;
    }
    if let Some(v) = int(raw.max_sack_blocks, 0, crate::packet::MAX_SACK_BLOCKS as i64, "max_sack_blocks")? {
        p.max_sack_blocks = v;
    }
    if let Some(v) = int(raw.sack_rtx_cthresh, 0, 1_000_000, "sack_rtx_cthresh")? {
        p.sack_rtx_cthresh = v as i32;
    }
    if let Some(v) = int(raw.sack_rtx_bthresh, 0, i32::MAX as i64, "sack_rtx_bthresh")? {
        p.sack_rtx_bthresh = v as i32;
    }
    if let Some(v) = int(raw.sack_rtx_threshmode, 0, 4, "sack_rtx_threshmode")? {
        p.sack_rtx_threshmode = v;
    }
    let flags: [(&mut bool, Option<super::raw::Flag>, &str); 10] = [
        (&mut p.nodelay, raw.nodelay, "nodelay"),
        (&mut p.data_on_syn, raw.data_on_syn, "data_on_syn"),
        (&mut p.dupseg_fix, raw.dupseg_fix, "dupseg_fix"),
        (&mut p.dupack_reset, raw.dupack_reset, "dupack_reset"),
        (&mut p.reno_fastrecov, raw.reno_fastrecov, "reno_fastrecov"),
        (&mut p.pipectrl, raw.pipectrl, "pipectrl"),
        (&mut p.open_cwnd_on_pack, raw.open_cwnd_on_pack, "open_cwnd_on_pack"),
        (&mut p.halfclose, raw.halfclose, "halfclose"),
        (&mut p.nopredict, raw.nopredict, "nopredict"),
        (&mut p.ecn_syn, raw.ecn_syn, "ecn_syn"),
    ];
    for (field, value, name) in flags {
        if let Some(v) = on(value, name)? {
            *field = v;
        }
    }
    if let Some(v) = on(raw.clear_on_timeout, "clear_on_timeout")? {
        p.clear_on_timeout = v;
    }
    if let Some(q) = &raw.interval {
        p.interval = seconds(q, &at("interval"))?;
        if p.interval < 0.0 {
            return err(at("interval"), "must not be negative (0: no delayed ACKs)");
        }
    }
    Ok(p)
}
