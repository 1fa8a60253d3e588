//! tcplab's discrete-event engine. It knows nothing about networks: integer time, a totally
//! ordered event queue, restartable timers, named random streams and the rings packets queue in.

mod heap;
mod ns2rng;
mod ring;
mod rng;
mod scheduler;
mod time;

pub use ns2rng::Ns2Rng;
pub use ring::Ring;
pub use rng::Rng;
pub use scheduler::{Scheduler, Timer};
pub use time::Time;
