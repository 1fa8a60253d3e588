//! The congestion-control modules of ns-2.35's TCP-Linux (tcp/linux/src/tcp_*.c and
//! tcp_naivereno.c), one file each, written from the kernel's rules.

pub mod bic;
pub mod compound;
pub mod cubic;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod lp;
pub mod reno;
pub mod scalable;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod yeah;
