//! Mobile IPv6's timer events, which the run's scheduler carries in `Event::Mip`.

/// The MN's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MipTimer {
    Beacon,
    Step,
}
