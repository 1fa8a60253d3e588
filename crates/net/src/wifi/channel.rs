//! Where the radios are, and whom a frame reaches in what order: ns-2's wireless channel
//! (mac/channel.cc) and its mobile nodes' positions (common/mobilenode.cc).
//!
//! A moving node's position is a sum of steps (`Motion`), one each time ns-2 asks where the
//! node is, and the sum rounds by the moments it is asked. They are: as a frame goes on the
//! air, the sender and each node in its reach (`get_pdelay`); as it arrives, both ends (the
//! propagation model's `getLoc`), even at a node too far to sense it; at most a second apart
//! for a moving node, as any frame goes out (`getAffectedNodes`); at each line the new
//! wireless trace writes of the node (`format_mac_common`); and at its `setdest`s.
//!
//! In the ns2 profile the channel keeps its radios in a list sorted by the x each had when it
//! last moved (`updateNodesList`); a frame goes to the radios within the carrier-sense
//! distance and 5 m of the sender in x and in y, as that list has them: down from the sender,
//! then up. Frames that arrive at the same instant are taken in that order.

use super::{distance, Wifi};
use crate::ctx::{Ctx, Event};
use crate::ids::RadioId;
use crate::mobility::path::{Motion, Move};
use crate::wifi::phy::Propagation;
use crate::wifi::WifiEvent;

/// A moving node not asked where it is for longer than this is moved on as any frame goes out
/// (channel.cc's `XLIST_POSITION_UPDATE_INTERVAL`).
const STALE_AFTER: f64 = 1.0;

/// The radios of an ns2-profile WLAN in ns-2's channel list: the order they were made until the
/// first frame (or the first move), then sorted by x, each moved as its x changes.
#[derive(Debug, Default)]
pub(super) struct NodeList {
    order: Vec<RadioId>,
    sorted: bool,
    /// How far from a sender in x and y the channel looks (`distCST_` + 5 m).
    radius: f64,
}

impl NodeList {
    /// The list of `order`'s radios on a channel that carries a frame `reach` metres
    /// (`WlanConfig::ns2_channel_reach`).
    pub(super) fn new(order: Vec<RadioId>, reach: f64) -> NodeList {
        NodeList { order, sorted: false, radius: reach + 5.0 }
    }

    /// Sorted by x, radios of equal x in the order they were in (`sortLists`, a bubble sort).
    fn sort(&mut self, x: impl Fn(RadioId) -> f64) {
        if !self.sorted {
            self.sorted = true;
            self.order.sort_by(|&a, &b| x(a).total_cmp(&x(b)));
        }
    }

    /// Radio `r`'s x changed from `before`: `updateNodesList`, which leaves it where it is if
    /// that is still in order, and otherwise moves it ahead of the radios of its new x when it
    /// moved up, behind them when it moved down.
    fn moved(&mut self, r: RadioId, before: f64, x: impl Fn(RadioId) -> f64) {
        if !self.sorted {
            return self.sort(x);
        }
        let Some(i) = self.order.iter().position(|&o| o == r) else { return };
        let now = x(r);
        let after_prev = i == 0 || x(self.order[i - 1]) <= now;
        let before_next = i + 1 == self.order.len() || x(self.order[i + 1]) >= now;
        if after_prev && before_next {
            return;
        }
        self.order.remove(i);
        let at = if now > before {
            self.order.partition_point(|&o| x(o) < now)
        } else {
            self.order.partition_point(|&o| x(o) <= now)
        };
        self.order.insert(at, r);
    }
}

impl Wifi {
    /// The nodes' moves (sorted by time), each node starting where its first radio is.
    pub fn set_moves(&mut self, moves: &[Move]) {
        if moves.is_empty() {
            self.motions.clear(); // nothing moves: no faint arrivals to schedule
            return;
        }
        let nodes = self.stations.iter().map(|s| s.node.index() + 1).max().unwrap_or(0);
        self.motions = (0..nodes)
            .map(|n| {
                let mine: Vec<&Move> = moves.iter().filter(|m| m.node == n).collect();
                let start = self.stations.iter().find(|s| s.node.index() == n).map(|s| s.pos)?;
                (!mine.is_empty()).then(|| Motion::new(start, &mine))
            })
            .collect();
    }

    #[inline(always)]
    fn motion(&self, r: RadioId) -> Option<&Motion> {
        if self.motions.is_empty() {
            return None; // nothing moves (the common case: no lookup)
        }
        self.motions.get(self.stations[r.index()].node.index())?.as_ref()
    }

    /// Where radio `r` was when last asked (ns-2's `X_`, `Y_`, as its channel reads them).
    #[inline(always)]
    fn kept_position(&self, r: RadioId) -> (f64, f64) {
        self.motion(r).map_or(self.stations[r.index()].pos, Motion::at)
    }

    /// Where radio `r` is at `now`, its node moved on to then (ns-2's `getLoc`).
    #[inline(always)]
    pub fn locate(&mut self, r: RadioId, now: f64) -> (f64, f64) {
        if !self.motions.is_empty() {
            self.move_on(self.stations[r.index()].node.index(), now, true);
        }
        self.kept_position(r)
    }

    /// Where radio `r` would be found at `now`, without asking it (for models outside ns-2's:
    /// its kept position stays as it was).
    pub fn position(&self, r: RadioId, now: f64) -> (f64, f64) {
        self.motion(r).map_or(self.stations[r.index()].pos, |m| m.peek(now))
    }

    /// Where node `node` is at `now`, if it has a radio (`locate` of its first).
    pub fn locate_node(&mut self, node: usize, now: f64) -> Option<(f64, f64)> {
        let r = self.stations.iter().position(|s| s.node.index() == node)?;
        Some(self.locate(RadioId(r as u32), now))
    }

    /// Where radio `r` is, for a trace line of `layer` for event `ev`: moved on to now where the
    /// line shows it (ns-2's new format asks), as it was otherwise (the line shows none).
    pub(super) fn traced_position(&mut self, ctx: &Ctx, r: RadioId, now: f64, layer: &str, ev: char) -> (f64, f64) {
        if ctx.tracer.shows_position(layer, ev) {
            self.locate(r, now)
        } else {
            self.kept_position(r)
        }
    }

    /// Node `node`'s moves due by `now`, each at its time, then (with `update`) its position
    /// moved on to `now`; each change of its x moves it in its channels' lists.
    fn move_on(&mut self, node: usize, now: f64, update: bool) {
        while let Some(moved) = self.motion_mut(node).and_then(|m| m.take_due_move(now)) {
            if let Some(before) = moved {
                self.relist(node, before);
            }
        }
        if let Some(before) = self.motion_mut(node).filter(|_| update).and_then(|m| m.update(now)) {
            self.relist(node, before);
        }
    }

    fn motion_mut(&mut self, node: usize) -> Option<&mut Motion> {
        self.motions.get_mut(node)?.as_mut()
    }

    /// Node `node`'s x changed from `before`: its radios move in their channels' lists.
    fn relist(&mut self, node: usize, before: f64) {
        for r in 0..self.stations.len() {
            let s = &self.stations[r];
            if s.node.index() != node || !self.wlans[s.wlan as usize].ns2_backoff {
                continue;
            }
            let mut list = std::mem::take(&mut self.lists[s.wlan as usize]);
            list.moved(RadioId(r as u32), before, |o| self.kept_position(o).0);
            self.lists[s.wlan as usize] = list;
        }
    }

    /// The radios a frame radio `r` sends at `now` reaches in the ns2 profile, into `reach`, in
    /// ns-2's order (`getAffectedNodes`): those within `Radio::ns2_cs_distance` + 5 m in x and y
    /// of where the sender was when last asked, by where each is once the moving nodes not
    /// asked for a second have been moved on, by the list, down from the sender and then up.
    pub(super) fn ns2_reach(&mut self, r: RadioId, now: f64, reach: &mut Vec<RadioId>) {
        let wlan = self.stations[r.index()].wlan as usize;
        for node in 0..self.motions.len() {
            self.move_on(node, now, false); // the setdests due: ns-2 has run them by now
        }
        if !self.lists[wlan].sorted {
            let mut list = std::mem::take(&mut self.lists[wlan]);
            list.sort(|o| self.kept_position(o).0);
            self.lists[wlan] = list;
        }
        // the box is centred where the sender was when last asked, before the refresh below
        let (x, y) = self.kept_position(r);
        if !self.motions.is_empty() {
            reach.clear();
            reach.extend_from_slice(&self.lists[wlan].order); // the order before any moves on
            for &o in reach.iter() {
                if self.motion(o).is_some_and(|m| m.speed() != 0.0 && now - m.since() > STALE_AFTER) {
                    self.move_on(self.stations[o.index()].node.index(), now, true);
                }
            }
        }
        let radius = self.lists[wlan].radius;
        let order = &self.lists[wlan].order;
        let at = order.iter().position(|&o| o == r).expect("the sender is on its channel");
        let in_y = |o: RadioId| (y - radius..=y + radius).contains(&self.kept_position(o).1);
        let down = order[..=at].iter().rev().take_while(|&&o| self.kept_position(o).0 >= x - radius);
        let up = order[at + 1..].iter().take_while(|&&o| self.kept_position(o).0 <= x + radius);
        reach.clear();
        reach.extend(down.chain(up).copied().filter(|&o| o != r && in_y(o)));
    }

    /// The power at radio `r` of a frame from radio `src` arriving now, both moved on to now in
    /// the order ns-2's propagation model asks (two-ray ground: the receiver first).
    #[inline]
    pub(super) fn arrival_power(&mut self, r: RadioId, src: RadioId, now: f64) -> f64 {
        if self.motions.is_empty() {
            let (at, from) = (self.stations[r.index()].pos, self.stations[src.index()].pos);
            return self.wlan_of(r).radio.rx_power(distance(from, at));
        }
        let (at, from) = match self.wlan_of(r).radio.propagation {
            Propagation::TwoRayGround => {
                let at = self.locate(r, now);
                (at, self.locate(src, now))
            }
            Propagation::FreeSpace => {
                let from = self.locate(src, now);
                (self.locate(r, now), from)
            }
        };
        self.wlan_of(r).radio.rx_power(distance(from, at))
    }

    /// A frame radio `src` sent reaches radio `r` too faint to sense: ns-2's PHY still computes
    /// its power, moving both nodes on (in a run where nodes move).
    #[cold]
    pub(super) fn faint_arrival(&mut self, ctx: &mut Ctx, r: RadioId, src: RadioId) {
        let _ = self.arrival_power(r, src, ctx.now_secs());
    }

    /// Schedules a faint frame's arrival at radio `r` when a node may be moving then.
    pub(super) fn schedule_faint(&self, ctx: &mut Ctx, at: f64, r: RadioId, src: RadioId) {
        if !self.motions.is_empty() {
            ctx.sched.schedule_exact(at, Event::Wifi(WifiEvent::Faint(r, src)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Draws;
    use crate::wifi::phy::Radio;
    use tcplab_des::Rng;

    /// ns-2's list keeps a radio where it is while that is in order; moved up, it goes ahead of
    /// the radios at its new x, moved down, behind them (`updateNodesList`); the first sort
    /// keeps equal x in the order they were made.
    #[test]
    fn the_channel_list_moves_a_radio_as_ns2_does() {
        let xs = std::cell::RefCell::new(vec![0.0, 10.0, 20.0, 20.0, 30.0, 40.0]);
        let x = |r: RadioId| xs.borrow()[r.index()];
        let names = |l: &NodeList| l.order.iter().map(|r| r.0).collect::<Vec<_>>();
        let mut list = NodeList::new([3, 2, 0, 1, 4, 5].map(RadioId).to_vec(), Radio::default().ns2_cs_distance());
        list.sort(x);
        assert_eq!(names(&list), [0, 1, 3, 2, 4, 5], "stable: 3 was made before 2");
        xs.borrow_mut()[1] = 20.0; // up to the x of 3 and 2, but still in order: stays
        list.moved(RadioId(1), 10.0, x);
        assert_eq!(names(&list), [0, 1, 3, 2, 4, 5]);
        xs.borrow_mut()[0] = 20.0; // up, out of order: ahead of those at 20
        list.moved(RadioId(0), 0.0, x);
        assert_eq!(names(&list), [0, 1, 3, 2, 4, 5]);
        xs.borrow_mut()[0] = 25.0;
        list.moved(RadioId(0), 20.0, x);
        assert_eq!(names(&list), [1, 3, 2, 0, 4, 5]);
        xs.borrow_mut()[5] = 20.0; // down: behind those at 20
        list.moved(RadioId(5), 40.0, x);
        assert_eq!(names(&list), [1, 3, 2, 5, 0, 4]);
        xs.borrow_mut()[4] = 5.0;
        list.moved(RadioId(4), 30.0, x);
        assert_eq!(names(&list), [4, 1, 3, 2, 5, 0]);
    }

    fn ns2_wifi(positions: Vec<(f64, f64)>, moves: &[Move]) -> Wifi {
        let nodes = (0..positions.len()).collect();
        let mut cfg = crate::testing::wlan("w", nodes, positions, None);
        cfg.ns2_backoff = true;
        cfg.radio.ns2 = true;
        let mut wifi = Wifi::new(vec![cfg], |name| Draws::Own(Rng::stream(1, &name)));
        wifi.set_moves(moves);
        wifi
    }

    /// A frame reaches the radios within the carrier-sense distance and 5 m of the sender in x
    /// and y by where each was when last asked: a moving node asked less than a second ago
    /// outside that box is not reached though it is in range now; one not asked for longer is
    /// moved on first.
    #[test]
    fn a_frame_reaches_the_radios_in_the_box_by_their_kept_positions() {
        let toward = Move { node: 2, at: 0.0, to: (1.0, 0.0), speed: 100.0 };
        let mut wifi = ns2_wifi(vec![(0.0, 0.0), (0.0, 300.0), (1000.0, 0.0), (500.0, 570.0)], &[toward]);
        let radius = wifi.wlans[0].radio.ns2_cs_distance() + 5.0;
        assert!((radius - 555.0).abs() < 1.0, "ns-2's 550 m, and 5: {radius}");
        let mut reach = Vec::new();
        wifi.locate(RadioId(2), 4.2); // at 580 m
        wifi.ns2_reach(RadioId(0), 4.9, &mut reach); // at 510 m, kept at 580
        assert_eq!(reach, [RadioId(1)], "3 is beyond the box in y");
        assert_eq!(wifi.kept_position(RadioId(2)).0, 580.0);
        wifi.ns2_reach(RadioId(0), 5.3, &mut reach); // 1.1 s since it was asked: moved on
        assert_eq!(reach, [RadioId(1), RadioId(2)], "by the list: 1 (x 0) up, then 2");
        assert!((wifi.kept_position(RadioId(2)).0 - 470.0).abs() < 1e-9);
        wifi.ns2_reach(RadioId(2), 5.3, &mut reach);
        assert_eq!(reach, [RadioId(1), RadioId(0)], "down the list from 2 (x 470); 3 is beyond in y");
    }

    /// The box is centred where the sender was when last asked, before the moving nodes not
    /// asked for a second (the sender among them) are moved on (`getAffectedNodes` computes it
    /// first): a radio in range of where the sender is, but not of where it was, is not reached.
    #[test]
    fn the_box_is_centred_where_the_sender_was_last_asked() {
        let away = Move { node: 1, at: 0.0, to: (1000.0, 0.0), speed: 100.0 };
        let mut wifi = ns2_wifi(vec![(0.0, 300.0), (0.0, 0.0), (-90.0, 0.0)], &[away]);
        let mut reach = Vec::new();
        wifi.ns2_reach(RadioId(1), 0.5, &mut reach); // kept at 0 m: not asked since it set off
        assert_eq!(reach, [RadioId(0), RadioId(2)], "down the list: 0 (x 0, made first), then 2");
        wifi.ns2_reach(RadioId(1), 5.0, &mut reach); // at 500 m, 590 from radio 2
        assert_eq!(reach, [RadioId(0), RadioId(2)], "the box around 0 m, where it was asked last");
        assert_eq!(wifi.kept_position(RadioId(1)), (500.0, 0.0), "moved on after the box was set");
        wifi.ns2_reach(RadioId(1), 5.5, &mut reach); // asked half a second ago: not moved on
        assert_eq!(reach, [RadioId(0)], "the box around 500 m");
    }
}
