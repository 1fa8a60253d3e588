//! DSDV's routing table (rtable.cc): entries sorted by destination address, found by binary
//! search, inserted in place, never removed (a broken route keeps its entry, metric `BIG`).

use crate::packet::PacketId;
use tcplab_des::Timer;

/// `rtable_ent`: one destination's route and its bookkeeping.
#[derive(Debug, Clone)]
pub struct Entry {
    pub dst: i32,
    pub hop: i32,
    pub metric: u32,
    pub seqnum: u32,
    /// The route is held out of every update until then (its settling time).
    pub advertise_ok_at: f64,
    /// The next update should carry it: a new sequence number, a new metric.
    pub advert_seqnum: bool,
    pub advert_metric: bool,
    pub changed_at: f64,
    pub new_seqnum_at: f64,
    /// The weighted settling time, s.
    pub wst: f64,
    pub last_advertised_metric: u32,
    /// `trigger_event` (pending while it has one) and when it is due.
    pub trigger: Timer,
    pub trigger_at: f64,
    /// `timeout_event`: the neighbour with this address is silent for too long.
    pub timeout: Timer,
    /// Packets waiting for a route to this destination, oldest first (`q`).
    pub queue: Vec<PacketId>,
}

impl Entry {
    /// A zeroed entry (`bzero`) for `dst`.
    pub fn zero(dst: i32) -> Entry {
        Entry::new(dst, 0)
    }

    /// A zeroed entry for `dst` through `hop`.
    pub fn new(dst: i32, hop: i32) -> Entry {
        Entry {
            dst,
            hop,
            metric: 0,
            seqnum: 0,
            advertise_ok_at: 0.0,
            advert_seqnum: false,
            advert_metric: false,
            changed_at: 0.0,
            new_seqnum_at: 0.0,
            wst: 0.0,
            last_advertised_metric: 0,
            trigger: Timer::default(),
            trigger_at: 0.0,
            timeout: Timer::default(),
            queue: Vec::new(),
        }
    }
}

#[derive(Default)]
pub struct Table {
    entries: Vec<Entry>,
}

impl Table {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn find(&self, dst: i32) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&dst, |e| e.dst)
    }

    pub fn get(&self, dst: i32) -> Option<&Entry> {
        self.find(dst).ok().map(|i| &self.entries[i])
    }

    pub fn get_mut(&mut self, dst: i32) -> Option<&mut Entry> {
        self.find(dst).ok().map(|i| &mut self.entries[i])
    }

    /// The `i`-th entry in address order.
    pub fn at_mut(&mut self, i: usize) -> &mut Entry {
        &mut self.entries[i]
    }

    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }

    /// `AddEntry`: replaces the entry for `e.dst` whole, or inserts it in address order.
    pub fn add(&mut self, e: Entry) {
        match self.find(e.dst) {
            Ok(i) => self.entries[i] = e,
            Err(i) => self.entries.insert(i, e),
        }
    }

    /// `cancelTriggersBefore`: drops every trigger due before `t`.
    pub fn cancel_triggers_before(&mut self, t: f64) {
        for e in &mut self.entries {
            if e.trigger.pending() && e.trigger_at < t {
                e.trigger.cancel();
            }
        }
    }
}
