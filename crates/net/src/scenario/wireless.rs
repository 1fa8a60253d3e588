//! The `[[wlans]]` tables and `[positions]`: 802.11b LANs and where their radios are.

use super::fields::{err, exact_seconds, flag, int_in, node_id, node_named, one_of, real_in, seconds, Res};
use super::raw::{Quantity, RawAddress, RawExt, RawMobile, RawMove, RawNakagami, RawPbc, RawReset, RawScan, RawWlan};
use super::{NodeReset, Profile, ScenarioError};
use crate::mobility::config::MobileConfig;
use crate::mobility::path::Move;
use crate::units;
use crate::wifi::config::{BaseStation, ExtConfig, Infrastructure, Nakagami, Scan, WlanConfig};
use crate::wifi::phy::{Preamble, Propagation, Radio, Timing, LIGHT, NS2_LIGHT};
use std::collections::{BTreeMap, HashMap};

fn bits_per_second(q: &Quantity, path: &str) -> Res<f64> {
    let r = match q {
        Quantity::Int(i) => units::rate_from_bps(*i as f64),
        Quantity::Float(f) => units::rate_from_bps(*f),
        Quantity::Text(s) => units::parse_rate(s),
    };
    let bps = r.map_err(|m| ScenarioError::new(path, m))?;
    if ![1_000_000, 2_000_000, 5_500_000, 11_000_000].contains(&bps) {
        return err(path, format!("{bps} b/s is not an 802.11b rate (1, 2, 5.5 or 11 Mb/s)"));
    }
    Ok(bps as f64)
}

/// The WLANs, with every default filled in: ns-2's (`profile = "ns2"`: 1 Mb/s data, RTS/CTS on
/// every frame, backoff even on an idle medium, ns-2's 34-byte MAC overhead) or the standard's
/// (`"standard"`: 11 Mb/s, RTS/CTS off, no backoff on an idle medium, 36 bytes of MAC header,
/// FCS and LLC/SNAP).
pub(super) fn wlans(
    raw: &[RawWlan],
    positions: Option<&BTreeMap<String, Vec<f64>>>,
    node_ids: &HashMap<&str, usize>,
    default_profile: Profile,
) -> Res<Vec<WlanConfig>> {
    for (n, xy) in positions.into_iter().flatten() {
        node_id(n, &format!("positions.{n}"), node_ids)?;
        position(xy, format!("positions.{n}"))?;
    }
    let mut out: Vec<WlanConfig> = Vec::with_capacity(raw.len());
    for (i, w) in raw.iter().enumerate() {
        let p = |f: &str| format!("wlans[{i}].{f}");
        let name = w.name.clone().unwrap_or_else(|| format!("wlan{i}"));
        if let Some(j) = out.iter().position(|o| o.name == name) {
            return err(p("name"), format!("{name:?} is already the name of wlans[{j}]"));
        }
        let names = w
            .nodes
            .as_ref()
            .ok_or_else(|| ScenarioError::new(p("nodes"), "is required (the nodes with a radio on it)"))?;
        if names.len() < 2 {
            return err(p("nodes"), "needs at least two nodes");
        }
        let mut nodes = Vec::with_capacity(names.len());
        let mut at = Vec::with_capacity(names.len());
        for (j, n) in names.iter().enumerate() {
            let path = format!("{}[{j}]", p("nodes"));
            let id = node_id(n, &path, node_ids)?;
            if nodes.contains(&id) {
                return err(path, format!("{n:?} appears twice"));
            }
            let xy = positions.and_then(|m| m.get(n)).ok_or_else(|| {
                ScenarioError::new(&path, format!("{n:?} has no position (add it to [positions], in metres)"))
            })?;
            nodes.push(id);
            at.push(position(xy, format!("positions.{n}"))?);
        }
        let access_point = match &w.access_point {
            None => None,
            Some(n) => {
                let id = node_ids.get(n.as_str()).copied().filter(|id| nodes.contains(id));
                Some(id.ok_or_else(|| {
                    ScenarioError::new(p("access_point"), format!("{n:?} is not one of the WLAN's nodes"))
                })?)
            }
        };
        let ns2 = match w.profile.as_deref() {
            Some(text) => one_of(text, &["ns2", "standard"], "WLAN profile", &p("profile"))? == "ns2",
            None => default_profile == Profile::Ns2,
        };
        let rate = |q: &Option<Quantity>, field: &str, default: f64| -> Res<f64> {
            q.as_ref().map_or(Ok(default), |q| bits_per_second(q, &p(field)))
        };
        let preamble = match w.preamble.as_deref() {
            None | Some("long") => Preamble::Long,
            Some(text) => {
                one_of(text, &["long", "short"], "preamble", &p("preamble"))?;
                Preamble::Short
            }
        };
        let timing = Timing {
            slot: 20e-6,
            sifs: 10e-6,
            preamble,
            data_rate: rate(&w.data_rate, "data_rate", if ns2 { 1e6 } else { 11e6 })?,
            basic_rate: rate(&w.basic_rate, "basic_rate", 1e6)?,
            mac_overhead: match w.mac_overhead {
                Some(v) => int_in(v, 0, 1000, &p("mac_overhead"))?,
                None if ns2 => 34,
                None => 36,
            },
        };
        let propagation_name = one_of(
            w.propagation.as_deref().unwrap_or("two_ray_ground"),
            &["two_ray_ground", "free_space", "nakagami"],
            "propagation model",
            &p("propagation"),
        )?;
        let propagation = match propagation_name {
            "free_space" => Propagation::FreeSpace,
            _ => Propagation::TwoRayGround,
        };
        let int = |v: Option<i64>, field: &str, lo: i64, hi: i64, default: u32| -> Res<u32> {
            v.map_or(Ok(default), |v| int_in(v, lo, hi, &p(field)))
        };
        let infrastructure = infrastructure(w, ns2, &nodes, node_ids, &p)?;
        let dsdv = match w.routing.as_deref() {
            None => false,
            Some(text) => one_of(text, &["static", "dsdv"], "WLAN routing", &p("routing"))? == "dsdv",
        };
        if dsdv && !ns2 {
            return err(p("routing"), "\"dsdv\" is ns-2's DSDV agent: it needs profile = \"ns2\"");
        }
        if dsdv && (infrastructure.is_some() || access_point.is_some()) {
            return err(p("routing"), "\"dsdv\" routes an ad hoc WLAN: not with access points");
        }
        let base_stations = base_stations(w, dsdv, &nodes, node_ids, &p)?;
        for (k, n) in nodes.iter().enumerate().filter(|_| !base_stations.is_empty()) {
            if let Some(j) = out.iter().position(|o| o.nodes.contains(n)) {
                let why = "with base stations (hierarchical addresses) a node is on one WLAN";
                return err(format!("{}[{k}]", p("nodes")), format!("{:?} is on wlans[{j}] too: {why}", names[k]));
            }
        }
        if let Some(j) = out.iter().position(|o| o.base_stations.is_empty() != base_stations.is_empty()) {
            let (i, j) = if base_stations.is_empty() { (i, j) } else { (j, i) };
            return err(
                format!("wlans[{i}].base_station"),
                format!("is required: wlans[{j}] has one, so addresses are hierarchical and every WLAN needs its own"),
            );
        }
        let backoff_when_idle = match w.backoff_when_idle {
            Some(f) => flag(f, &p("backoff_when_idle"))?,
            None => ns2,
        };
        if ns2 && !backoff_when_idle && infrastructure.is_some() {
            // the management frames' timers are not modelled with ns-2's defer timer
            return err(
                p("backoff_when_idle"),
                "false (ns-2's bugFix_timer_ false) is for ad hoc WLANs, not with access_points",
            );
        }
        let mut ext = match w.mac.as_deref() {
            None => None,
            Some(text) => match one_of(text, &["802_11", "802_11Ext"], "MAC", &p("mac"))? {
                "802_11" => None,
                _ => Some(ext_config(w.ext.as_ref(), &p)?),
            },
        };
        match (propagation_name, &mut ext) {
            ("nakagami", Some(e)) => e.nakagami = Some(nakagami(w.nakagami.as_ref(), &p)?),
            ("nakagami", None) => {
                return err(p("propagation"), "\"nakagami\" is modelled with mac = \"802_11Ext\" only");
            }
            _ if w.nakagami.is_some() => {
                return err(p("nakagami"), "sets Propagation/Nakagami: it needs propagation = \"nakagami\"");
            }
            _ => {}
        }
        if ext.is_none() && w.ext.is_some() {
            return err(p("ext"), "sets Mac/802_11Ext's knobs: it needs mac = \"802_11Ext\"");
        }
        if ext.is_some() {
            let other = [
                (!ns2, "profile", "\"802_11Ext\" is ns-2's: it needs profile = \"ns2\""),
                (
                    infrastructure.is_some() || access_point.is_some(),
                    "access_points",
                    "Mac/802_11Ext has no infrastructure mode",
                ),
                (dsdv, "routing", "\"dsdv\" is not modelled over Mac/802_11Ext"),
                (
                    w.data_rate.is_some() || w.basic_rate.is_some(),
                    "data_rate",
                    "Mac/802_11Ext sends each packet with its agent's modulation (pbc)",
                ),
            ];
            if let Some((_, field, why)) = other.iter().find(|o| o.0) {
                return err(p(field), *why);
            }
        }
        let (cw_default, rts_default) = if ext.is_some() { (15, 3000) } else { (31, if ns2 { 0 } else { 3000 }) };
        let cw_min = int(w.cw_min, "cw_min", 1, 1023, cw_default)?;
        let cw_max = int(w.cw_max, "cw_max", 1, 65535, 1023)?;
        if cw_max < cw_min {
            return err(p("cw_max"), format!("{cw_max} is below cw_min ({cw_min})"));
        }
        out.push(WlanConfig {
            name,
            nodes,
            positions: at,
            access_point,
            infrastructure,
            timing,
            radio: {
                let radio = Radio { propagation, light: if ns2 { NS2_LIGHT } else { LIGHT }, ns2, ..Radio::default() };
                if ext.is_some() {
                    ext_radio(w.ext.as_ref(), radio)
                } else {
                    radio
                }
            },
            rts_threshold: int(w.rts_threshold, "rts_threshold", 0, 100_000, rts_default)?,
            cw_min,
            cw_max,
            short_retry_limit: int(w.short_retry_limit, "short_retry_limit", 1, 255, 7)?,
            long_retry_limit: int(w.long_retry_limit, "long_retry_limit", 1, 255, 4)?,
            backoff_when_idle,
            ns2_backoff: ns2,
            ll_delay: if ns2 { 25e-6 } else { 0.0 },
            arp: ns2 && ext.is_none(),
            queue_limit: int(w.queue_limit, "queue_limit", 1, 1_000_000, 50)?,
            dsdv,
            base_stations,
            ext,
        });
    }
    Ok(out)
}

/// `mac = "802_11Ext"`'s knobs, ns-2's defaults for those not given.
fn ext_config(raw: Option<&RawExt>, p: &dyn Fn(&str) -> String) -> Res<ExtConfig> {
    let d = ExtConfig::default();
    let Some(x) = raw else { return Ok(d) };
    let q = |f: &str| p(&format!("ext.{f}"));
    let power = |v: Option<f64>, f: &str, default: f64| v.map_or(Ok(default), |v| real_in(v, 1e-30, 1e3, &q(f)));
    let time = |v: &Option<Quantity>, f: &str, default: f64| -> Res<f64> {
        let s = v.as_ref().map_or(Ok(default), |v| exact_seconds(v, &q(f)))?;
        if s <= 0.0 {
            return err(q(f), "must be greater than zero");
        }
        Ok(s)
    };
    let ratio = |v: Option<f64>, f: &str, default: f64| v.map_or(Ok(default), |v| real_in(v, 0.0, 1e9, &q(f)));
    let on = |v: Option<super::raw::Flag>, f: &str, default: bool| v.map_or(Ok(default), |v| flag(v, &q(f)));
    // the radio's own two (`ext_radio`)
    power(x.tx_power, "tx_power", 0.1)?;
    x.frequency.map(|v| real_in(v, 1e6, 1e12, &q("frequency"))).transpose()?;
    Ok(ExtConfig {
        slot: time(&x.slot, "slot", d.slot)?,
        sifs: time(&x.sifs, "sifs", d.sifs)?,
        header_duration: time(&x.header_duration, "header_duration", d.header_duration)?,
        symbol_duration: time(&x.symbol_duration, "symbol_duration", d.symbol_duration)?,
        basic_scheme: match &x.basic_modulation {
            None => d.basic_scheme,
            Some(m) => modulation(m, &q("basic_modulation"))?,
        },
        use_802_11a: on(x.use_802_11a, "use_802_11a", d.use_802_11a)?,
        cs_threshold: power(x.cs_threshold, "cs_threshold", d.cs_threshold)?,
        noise_floor: power(x.noise_floor, "noise_floor", d.noise_floor)?,
        // 0: the monitor keeps every signal
        monitor_threshold: x
            .power_monitor_threshold
            .map_or(Ok(d.monitor_threshold), |v| real_in(v, 0.0, 1e3, &q("power_monitor_threshold")))?,
        preamble_capture: on(x.preamble_capture, "preamble_capture", d.preamble_capture)?,
        sinr_preamble_capture: ratio(x.sinr_preamble_capture, "sinr_preamble_capture", d.sinr_preamble_capture)?,
        data_capture: on(x.data_capture, "data_capture", d.data_capture)?,
        sinr_data_capture: ratio(x.sinr_data_capture, "sinr_data_capture", d.sinr_data_capture)?,
        nakagami: None, // `propagation = "nakagami"`
    })
}

/// `propagation = "nakagami"`'s knobs, ns-2's defaults for those not given.
fn nakagami(raw: Option<&RawNakagami>, p: &dyn Fn(&str) -> String) -> Res<Nakagami> {
    let d = Nakagami::default();
    let Some(x) = raw else { return Ok(d) };
    let q = |f: &str| p(&format!("nakagami.{f}"));
    fn list<const N: usize>(v: &Option<Vec<f64>>, default: [f64; N], path: &str) -> Res<[f64; N]> {
        let Some(v) = v else { return Ok(default) };
        let a: [f64; N] = v.clone().try_into().map_err(|_| ScenarioError::new(path, format!("needs {N} numbers")))?;
        if a.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
            return err(path, "takes numbers of 0 or more");
        }
        Ok(a)
    }
    let n = Nakagami {
        gamma: list(&x.gamma, d.gamma, &q("gamma"))?,
        gamma_distances: list(&x.gamma_distances, d.gamma_distances, &q("gamma_distances"))?,
        m: list(&x.m, d.m, &q("m"))?,
        m_distances: list(&x.m_distances, d.m_distances, &q("m_distances"))?,
        fading: x.fading.map_or(Ok(d.fading), |f| flag(f, &q("fading")))?,
    };
    if n.gamma_distances.contains(&0.0) {
        return err(q("gamma_distances"), "must be above 0 (ns-2 takes their logarithms)");
    }
    if n.fading && n.m.iter().any(|m| *m < 1.0 || m.fract() != 0.0) {
        return err(q("m"), "with fading, whole shapes of 1 or more (ns-2's Erlang draw; its Gamma draw for a fractional m is not modelled)");
    }
    Ok(n)
}

/// The radio of an `802_11Ext` WLAN: `Phy/WirelessPhyExt`'s power (0.1 W) and frequency
/// (5.18 GHz) unless the `ext` table (checked by `ext_config`) sets them.
fn ext_radio(raw: Option<&RawExt>, radio: Radio) -> Radio {
    let tx_power = raw.and_then(|x| x.tx_power).unwrap_or(0.1);
    Radio { tx_power, frequency: raw.and_then(|x| x.frequency).unwrap_or(5.18e9), ..radio }
}

/// An OFDM scheme's name: its index in ns-2's `modulation_table`.
fn modulation(name: &str, path: &str) -> Res<u8> {
    let schemes = ["bpsk", "qpsk", "qam16", "qam64"];
    let m = one_of(name, &schemes, "modulation", path)?;
    Ok(schemes.iter().position(|&s| s == m).expect("one of them") as u8)
}

/// The `[[pbc]]` agents (ns-2's `Agent/PBC`), each on a node of an `802_11Ext` WLAN.
pub(super) fn pbc_agents(
    raw: &[RawPbc],
    node_ids: &HashMap<&str, usize>,
    wlans: &[WlanConfig],
) -> Res<Vec<crate::pbc::config::PbcAgent>> {
    let mut out: Vec<crate::pbc::config::PbcAgent> = Vec::with_capacity(raw.len());
    for (i, a) in raw.iter().enumerate() {
        let p = |f: &str| format!("pbc[{i}].{f}");
        let node = node_named(&a.node, &p("node"), node_ids)?;
        let Some(wlan) = wlans.iter().position(|w| w.ext.is_some() && w.nodes.contains(&node)) else {
            return err(p("node"), "is on no WLAN with mac = \"802_11Ext\": Agent/PBC sends through its radio");
        };
        if let Some(j) = out.iter().position(|o| o.node == node) {
            return err(p("node"), format!("already has pbc[{j}]: one agent per node"));
        }
        let bytes = |v: i64, path: &str| int_in(v, 1, 65_000, path);
        let payload = a.payload.map_or(Ok(200), |v| bytes(v, &p("payload")))?;
        let modulation = a.modulation.as_deref().map_or(Ok(0), |m| modulation(m, &p("modulation")))?;
        let periodic = match a.periodic.map(|f| flag(f, &p("periodic"))).transpose()? {
            Some(true) => {
                let interval = a.interval.as_ref().map_or(Ok(1.0), |q| exact_seconds(q, &p("interval")))?;
                let variance = a.variance.as_ref().map_or(Ok(0.1), |q| exact_seconds(q, &p("variance")))?;
                Some((interval, variance))
            }
            _ if a.interval.is_some() || a.variance.is_some() => {
                return err(p("interval"), "is for a periodic agent (periodic = true)");
            }
            _ => None,
        };
        let mut sends = Vec::new();
        for (j, s) in a.sends.iter().flatten().enumerate() {
            let q = |f: &str| format!("pbc[{i}].sends[{j}].{f}");
            let at = s.at.as_ref().ok_or_else(|| ScenarioError::new(q("at"), "is required (a time)"))?;
            let to = match &s.to {
                None => None,
                Some(RawAddress::Name(n)) => Some(node_id(n, &q("to"), node_ids)? as u32),
                Some(RawAddress::Number(n)) => Some(int_in(*n, 0, 1_000_000, &q("to"))?),
            };
            let payload = s.payload.map_or(Ok(payload), |v| bytes(v, &q("payload")))?;
            sends.push(crate::pbc::config::PbcSend { at_s: positive_seconds(at, &q("at"))?, to, payload });
        }
        out.push(crate::pbc::config::PbcAgent { node, wlan, payload, modulation, periodic, sends });
    }
    Ok(out)
}

/// The base stations of a DSDV WLAN: `base_station = "bs"` (one, every other node its station)
/// or `base_stations = [{ node = "bs0", stations = [...] }, { node = "bs1" }, ...]`, each other
/// node the station of exactly one.
fn base_stations(
    w: &RawWlan,
    dsdv: bool,
    nodes: &[usize],
    node_ids: &HashMap<&str, usize>,
    p: &dyn Fn(&str) -> String,
) -> Res<Vec<BaseStation>> {
    let of_wlan = |n: &str, path: String| -> Res<usize> {
        let id = node_ids.get(n).copied().filter(|id| nodes.contains(id));
        id.ok_or_else(|| ScenarioError::new(path, format!("{n:?} is not one of the WLAN's nodes")))
    };
    let field = match (&w.base_station, &w.base_stations) {
        (None, None) => return Ok(Vec::new()),
        (Some(_), Some(_)) => return err(p("base_stations"), "goes instead of base_station, not beside it"),
        (Some(_), None) => "base_station",
        (None, Some(_)) => "base_stations",
    };
    if !dsdv {
        return err(p(field), "joins a DSDV WLAN to wired links: it needs routing = \"dsdv\"");
    }
    if let Some(n) = &w.base_station {
        let node = of_wlan(n, p("base_station"))?;
        return Ok(vec![BaseStation { node, stations: nodes.iter().copied().filter(|&m| m != node).collect() }]);
    }
    let raw = w.base_stations.as_deref().unwrap_or(&[]);
    if raw.is_empty() {
        return err(p("base_stations"), "needs at least one base station");
    }
    let mut out: Vec<BaseStation> = Vec::with_capacity(raw.len());
    let mut taken: Vec<(usize, String)> = Vec::new();
    for (k, b) in raw.iter().enumerate() {
        let path = p(&format!("base_stations[{k}]"));
        let name = b.node.as_deref().ok_or_else(|| ScenarioError::new(format!("{path}.node"), "is required"))?;
        let node = of_wlan(name, format!("{path}.node"))?;
        let mut stations = Vec::new();
        for (j, s) in b.stations.iter().flatten().enumerate() {
            stations.push(of_wlan(s, format!("{path}.stations[{j}]"))?);
        }
        for (j, &m) in [node].iter().chain(&stations).enumerate() {
            let here = if j == 0 { format!("{path}.node") } else { format!("{path}.stations[{}]", j - 1) };
            if let Some((_, there)) = taken.iter().find(|(t, _)| *t == m) {
                return err(here, format!("is already in {there}: each node is in one base station's subnet"));
            }
            taken.push((m, here));
        }
        out.push(BaseStation { node, stations });
    }
    if let Some(&m) = nodes.iter().find(|m| !taken.iter().any(|(t, _)| t == *m)) {
        let name = node_ids.iter().find(|(_, &id)| id == m).map_or("?", |(n, _)| *n);
        return err(p("base_stations"), format!("{name:?} is in no base station's subnet: list it in one's stations"));
    }
    Ok(out)
}

/// ns-2's hierarchical addresses (`-addressType hierarchical`: domain.cluster.node) when the
/// WLANs have base stations: `[addresses]`, every node's, or by default the wired nodes 0.0.0,
/// 0.0.1, ... and each base station's subnet a domain of its own (1, 2, ... in the order of
/// the WLANs and their base stations), the base station and its stations 0, 1, ... in node
/// order. Each subnet (domain.cluster) holds a base station and its stations only.
pub(super) fn addresses(
    raw: Option<&BTreeMap<String, String>>,
    nodes: &[String],
    node_ids: &HashMap<&str, usize>,
    wlans: &[WlanConfig],
) -> Res<Option<Vec<[u32; 3]>>> {
    let subnets: Vec<Vec<usize>> = wlans
        .iter()
        .flat_map(|w| &w.base_stations)
        .map(|b| {
            let mut members: Vec<usize> = [b.node].into_iter().chain(b.stations.iter().copied()).collect();
            members.sort_unstable();
            members
        })
        .collect();
    if subnets.is_empty() {
        return match raw {
            Some(_) => err("addresses", "hierarchical addresses go with base stations (wlans[].base_station)"),
            None => Ok(None),
        };
    }
    let Some(raw) = raw else {
        let mut out = vec![[u32::MAX; 3]; nodes.len()];
        for (s, members) in subnets.iter().enumerate() {
            for (k, &m) in members.iter().enumerate() {
                out[m] = [s as u32 + 1, 0, k as u32];
            }
        }
        for (wired, a) in out.iter_mut().filter(|a| a[0] == u32::MAX).enumerate() {
            *a = [0, 0, wired as u32];
        }
        return Ok(Some(out));
    };
    let mut out = vec![None; nodes.len()];
    for (name, text) in raw {
        let path = format!("addresses.{name}");
        let m = node_id(name, &path, node_ids)?;
        let parts: Vec<Option<u32>> = text.split('.').map(|p| p.parse().ok()).collect();
        let a = match parts[..] {
            [Some(d), Some(c), Some(n)] if d < 512 && c < 2048 && n < 2048 => [d, c, n],
            _ => {
                return err(
                    path,
                    format!("{text:?} is not an address domain.cluster.node (domain below 512, the others below 2048)"),
                )
            }
        };
        if let Some(o) = out.iter().position(|o| *o == Some(a)) {
            return err(path, format!("{text:?} is already {:?}'s address", nodes[o]));
        }
        out[m] = Some(a);
    }
    if let Some(m) = out.iter().position(Option::is_none) {
        return err("addresses", format!("gives {:?} none: with [addresses], every node needs one", nodes[m]));
    }
    let out: Vec<[u32; 3]> = out.into_iter().flatten().collect();
    let subnet = |m: usize| [out[m][0], out[m][1]];
    for members in &subnets {
        let bs = wlans.iter().flat_map(|w| &w.base_stations).find(|b| members.contains(&b.node)).expect("its own");
        let [d, c] = subnet(bs.node);
        for m in 0..nodes.len() {
            let inside = members.contains(&m);
            if inside != (subnet(m) == [d, c]) {
                let why = if inside { "is not in its base station's subnet" } else { "is the subnet of base station" };
                return err(format!("addresses.{}", nodes[m]), format!("{why} {:?} ({d}.{c})", nodes[bs.node]));
            }
        }
    }
    Ok(Some(out))
}

/// ns-2's infrastructure mode (`access_points`, `scans`, `beacon_interval`): the ns2 profile
/// only, and not beside `access_point`, the standard profile's (and Mobile IPv6's) single
/// access point through which stations talk.
fn infrastructure(
    w: &RawWlan,
    ns2: bool,
    nodes: &[usize],
    node_ids: &HashMap<&str, usize>,
    p: &dyn Fn(&str) -> String,
) -> Res<Option<Infrastructure>> {
    let Some(names) = &w.access_points else {
        for (field, set) in [("scans", w.scans.is_some()), ("beacon_interval", w.beacon_interval.is_some())] {
            if set {
                return err(p(field), "needs access_points (ns-2's infrastructure mode)");
            }
        }
        return Ok(None);
    };
    if !ns2 {
        return err(
            p("access_points"),
            "is ns-2's infrastructure mode (profile \"ns2\"); the standard profile's is access_point",
        );
    }
    if w.access_point.is_some() {
        return err(p("access_points"), "goes without access_point (the standard profile's)");
    }
    let on_wlan = |name: &Option<String>, path: &str| -> Res<usize> {
        let id = node_named(name, path, node_ids)?;
        if !nodes.contains(&id) {
            return err(path, format!("{:?} is not one of the WLAN's nodes", name.as_deref().unwrap_or("")));
        }
        Ok(id)
    };
    let mut access_points = Vec::with_capacity(names.len());
    for (j, n) in names.iter().enumerate() {
        let path = format!("{}[{j}]", p("access_points"));
        let id = on_wlan(&Some(n.clone()), &path)?;
        if access_points.contains(&id) {
            return err(path, format!("{n:?} appears twice"));
        }
        access_points.push(id);
    }
    if access_points.is_empty() {
        return err(p("access_points"), "needs at least one node");
    }
    let mut scans: Vec<Scan> = Vec::new();
    for (j, RawScan { node, kind, at }) in w.scans.iter().flatten().enumerate() {
        let path = |f: &str| format!("{}[{j}].{f}", p("scans"));
        let node = on_wlan(node, &path("node"))?;
        if access_points.contains(&node) {
            return err(path("node"), "is an access point: only stations scan");
        }
        let kind = kind
            .as_deref()
            .ok_or_else(|| ScenarioError::new(path("type"), "is required (\"active\" or \"passive\")"))?;
        let active = one_of(kind, &["active", "passive"], "scan type", &path("type"))? == "active";
        let at = at.as_ref().map_or(Ok(0.0), |q| positive_seconds(q, &path("at")))?;
        scans.push(Scan { node, active, at });
    }
    let beacon_interval = match &w.beacon_interval {
        Some(q) => positive_seconds(q, &p("beacon_interval"))?,
        None => 0.1,
    };
    if beacon_interval <= 0.0 {
        return err(p("beacon_interval"), "must be longer than zero");
    }
    Ok(Some(Infrastructure { access_points, scans, beacon_interval }))
}

fn positive_seconds(q: &Quantity, path: &str) -> Res<f64> {
    let s = seconds(q, path)?;
    if s < 0.0 {
        return err(path, "is negative");
    }
    Ok(s)
}

/// `[[moves]]`: each node that moves must have a position (it is on a WLAN).
pub(super) fn moves(raw: &[RawMove], node_ids: &HashMap<&str, usize>, wlans: &[WlanConfig]) -> Res<Vec<Move>> {
    let mut out: Vec<Move> = Vec::with_capacity(raw.len());
    for (i, m) in raw.iter().enumerate() {
        let p = |f: &str| format!("moves[{i}].{f}");
        let node = node_named(&m.node, &p("node"), node_ids)?;
        if !wlans.iter().any(|w| w.nodes.contains(&node)) {
            return err(p("node"), "is on no WLAN: only nodes with a radio move");
        }
        let at = positive_seconds(
            m.at.as_ref().ok_or_else(|| ScenarioError::new(p("at"), "is required (a time)"))?,
            &p("at"),
        )?;
        let to = m.to.as_ref().ok_or_else(|| ScenarioError::new(p("to"), "is required ([x, y] in metres)"))?;
        let to = position(to, p("to"))?;
        let speed = m.speed.ok_or_else(|| ScenarioError::new(p("speed"), "is required (m/s)"))?;
        // 0: setdest's pause, which leaves the node where it is (and writes its `M` line)
        if !(speed >= 0.0 && speed.is_finite()) {
            return err(p("speed"), format!("{speed} is not a speed (m/s, 0 or above)"));
        }
        out.push(Move { node, at, to, speed });
    }
    out.sort_by(|a, b| a.at.total_cmp(&b.at)); // stable: moves at the same time keep their order
    Ok(out)
}

/// `[[resets]]`: ns-2's `$node reset` of a node of an ns2-profile WLAN, in list order.
pub(super) fn resets(raw: &[RawReset], node_ids: &HashMap<&str, usize>, wlans: &[WlanConfig]) -> Res<Vec<NodeReset>> {
    let mut out = Vec::with_capacity(raw.len());
    for (i, r) in raw.iter().enumerate() {
        let p = |f: &str| format!("resets[{i}].{f}");
        let node = node_named(&r.node, &p("node"), node_ids)?;
        if !wlans.iter().any(|w| w.ns2_backoff && w.nodes.contains(&node)) {
            return err(p("node"), "is on no ns2-profile WLAN: `reset` purges a mobile node's interface queue");
        }
        let at = r.at.as_ref().ok_or_else(|| ScenarioError::new(p("at"), "is required (a time)"))?;
        out.push(NodeReset { node, at_s: positive_seconds(at, &p("at"))? });
    }
    Ok(out)
}

/// `set_dist`: God's hop counts, `[at, a, b, hops]` each (ns-2's `$god_ set-dist a b hops`).
pub(super) fn set_dist(
    raw: &[(Quantity, String, String, i64)],
    node_ids: &HashMap<&str, usize>,
) -> Res<Vec<crate::god::SetDist>> {
    let mut out = Vec::with_capacity(raw.len());
    for (i, (at, a, b, hops)) in raw.iter().enumerate() {
        let p = format!("set_dist[{i}]");
        let at = positive_seconds(at, &p)?;
        let node = |name: &String| {
            node_ids.get(name.as_str()).copied().ok_or_else(|| ScenarioError::new(&p, format!("no node {name:?}")))
        };
        let (a, b) = (node(a)?, node(b)?);
        let hops = u32::try_from(*hops).map_err(|_| ScenarioError::new(&p, format!("{hops} is not a hop count")))?;
        out.push(crate::god::SetDist { at, a, b, hops });
    }
    Ok(out)
}

/// `[[mobile_nodes]]`: Mobile IPv6 (and HMIPv6 with a `map`) on nodes that visit access points.
pub(super) fn mobile_nodes(
    raw: &[RawMobile],
    node_ids: &HashMap<&str, usize>,
    wlans: &[WlanConfig],
) -> Res<Vec<MobileConfig>> {
    let mut out: Vec<MobileConfig> = Vec::with_capacity(raw.len());
    for (i, m) in raw.iter().enumerate() {
        let p = |f: &str| format!("mobile_nodes[{i}].{f}");
        let node = node_named(&m.node, &p("node"), node_ids)?;
        if out.iter().any(|o| o.node == node) {
            return err(p("node"), "is already a mobile node");
        }
        // the access points it can reach
        let aps: Vec<usize> = wlans
            .iter()
            .filter(|w| w.nodes.contains(&node))
            .filter_map(|w| w.access_point)
            .filter(|&ap| ap != node)
            .collect();
        if aps.is_empty() {
            return err(p("node"), "is a station of no WLAN with an access_point");
        }
        let home_agent = node_named(&m.home_agent, &p("home_agent"), node_ids)?;
        if !aps.contains(&home_agent) {
            return err(p("home_agent"), "must be the access point of one of the node's WLANs (its home link)");
        }
        let map = m.map.as_ref().map(|_| node_named(&m.map, &p("map"), node_ids)).transpose()?;
        let mut map_domain = Vec::new();
        for (j, name) in m.map_domain.iter().flatten().enumerate() {
            let path = format!("{}[{j}]", p("map_domain"));
            let ar = node_named(&Some(name.clone()), &path, node_ids)?;
            if !aps.contains(&ar) {
                return err(path, format!("{name:?} is not an access point of the node's WLANs"));
            }
            map_domain.push(ar);
        }
        if map.is_some() == map_domain.is_empty() {
            return err(p(if map.is_some() { "map_domain" } else { "map" }), "map and map_domain go together (HMIPv6)");
        }
        let time = |q: &Option<Quantity>, field: &str, default: f64| -> Res<f64> {
            q.as_ref().map_or(Ok(default), |q| positive_seconds(q, &p(field)))
        };
        // both repeat while the node looks for an access point: zero would never let time move
        let beacon_interval = time(&m.beacon_interval, "beacon_interval", 0.1)?;
        if beacon_interval <= 0.0 {
            return err(p("beacon_interval"), "must be longer than zero");
        }
        let l2_handoff = time(&m.l2_handoff, "l2_handoff", 0.1)?;
        if l2_handoff <= 0.0 {
            return err(p("l2_handoff"), "must be longer than zero");
        }
        let ra_interval = match &m.ra_interval {
            None => (0.03, 0.07),
            Some(v) if v.len() == 2 => {
                let (lo, hi) =
                    (positive_seconds(&v[0], &p("ra_interval[0]"))?, positive_seconds(&v[1], &p("ra_interval[1]"))?);
                if hi < lo || hi <= 0.0 {
                    return err(p("ra_interval"), "needs [min, max] with max at least min and above zero");
                }
                (lo, hi)
            }
            Some(_) => return err(p("ra_interval"), "is [min, max] (e.g. [\"30ms\", \"70ms\"])"),
        };
        out.push(MobileConfig {
            node,
            home_agent,
            map,
            map_domain,
            l2_handoff,
            beacon_interval,
            ra_interval,
            dad: time(&m.dad, "dad", 1.0)?,
            route_optimisation: match m.route_optimisation {
                Some(f) => flag(f, &p("route_optimisation"))?,
                None => false,
            },
        });
    }
    // a MAP forwards to the mobile nodes of its domain from the wired side
    if let Some((i, _)) =
        out.iter().enumerate().find(|(_, m)| m.map.is_some_and(|map| out.iter().any(|o| o.node == map)))
    {
        return err(format!("mobile_nodes[{i}].map"), "is a mobile node (a MAP is a wired router)");
    }
    Ok(out)
}

/// Positions lie within 10^7 m of the origin on each axis: far enough for any radio (and the
/// size of the Earth), near enough that squared distances stay finite.
const MAX_METRES: f64 = 1e7;

fn position(xy: &[f64], path: String) -> Res<(f64, f64)> {
    match xy {
        [x, y] if x.abs() <= MAX_METRES && y.abs() <= MAX_METRES => Ok((*x, *y)),
        _ => err(path, "is not a position [x, y] in metres (each within 10^7 of 0)"),
    }
}
