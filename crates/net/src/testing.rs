//! Helpers for the crate's unit tests.

use crate::packet::{Addr, FlowId, Kind, Packet, NO_VIA};
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// A trace sink the test can read back.
#[derive(Clone, Default)]
pub struct Shared(pub Arc<Mutex<Vec<u8>>>);

impl Shared {
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).expect("traces are text")
    }
}

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An endless xorshift sequence from `seed`, for tests that try many inputs.
pub fn xorshift(mut seed: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        Some(seed)
    })
}

/// A 40-byte TCP packet of flow 0 with every field at rest: a test sets what it looks at
/// (`Packet { size: 1040, ..packet() }`).
pub fn packet() -> Packet {
    Packet {
        uid: 0,
        flow: FlowId(0),
        fid: 0,
        kind: Kind::Tcp,
        size: 40,
        payload: 0,
        seq: 0,
        src: Addr::default(),
        dst: Addr::default(),
        flags: 0,
        ts: 0.0,
        ts_echo: 0.0,
        sack: [(0, 0); 3],
        nsack: 0,
        encaps: 0,
        via: NO_VIA,
        tunnel_from: 0,
        mip_bytes: 0,
    }
}
