//! TCP agents, ns-2 profile.

mod scoreboard;
mod sender;
mod sink;

pub use sender::TcpSender;
pub use sink::TcpSink;
