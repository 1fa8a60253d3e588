//! ns-2's God (mobile/god.cc) as the wireless trace sees it: a table of shortest hop counts
//! between nodes, filled by the movement file's `$god_ set-dist i j d` lines (at the start, and
//! `$ns_ at t` later as setdest's nodes move). ns-2 stamps each data packet with its entry for
//! the packet's source and destination as the agent's send is traced (cmu-trace.cc,
//! `stampPacket`), and every wireless line of the packet prints it last (`opt_num_forwards`).
//! Without set-dist the table holds 0s: tcplab then keeps none.

use crate::packet::{Kind, Packet};
use serde::Serialize;

/// `$god_ set-dist a b hops` at time `at` (seconds), both ways.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SetDist {
    pub at: f64,
    pub a: usize,
    pub b: usize,
    pub hops: u32,
}

#[derive(Debug, Default)]
pub struct God {
    nodes: usize,
    /// `min_hops`, row by row.
    hops: Vec<u32>,
    /// The set-dist lines by time (stable: lines at one time keep their order), and how many
    /// have been applied.
    changes: Vec<SetDist>,
    applied: usize,
}

impl God {
    /// God for `nodes` nodes and these set-dist lines; None without any (a table of 0s).
    pub fn new(nodes: usize, set_dist: &[SetDist]) -> Option<God> {
        if set_dist.is_empty() {
            return None;
        }
        let mut changes = set_dist.to_vec();
        changes.sort_by(|x, y| x.at.total_cmp(&y.at));
        Some(God { nodes, hops: vec![0; nodes * nodes], changes, applied: 0 })
    }

    /// `stampPacket` at time `now`: a data packet (`p_info::data_packet`: TCP, its ACKs, CBR)
    /// takes the hop count between its source and destination nodes.
    pub fn stamp(&mut self, now: f64, pkt: &mut Packet) {
        while let Some(c) = self.changes.get(self.applied).filter(|c| c.at <= now) {
            self.hops[c.a * self.nodes + c.b] = c.hops;
            self.hops[c.b * self.nodes + c.a] = c.hops;
            self.applied += 1;
        }
        let (src, dst) = (pkt.src.node.index(), pkt.dst.node.index());
        if matches!(pkt.kind, Kind::Tcp | Kind::Ack | Kind::Cbr) && src < self.nodes && dst < self.nodes {
            pkt.opt_forwards = self.hops[src * self.nodes + dst];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;

    /// The table changes as set-dist lines come due, both ways; only data packets take it.
    #[test]
    fn data_packets_take_the_hop_count_of_their_time() {
        let lines = [
            SetDist { at: 5.0, a: 1, b: 0, hops: 3 },
            SetDist { at: 0.0, a: 0, b: 1, hops: 2 },
            SetDist { at: 5.0, a: 0, b: 1, hops: 16_777_215 },
        ];
        let mut god = God::new(3, &lines).expect("set-dist given");
        let mut pkt = Packet::of_network(1, Kind::Cbr, NodeId::new(1), NodeId::new(0), 512, 0, 0.0);
        god.stamp(1.0, &mut pkt);
        assert_eq!(pkt.opt_forwards, 2);
        god.stamp(5.0, &mut pkt);
        assert_eq!(pkt.opt_forwards, 16_777_215, "the later line at 5 s wins");
        let mut update = Packet::of_network(2, Kind::Message, NodeId::new(0), NodeId::new(1), 32, 0, 0.0);
        god.stamp(6.0, &mut update);
        assert_eq!(update.opt_forwards, 0, "a routing packet is not stamped");
        assert!(God::new(3, &[]).is_none());
    }
}
