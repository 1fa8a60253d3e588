//! The `[[wlans]]` tables and `[positions]`: 802.11b LANs and where their radios are.

use super::fields::{err, exact_seconds, flag, int_in, node_id, node_named, one_of, seconds, Res};
use super::raw::{Quantity, RawMobile, RawMove, RawScan, RawWlan};
use super::{Profile, ScenarioError};
use crate::mobility::config::MobileConfig;
use crate::mobility::path::Move;
use crate::units;
use crate::wifi::config::{Infrastructure, Scan, WlanConfig};
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
        let propagation = match one_of(
            w.propagation.as_deref().unwrap_or("two_ray_ground"),
            &["two_ray_ground", "free_space"],
            "propagation model",
            &p("propagation"),
        )? {
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
        let base_station = match &w.base_station {
            None => None,
            Some(_) if !dsdv => {
                return err(p("base_station"), "joins a DSDV WLAN to wired links: it needs routing = \"dsdv\"")
            }
            Some(n) => {
                let id = node_ids.get(n.as_str()).copied().filter(|id| nodes.contains(id));
                Some(id.ok_or_else(|| {
                    ScenarioError::new(p("base_station"), format!("{n:?} is not one of the WLAN's nodes"))
                })?)
            }
        };
        for (k, n) in nodes.iter().enumerate().filter(|_| base_station.is_some()) {
            if let Some(j) = out.iter().position(|o| o.nodes.contains(n)) {
                let why = "with base stations (hierarchical addresses) a node is on one WLAN";
                return err(format!("{}[{k}]", p("nodes")), format!("{:?} is on wlans[{j}] too: {why}", names[k]));
            }
        }
        if let Some(j) = out.iter().position(|o| o.base_station.is_some() != base_station.is_some()) {
            let (i, j) = if base_station.is_some() { (j, i) } else { (i, j) };
            return err(
                format!("wlans[{i}].base_station"),
                format!("is required: wlans[{j}] has one, so addresses are hierarchical and every WLAN needs its own"),
            );
        }
        let cw_min = int(w.cw_min, "cw_min", 1, 1023, 31)?;
        let cw_max = int(w.cw_max, "cw_max", 1, 65535, 1023)?;
        if cw_max < cw_min {
            return err(p("cw_max"), format!("{cw_max} is below cw_min ({cw_min})"));
        }
        let optimal_hops = optimal_hops(w, ns2, &nodes, node_ids, &p)?;
        let reset_at = match &w.reset_at {
            Some(_) if !ns2 => return err(p("reset_at"), "is ns-2's `$node reset`: it needs profile = \"ns2\""),
            Some(q) => Some(exact_seconds(q, &p("reset_at"))?),
            None => None,
        };
        out.push(WlanConfig {
            name,
            nodes,
            positions: at,
            access_point,
            infrastructure,
            timing,
            radio: Radio { propagation, light: if ns2 { NS2_LIGHT } else { LIGHT }, ..Radio::default() },
            rts_threshold: int(w.rts_threshold, "rts_threshold", 0, 100_000, if ns2 { 0 } else { 3000 })?,
            cw_min,
            cw_max,
            short_retry_limit: int(w.short_retry_limit, "short_retry_limit", 1, 255, 7)?,
            long_retry_limit: int(w.long_retry_limit, "long_retry_limit", 1, 255, 4)?,
            backoff_when_idle: match w.backoff_when_idle {
                Some(f) => flag(f, &p("backoff_when_idle"))?,
                None => ns2,
            },
            ns2_backoff: ns2,
            ll_delay: if ns2 { 25e-6 } else { 0.0 },
            arp: ns2,
            queue_limit: int(w.queue_limit, "queue_limit", 1, 1_000_000, 50)?,
            dsdv,
            base_station,
            optimal_hops,
            reset_at,
        });
    }
    Ok(out)
}

/// `optimal_hops`: ns-2's God's hop counts (ns2 profile), between two of the WLAN's nodes.
fn optimal_hops(
    w: &RawWlan,
    ns2: bool,
    nodes: &[usize],
    node_ids: &HashMap<&str, usize>,
    p: &dyn Fn(&str) -> String,
) -> Res<Vec<(usize, usize, u32)>> {
    let Some(list) = &w.optimal_hops else { return Ok(Vec::new()) };
    if !ns2 {
        return err(p("optimal_hops"), "is what ns-2's God prints in its traces: it needs profile = \"ns2\"");
    }
    let mut out = Vec::with_capacity(list.len());
    for (k, h) in list.iter().enumerate() {
        let path = |f: &str| format!("{}[{k}].{f}", p("optimal_hops"));
        let end = |name: &Option<String>, f: &str| -> Res<usize> {
            let name = name.as_deref().ok_or_else(|| ScenarioError::new(path(f), "is required"))?;
            let id = node_id(name, &path(f), node_ids)?;
            if !nodes.contains(&id) {
                return err(path(f), format!("{name:?} is not one of the WLAN's nodes"));
            }
            Ok(id)
        };
        let (from, to) = (end(&h.from, "from")?, end(&h.to, "to")?);
        let hops = h.hops.ok_or_else(|| ScenarioError::new(path("hops"), "is required"))?;
        out.push((from, to, int_in(hops, 0, 1_000_000, &path("hops"))?));
    }
    Ok(out)
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
        if !(speed > 0.0 && speed.is_finite()) {
            return err(p("speed"), format!("{speed} is not a speed (m/s, above zero)"));
        }
        out.push(Move { node, at, to, speed });
    }
    out.sort_by(|a, b| a.at.total_cmp(&b.at)); // stable: moves at the same time keep their order
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
