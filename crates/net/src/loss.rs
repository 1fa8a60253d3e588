//! Loss models at the head of a link, before its queue (ns-2's `ErrorModule` on a link).

use crate::scenario::{LossAction, LossConfig};

/// ns-2's `ErrorModel/List` with packet units, bound to some flow ids: counts the packets of
/// those flows and picks the ones whose count is listed, to drop, mark or delay.
pub struct ListLoss {
    pub action: LossAction,
    fids: Vec<u32>,
    drops: Vec<u64>,
    next: usize,
    count: u64,
}

impl ListLoss {
    pub fn new(cfg: &LossConfig) -> ListLoss {
        ListLoss { action: cfg.action, fids: cfg.fids.clone(), drops: cfg.packets.clone(), next: 0, count: 0 }
    }

    /// Whether this model picks a packet of flow id `fid` entering the link.
    pub fn picks(&mut self, fid: u32) -> bool {
        if !self.fids.is_empty() && !self.fids.contains(&fid) {
            return false; // unbound flow ids pass the error module untouched
        }
        let drop = self.drops.get(self.next) == Some(&self.count);
        if drop {
            self.next += 1;
        }
        self.count += 1;
        drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_the_listed_packets_of_its_flows_only() {
        let mut m = ListLoss::new(&LossConfig { link: 0, fids: vec![1], packets: vec![2, 4, 5], action: LossAction::Drop });
        let mut dropped = Vec::new();
        for i in 0..8 {
            assert!(!m.picks(7), "other flows pass and are not counted");
            if m.picks(1) {
                dropped.push(i);
            }
        }
        assert_eq!(dropped, vec![2, 4, 5]);
    }

    /// ns-2 quirk kept: a repeated entry can never match again and blocks the rest of the list.
    #[test]
    fn repeated_entries_block_the_list_as_in_ns2() {
        let mut m = ListLoss::new(&LossConfig { link: 0, fids: vec![], packets: vec![1, 1, 3], action: LossAction::Drop });
        let dropped: Vec<u32> = (0..5).filter(|_| m.picks(0)).collect();
        assert_eq!(dropped.len(), 1);
    }
}
