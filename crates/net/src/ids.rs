//! The index types of a run's tables, one per table, so that an event or a field says which
//! table its number indexes and the compiler keeps them apart.

use std::fmt;
use std::num::NonZeroU32;

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into its table.
            #[inline(always)]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// A link direction: an index into `Network::links`.
    LinkId
);
id!(
    /// A flight lane of the wired links (`network::Flights`): packets of equal flight time.
    LaneId
);
id!(
    /// One of the scenario's timed actions, in its order.
    ActionId
);
id!(
    /// A radio: one node's interface on one WLAN, an index into `Wifi::stations`.
    RadioId
);
id!(
    /// A frame on the air, an index into the 802.11 MAC's slab of frames.
    FrameId
);

/// A node: an index into the scenario's nodes. Kept plus one in a `NonZeroU32`, so that an
/// `Option<NodeId>` (a packet's tunnel end) takes no more room than the id: a packet stays
/// 128 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(NonZeroU32);

impl NodeId {
    /// Node number `i` (the scenario's order).
    #[inline(always)]
    pub const fn new(i: u32) -> NodeId {
        match NonZeroU32::new(i.wrapping_add(1)) {
            Some(n) => NodeId(n),
            None => panic!("node numbers stop below u32::MAX"),
        }
    }

    /// Node number `i` as the scenario counts them.
    #[inline(always)]
    pub fn of(i: usize) -> NodeId {
        NodeId::new(u32::try_from(i).expect("node numbers fit in u32"))
    }

    /// The node's number, as ns-2 prints it.
    #[inline(always)]
    pub const fn get(self) -> u32 {
        self.0.get() - 1
    }

    /// The id as an index into the nodes.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.get() as usize
    }
}

impl Default for NodeId {
    fn default() -> NodeId {
        NodeId::new(0)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "NodeId({})", self.get())
    }
}

/// Which end of a flow: the agent on its `from` node or the one on its `to` node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    From,
    To,
}

#[cfg(test)]
mod tests {
    use super::NodeId;

    #[test]
    fn a_node_id_keeps_its_number_and_an_absent_one_costs_nothing() {
        for i in [0, 1, 41, u32::MAX - 1] {
            assert_eq!((NodeId::new(i).get(), NodeId::new(i).index()), (i, i as usize));
        }
        assert_eq!(NodeId::new(7).to_string(), "7");
        assert_eq!(std::mem::size_of::<Option<NodeId>>(), 4);
    }
}
