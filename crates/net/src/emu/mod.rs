//! Emulation: real Linux hosts exchange frames through the simulated network, in real time.
pub mod frame;
pub mod frames;
pub mod lateness;
