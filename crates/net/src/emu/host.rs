//! Host plumbing: a network namespace per real host, joined to the root namespace by a veth
//! pair with offloads off, an address and a default route; the commands started inside; and
//! their removal on drop, on SIGINT, SIGTERM and SIGHUP (`stop_requested`), and at the next
//! start. Every name starts with `tl-`, and what a run creates is written to a state file under
//! /run/tcplab/ before it is created, so the next run removes what a SIGKILLed one left.

use super::frame::{Mac, Prefix, Prefix6};
use crate::scenario::HostConfig;
use std::io::{self, Write};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// What every namespace and interface tcplab creates is named with.
pub const PREFIX: &str = "tl-";
pub const STATE_DIR: &str = "/run/tcplab";
/// The interface inside a host's namespace.
pub const HOST_IF: &str = "eth0";

/// One real host's plumbing.
#[derive(Debug, Clone)]
pub struct HostLink {
    /// The namespace, and the veth end left in the root namespace: both `tl-NAME`.
    pub ns: String,
    pub veth: String,
    /// The MAC the host's ARP requests are answered with (the simulated gateway's), and the
    /// host's own, on its `eth0`.
    pub gw_mac: Mac,
    pub host_mac: Mac,
    pub address: Prefix,
    pub gateway: Ipv4Addr,
    pub address6: Option<Prefix6>,
    pub gateway6: Option<Ipv6Addr>,
}

impl HostLink {
    fn of(i: usize, h: &HostConfig) -> HostLink {
        let mac = |last: u8| [0x02, 0x74, 0x6c, (i >> 8) as u8, i as u8, last];
        HostLink {
            ns: format!("{PREFIX}{}", h.name),
            veth: format!("{PREFIX}{}", h.name),
            gw_mac: mac(2),
            host_mac: mac(3),
            address: h.address,
            gateway: h.gateway,
            address6: h.address6,
            gateway6: h.gateway6,
        }
    }

    /// The root end's own MAC, which differs from the gateway's: frames to the gateway are
    /// then another host's for the root namespace's kernel, which leaves them alone.
    fn root_mac(&self) -> Mac {
        let mut m = self.gw_mac;
        m[5] = 1;
        m
    }
}

fn mac_text(m: Mac) -> String {
    m.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// Why emulation cannot run here, in one line, or None.
pub fn refusal() -> Option<String> {
    // SAFETY: geteuid has no preconditions
    if unsafe { libc::geteuid() } != 0 {
        return Some(
            "tcplab emulate needs root: it creates network namespaces and veth pairs (run it as root, or with sudo)"
                .into(),
        );
    }
    for tool in ["ip", "ethtool"] {
        let found = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
            .unwrap_or(false);
        if !found {
            return Some(format!("tcplab emulate needs `{tool}` (Debian: apt-get install iproute2 ethtool)"));
        }
    }
    None
}

/// Runs a command of the plumbing; its failure is an error naming it.
fn run(args: &[&str]) -> Result<(), String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", args.join(" ")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("`{}` failed: {}", args.join(" "), err.trim()));
    }
    Ok(())
}

/// Runs a command whose failure does not matter (removal of what may be gone already).
fn try_run(args: &[&str]) {
    let _ = Command::new(args[0])
        .args(&args[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

fn netns_exists(ns: &str) -> bool {
    Path::new("/run/netns").join(ns).exists()
}

fn link_exists(name: &str) -> bool {
    Path::new("/sys/class/net").join(name).exists()
}

/// Removes namespace `ns` (killing what still runs in it) and interface `link`, if they are
/// tcplab's (named `tl-...`).
fn remove(ns: Option<&str>, link: Option<&str>) {
    if let Some(ns) = ns.filter(|n| n.starts_with(PREFIX) && netns_exists(n)) {
        if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).stderr(Stdio::null()).output() {
            for pid in String::from_utf8_lossy(&out.stdout).split_whitespace().filter_map(|p| p.parse::<i32>().ok()) {
                // SAFETY: a signal to a process of our namespace
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        try_run(&["ip", "netns", "del", ns]);
    }
    if let Some(link) = link.filter(|l| l.starts_with(PREFIX) && link_exists(l)) {
        try_run(&["ip", "link", "del", link]);
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks the process exists
    pid > 0 && (unsafe { libc::kill(pid, 0) } == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

/// What a state file lists: the run's pid, its namespaces and its links.
#[derive(Debug, Default, PartialEq)]
struct State {
    pid: i32,
    netns: Vec<String>,
    links: Vec<String>,
}

impl State {
    fn parse(text: &str) -> State {
        let mut s = State::default();
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("pid", p)) => s.pid = p.trim().parse().unwrap_or(0),
                Some(("netns", n)) => s.netns.push(n.trim().to_string()),
                Some(("link", l)) => s.links.push(l.trim().to_string()),
                _ => {}
            }
        }
        s
    }

    fn text(&self) -> String {
        let mut t = format!("pid {}\n", self.pid);
        for n in &self.netns {
            t += &format!("netns {n}\n");
        }
        for l in &self.links {
            t += &format!("link {l}\n");
        }
        t
    }
}

/// Removes what the state files of runs no longer alive list, and their files; returns the
/// names live runs hold.
fn clean_stale(dir: &Path) -> Vec<(String, i32)> {
    let mut held = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return held };
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "state") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let s = State::parse(&text);
        if s.pid != std::process::id() as i32 && alive(s.pid) {
            held.extend(s.netns.iter().chain(&s.links).map(|n| (n.clone(), s.pid)));
            continue;
        }
        for n in &s.netns {
            remove(Some(n), None);
        }
        for l in &s.links {
            remove(None, Some(l));
        }
        let _ = std::fs::remove_file(&path);
    }
    held
}

/// The signal (SIGINT, SIGTERM or SIGHUP) that asked a running emulation to stop, or 0.
static STOP: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    STOP.store(sig, Ordering::Relaxed);
}

/// The signal that asked the run to stop, if one did.
pub fn stop_requested() -> Option<i32> {
    Some(STOP.load(Ordering::Relaxed)).filter(|&s| s != 0)
}

/// The handlers of SIGINT, SIGTERM and SIGHUP while it lives (the previous ones come back).
pub struct Signals {
    old: Vec<(libc::c_int, libc::sigaction)>,
}

impl Signals {
    pub fn install() -> Signals {
        STOP.store(0, Ordering::Relaxed);
        let mut old = Vec::new();
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: a plain handler that stores to an atomic; sigaction structs zeroed
            unsafe {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut act.sa_mask);
                let mut prev: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &act, &mut prev) == 0 {
                    old.push((sig, prev));
                }
            }
        }
        Signals { old }
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: restores what sigaction handed back
            unsafe { libc::sigaction(*sig, prev, std::ptr::null_mut()) };
        }
    }
}

/// The namespaces, veth pairs and processes of a run; all removed on drop.
pub struct Plumbing {
    pub hosts: Vec<HostLink>,
    state: State,
    state_file: PathBuf,
    children: Vec<Child>,
}

impl Plumbing {
    /// Cleans what dead runs left, then creates each host's namespace and veth pair.
    pub fn create(hosts: &[HostConfig]) -> Result<Plumbing, String> {
        Plumbing::create_in(hosts, Path::new(STATE_DIR))
    }

    fn create_in(hosts: &[HostConfig], dir: &Path) -> Result<Plumbing, String> {
        if let Some(why) = refusal() {
            return Err(why);
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let held = clean_stale(dir);
        let links: Vec<HostLink> = hosts.iter().enumerate().map(|(i, h)| HostLink::of(i, h)).collect();
        for l in &links {
            if let Some((_, pid)) = held.iter().find(|(n, _)| *n == l.ns || *n == l.veth) {
                return Err(format!("{} is in use by another tcplab emulate (pid {pid})", l.ns));
            }
        }
        let pid = std::process::id() as i32;
        let mut p = Plumbing {
            hosts: Vec::new(),
            state: State { pid, ..State::default() },
            state_file: dir.join(format!("emulate-{pid}.state")),
            children: Vec::new(),
        };
        for l in links {
            // a leftover no live run holds (its state file lost) goes too: the names are ours
            remove(Some(&l.ns), Some(&l.veth));
            p.state.netns.push(l.ns.clone());
            p.state.links.push(l.veth.clone());
            p.save()?;
            p.create_host(&l)?;
            p.hosts.push(l);
        }
        Ok(p)
    }

    fn save(&self) -> Result<(), String> {
        let tmp = self.state_file.with_extension("tmp");
        let write = || -> io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(self.state.text().as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.state_file)
        };
        write().map_err(|e| format!("{}: {e}", self.state_file.display()))
    }

    fn create_host(&self, l: &HostLink) -> Result<(), String> {
        let (ns, veth) = (l.ns.as_str(), l.veth.as_str());
        let (root_mac, host_mac) = (mac_text(l.root_mac()), mac_text(l.host_mac));
        let addr = l.address.to_string();
        let gw = l.gateway.to_string();
        let off = ["tso", "off", "gso", "off", "gro", "off", "tx", "off", "rx", "off"];
        run(&["ip", "netns", "add", ns])?;
        run(&[
            "ip", "link", "add", veth, "address", &root_mac, "type", "veth", "peer", "name", HOST_IF, "address",
            &host_mac, "netns", ns,
        ])?;
        // the root end: no ARP, no IPv6, no offloads; only our AF_PACKET socket uses it
        run(&["ip", "link", "set", veth, "arp", "off"])?;
        let _ = std::fs::write(format!("/proc/sys/net/ipv6/conf/{veth}/disable_ipv6"), "1");
        run(&[&["ethtool", "-K", veth][..], &off].concat())?;
        run(&["ip", "link", "set", veth, "up"])?;
        run(&[&["ip", "netns", "exec", ns, "ethtool", "-K", HOST_IF][..], &off].concat())?;
        run(&["ip", "-n", ns, "link", "set", "lo", "up"])?;
        run(&["ip", "-n", ns, "addr", "add", &addr, "dev", HOST_IF])?;
        run(&["ip", "-n", ns, "link", "set", HOST_IF, "up"])?;
        run(&["ip", "-n", ns, "route", "add", "default", "via", &gw, "dev", HOST_IF])?;
        if let (Some(a), Some(gw6)) = (l.address6, l.gateway6) {
            // no duplicate address detection: the address is usable at once, and the only
            // other end is ours
            run(&["ip", "-n", ns, "-6", "addr", "add", &a.to_string(), "dev", HOST_IF, "nodad"])?;
            run(&["ip", "-n", ns, "-6", "route", "add", "default", "via", &gw6.to_string(), "dev", HOST_IF])?;
        }
        Ok(())
    }

    /// Starts `sh -c command` in host `h`'s namespace (or in the root namespace, for None), in
    /// its own process group, killed if this process dies.
    pub fn spawn(&mut self, h: Option<usize>, command: &str, env: &[(String, String)]) -> Result<usize, String> {
        let mut cmd = match h {
            Some(h) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", &self.hosts[h].ns, "sh", "-c", command]);
                c
            }
            None => {
                let mut c = Command::new("sh");
                c.args(["-c", command]);
                c
            }
        };
        cmd.envs(env.iter().map(|(k, v)| (k, v))).stdin(Stdio::null()).process_group(0);
        // SAFETY: prctl is async-signal-safe
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = cmd.spawn().map_err(|e| format!("{command}: {e}"))?;
        self.children.push(child);
        Ok(self.children.len() - 1)
    }

    /// The exit status of child `i` if it has ended.
    pub fn exited(&mut self, i: usize) -> Option<std::process::ExitStatus> {
        self.children[i].try_wait().ok().flatten()
    }

    /// Removes everything: the processes (SIGTERM, then SIGKILL after a second), the
    /// namespaces and links, the state file.
    pub fn teardown(&mut self) {
        for c in &self.children {
            // SAFETY: the child's own process group
            unsafe { libc::kill(-(c.id() as i32), libc::SIGTERM) };
        }
        let deadline = Instant::now() + Duration::from_secs(1);
        for c in &mut self.children {
            while c.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            // SAFETY: as above
            unsafe { libc::kill(-(c.id() as i32), libc::SIGKILL) };
            let _ = c.wait();
        }
        self.children.clear();
        for n in &self.state.netns {
            remove(Some(n), None);
        }
        for l in &self.state.links {
            remove(None, Some(l));
        }
        self.state.netns.clear();
        self.state.links.clear();
        let _ = std::fs::remove_file(&self.state_file);
    }
}

impl Drop for Plumbing {
    fn drop(&mut self) {
        self.teardown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_file_reads_back() {
        let s = State { pid: 42, netns: vec!["tl-a".into(), "tl-b".into()], links: vec!["tl-a".into()] };
        assert_eq!(State::parse(&s.text()), s);
        assert_eq!(State::parse("pid x\nnonsense\n"), State::default());
    }

    #[test]
    fn macs_differ_per_host_and_end() {
        let h = |name: &str| HostConfig {
            name: name.into(),
            node: 0,
            address: Prefix::parse("10.0.0.2/24").expect("valid"),
            gateway: Ipv4Addr::new(10, 0, 0, 1),
            address6: None,
            gateway6: None,
            run: vec![],
        };
        let (a, b) = (HostLink::of(0, &h("a")), HostLink::of(1, &h("b")));
        assert_eq!((a.ns.as_str(), a.veth.as_str()), ("tl-a", "tl-a"));
        let macs = [a.gw_mac, a.host_mac, a.root_mac(), b.gw_mac, b.host_mac, b.root_mac()];
        for (i, m) in macs.iter().enumerate() {
            assert_eq!(m[0] & 3, 2, "locally administered unicast");
            assert!(macs[i + 1..].iter().all(|o| o != m));
        }
        assert_eq!(mac_text(a.gw_mac), "02:74:6c:00:00:02");
    }

    /// Removal never touches a name without tcplab's prefix.
    #[test]
    fn only_prefixed_names_are_removed() {
        remove(Some("lo"), Some("lo"));
        assert!(link_exists("lo") || !Path::new("/sys/class/net").exists());
    }
}
