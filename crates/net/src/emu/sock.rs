//! An AF_PACKET socket on one interface: whole Ethernet frames in and out, non-blocking.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// linux/if_packet.h (Linux 4.20): the socket does not see the frames it sends.
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
/// asm-generic/socket.h: buffer sizes past the sysctl limits (root only).
const SO_SNDBUFFORCE: libc::c_int = 32;
const SO_RCVBUFFORCE: libc::c_int = 33;

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
            let fd = check(libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0))?;
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

    /// The next frame into `buf`: its length, or None if none waits.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: `buf` is writable for its length
        let n = unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr() as *mut libc::c_void, buf.len(), 0) };
        if n >= 0 {
            return Ok(Some(n as usize));
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
