//! The index types of a run's tables, one per table, so that an event or a field says which
//! table its number indexes and the compiler keeps them apart.

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
