//! An AF_PACKET socket on one interface: whole Ethernet frames in and out, non-blocking.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// linux/if_packet.h (Linux 4.20): the socket does not see the frames it sends.
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
/// asm-generic/socket.h: buffer sizes past the sysctl limits (root only).
const SO_SNDBUFFORCE: libc::c_int = 32;
const SO_RCVBUFFORCE: libc::c_int = 33;
/// asm-generic/socket.h (x86, arm): each frame comes with the kernel's receive time
/// (CLOCK_REALTIME, a timespec in a SCM_TIMESTAMPNS message).
const SO_TIMESTAMPNS: libc::c_int = 35;

pub struct PacketSocket {
    fd: OwnedFd,
}

fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

impl PacketSocket {
    /// A socket bound to interface `ifname`, receiving every frame that comes in on it (not
    /// those it sends itself).
    pub fn open(ifname: &str) -> io::Result<PacketSocket> {
        let name = CString::new(ifname).map_err(|_| io::Error::other("interface name with a NUL"))?;
        // SAFETY: a NUL-terminated name
        let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
        if ifindex == 0 {
            return Err(io::Error::last_os_error());
        }
        let all = (libc::ETH_P_ALL as u16).to_be();
        // Protocol 0 receives nothing until bound: no frame of another interface slips in.
        // SAFETY: plain socket calls on a descriptor we own
        unsafe {
            let fd =
                check(libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0))?;
            let fd = OwnedFd::from_raw_fd(fd);
            let one: libc::c_int = 1;
            check(libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_PACKET,
                PACKET_IGNORE_OUTGOING,
                &one as *const _ as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            ))?;
            let buf: libc::c_int = 4 << 20;
            for opt in [SO_RCVBUFFORCE, SO_SNDBUFFORCE] {
                libc::setsockopt(
                    fd.as_raw_fd(),
                    libc::SOL_SOCKET,
                    opt,
                    &buf as *const _ as *const libc::c_void,
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                );
            }
            check(libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                SO_TIMESTAMPNS,
                &one as *const _ as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            ))?;
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_protocol = all;
            sll.sll_ifindex = ifindex as i32;
            check(libc::bind(
                fd.as_raw_fd(),
                &sll as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            ))?;
            Ok(PacketSocket { fd })
        }
    }

    /// The next frame into `buf`: its length and when the kernel received it (CLOCK_REALTIME,
    /// in ns, if it said), or None if none waits.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<(usize, Option<u64>)>> {
        let mut iov = libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
        let mut control = [0u64; 8]; // room for one timespec message, aligned
                                     // SAFETY: the message header points at `iov` and `control`, which outlive the call
        let (n, msg) = unsafe {
            let mut msg: libc::msghdr = std::mem::zeroed();
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
            msg.msg_controllen = std::mem::size_of_val(&control) as _;
            (libc::recvmsg(self.fd.as_raw_fd(), &mut msg, 0), msg)
        };
        if n >= 0 {
            let mut stamp = None;
            // SAFETY: walks the control messages the kernel wrote into `control`
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&msg);
                while !c.is_null() {
                    if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == SO_TIMESTAMPNS {
                        let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                        stamp = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
                    }
                    c = libc::CMSG_NXTHDR(&msg, c);
                }
            }
            return Ok(Some((n as usize, stamp)));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        }
    }

    /// Writes a whole frame out of the interface.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: `frame` is readable for its length
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr() as *const libc::c_void, frame.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// CLOCK_REALTIME now, in ns: the clock of the kernel's receive times.
pub fn realtime_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes the timespec
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CLOCK_MONOTONIC in ns: what `Instant` and Python's `time.monotonic()` read.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes the timespec
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
