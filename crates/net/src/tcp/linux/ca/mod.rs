//! The congestion-control modules of ns-2.35's TCP-Linux (tcp/linux/src/tcp_*.c and
//! tcp_naivereno.c), one file each, written from the kernel's rules.

pub mod reno;
pub mod cubic;
pub mod highspeed;
pub mod scalable;
pub mod bic;
pub mod htcp;
pub mod hybla;
pub mod veno;
pub mod illinois;
pub mod westwood;
pub mod vegas;
pub mod yeah;
pub mod lp;
pub mod compound;
