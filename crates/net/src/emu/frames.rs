//! The side table of real frames in emulation: a real host's frame crosses the simulated
//! network as a `Kind::Real` packet of its size, and its bytes wait here, keyed by the packet's
//! uid, until the packet reaches the node of the host it is addressed to (`arrived`) or is
//! dropped. Simulated packets never touch it. Buffers are kept for reuse, so a steady stream
//! of frames allocates nothing once the table has grown.

use crate::ids::NodeId;
use crate::packet::PacketId;
use std::collections::HashMap;

#[derive(Default)]
pub struct RealFrames {
    bytes: HashMap<u64, Vec<u8>>,
    spare: Vec<Vec<u8>>,
    /// Real packets that reached the node of the host they are addressed to, still in the pool:
    /// the emulation writes them out and frees them after each event.
    pub(crate) arrived: Vec<(NodeId, PacketId)>,
    /// Real packets the network dropped (losses, queues).
    pub dropped: u64,
}

impl RealFrames {
    /// Keeps a copy of `frame` for the packet `uid`.
    pub fn keep(&mut self, uid: u64, frame: &[u8]) {
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(frame);
        self.bytes.insert(uid, buf);
    }

    /// The frame of packet `uid`, taken out of the table; hand it back with `recycle`.
    pub fn take(&mut self, uid: u64) -> Option<Vec<u8>> {
        self.bytes.remove(&uid)
    }

    /// The frame of packet `uid`, left in the table, marked CE first if `ce` (a simulated queue
    /// marked the packet since it entered).
    pub fn get_marked(&mut self, uid: u64, ce: bool) -> Option<&[u8]> {
        let f = self.bytes.get_mut(&uid)?;
        if ce {
            super::frame::mark_ce(f);
        }
        Some(f.as_slice())
    }

    /// A buffer from `take`, for the next frame.
    pub fn recycle(&mut self, buf: Vec<u8>) {
        self.spare.push(buf);
    }

    /// Packet `uid` was dropped: its bytes go.
    pub fn drop_frame(&mut self, uid: u64) {
        if let Some(buf) = self.take(uid) {
            self.recycle(buf);
        }
        self.dropped += 1;
    }

    /// Frames held (in queues and on wires).
    pub fn held(&self) -> usize {
        self.bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_kept_until_taken_or_dropped_and_its_buffer_reused() {
        let mut t = RealFrames::default();
        t.keep(7, &[1, 2, 3]);
        t.keep(8, &[4]);
        assert_eq!(t.held(), 2);
        let b = t.take(7).expect("kept");
        assert_eq!(b, [1, 2, 3]);
        let ptr = b.as_ptr();
        t.recycle(b);
        t.drop_frame(8);
        assert_eq!((t.held(), t.dropped), (0, 1));
        t.keep(9, &[5, 6]);
        let b = t.take(9).expect("kept");
        assert_eq!(b, [5, 6]);
        assert!(b.as_ptr() == ptr || t.spare.len() == 1, "a spare buffer is reused");
        assert!(t.take(9).is_none());
    }
}
