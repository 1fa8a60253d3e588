//! ns-2's `Agent/PBC` (apps/pbc.cc): a node's agent that broadcasts `payload` bytes straight to
//! its radio, once (`singleBroadcast`), to one MAC address (`unicast N`), or periodically
//! every `interval` ± `variance` from a random start in the first interval. It is the traffic of
//! ns-2's `802_11Ext` examples (wifi/ext.rs); its packets carry the OFDM scheme they go with.

use crate::ctx::Event;
use crate::ids::NodeId;
use crate::network::Network;
use crate::packet::{Kind, Packet};
pub use config::{PbcAgent, PbcSend};

pub mod config;

/// `Event::Pbc`'s second field for the periodic timer (else the index of a send).
pub const PERIODIC: u32 = u32::MAX;

impl Network {
    /// Schedules the agents' sends and, for the periodic ones, draws each first send's offset
    /// in the first interval (`PBCTimer::start`, at script time, in the agents' order).
    pub(crate) fn start_pbc(&mut self, agents: &[PbcAgent]) {
        for agent in agents {
            if self.pbc_at.len() <= agent.node {
                self.pbc_at.resize(agent.node + 1, false);
            }
            self.pbc_at[agent.node] = true;
        }
        for (a, agent) in agents.iter().enumerate() {
            if let Some((interval, _)) = agent.periodic {
                let offset = interval * self.ctx.rng.uniform();
                self.ctx.sched.schedule_exact(offset, Event::Pbc(a as u32, PERIODIC));
            }
            for (i, s) in agent.sends.iter().enumerate() {
                self.ctx.sched.schedule_exact(s.at_s, Event::Pbc(a as u32, i as u32));
            }
        }
    }

    /// Agent `a`'s send `which` is due, or its periodic timer fired (a broadcast, then the next
    /// one `interval - variance + 2 variance U` later).
    pub(crate) fn on_pbc(&mut self, agents: &[PbcAgent], a: u32, which: u32) {
        let agent = &agents[a as usize];
        if which == PERIODIC {
            self.pbc_send(agent, None, agent.payload);
            let (interval, variance) = agent.periodic.expect("a periodic agent");
            let t = (interval - variance) + (variance * 2.0) * self.ctx.rng.uniform();
            let at = self.ctx.now_secs() + t.max(0.0);
            self.ctx.sched.schedule_exact(at, Event::Pbc(a, PERIODIC));
        } else {
            let s = agent.sends[which as usize];
            self.pbc_send(agent, s.to, s.payload);
        }
    }

    /// A packet of `payload` bytes from `agent`, to MAC address `to` or broadcast: its agent
    /// line, then the link layer of the node's radio.
    fn pbc_send(&mut self, agent: &PbcAgent, to: Option<u32>, payload: u32) {
        let node = NodeId::of(agent.node);
        let radio = self.wifi.radio(agent.wlan, agent.node).expect("validated: the agent's node has a radio");
        let (uid, now) = (self.ctx.next_uid(), self.ctx.now_secs());
        let dst = to.map_or(node, NodeId::new);
        let pkt = Packet {
            next_hop: to.map(NodeId::new),
            mod_scheme: agent.modulation,
            ..Packet::of_network(uid, Kind::Pbc, node, dst, payload, 0, now)
        };
        let id = self.ctx.pkts.alloc(pkt);
        self.trace_agent('s', node, id);
        if to == Some(agent.node as u32) {
            // to its own address: the node's address classifier hands it straight to its port
            return self.pbc_received(node, id);
        }
        let receiver = match to {
            None => crate::wifi::BROADCAST,
            // a MAC address no radio has: the MAC writes the packet's destination for it
            Some(n) => self.wifi.radio(agent.wlan, n as usize).unwrap_or(crate::wifi::NOWHERE),
        };
        self.radio_enqueue(radio, receiver, id);
    }

    /// A PBC packet reached `node`: its agent's line, and it is freed (`PBCAgent::recv`). At a
    /// node without one, ns-2's port classifier finds no agent for it and stops the run
    /// (`no-slot`): so does this one, with why.
    pub(crate) fn pbc_received(&mut self, node: NodeId, id: crate::packet::PacketId) {
        if self.pbc_at.get(node.index()).copied().unwrap_or(false) {
            self.trace_agent('r', node, id);
        } else {
            let _ = self.wifi.take_mac_header(id);
            let why = format!("node {} received a PBC packet and has no agent, where ns-2.35 stops", node.get());
            self.ctx.stop_run(crate::scenario::ScenarioError::new("pbc", why));
        }
        self.ctx.pkts.release(id);
    }
}
