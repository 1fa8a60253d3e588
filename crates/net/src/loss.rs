//! Loss models at the head of a link, before its queue (ns-2's `ErrorModule` on a link).

use crate::random::Draws;
use crate::units::secs;
use serde::Serialize;
use tcplab_des::{Ns2Rng, Time};

/// A loss model on one link direction, before its queue, as ns-2's error models in an
/// `ErrorModule Fid` at a link's head: of the packets of `fids` (every packet when empty)
/// entering the link, it picks some (by `model`) to drop, mark or delay.
#[derive(Debug, Clone, Serialize)]
pub struct LossConfig {
    #[serde(flatten)]
    pub at: LossAt,
    pub fids: Vec<u32>,
    #[serde(flatten)]
    pub model: LossModel,
    #[serde(flatten)]
    pub action: LossAction,
}

/// Where a loss model sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum LossAt {
    /// At the head of a simplex link: 2i for links[i] from->to, 2i+1 for to->from.
    Link { link: usize },
    /// At a radio: frames for `node` on `wlans[wlan]` it picks arrive corrupted; with
    /// `outgoing`, frames `node` sends that it picks go on the air corrupted, for every receiver
    /// (ns-2's `-OutgoingErrProc`, between the MAC and the PHY).
    Radio { wlan: usize, node: usize, outgoing: bool },
}

/// Which packets a loss model picks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "lowercase")]
pub enum LossModel {
    /// Those counted at these positions (0 = the first), as ns-2's `ErrorModel/List`.
    List { packets: Vec<u64> },
    /// Each with probability `rate` (a packet error rate).
    Uniform { rate: f64 },
    /// Each with probability 1 − (1 − ber)^bits: bigger packets are lost more often. With
    /// `data_bits` and `control_bits` (ns-2's bit unit with `datapktsize` and `cntrlpktsize`), a
    /// packet counts as `data_bits` bits if it has at least `data_bits` bytes, else as
    /// `control_bits` bits.
    Ber {
        ber: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        data_bits: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        control_bits: Option<u32>,
    },
    /// The two-state Gilbert-Elliott chain, stepped once per packet: in the good state a packet
    /// is lost with `loss_good`, in the bad with `loss_bad`; after each packet the chain moves
    /// good→bad with `p_good_bad` and bad→good with `p_bad_good`.
    Gilbert { p_good_bad: f64, p_bad_good: f64, loss_good: f64, loss_bad: f64 },
    /// ns-2's `ErrorModel/Periodic` in packets: the `offset`-th packet (counted from 1), then
    /// every `period`-th after the last one picked, each followed by the next `burst` - 1.
    Periodic { offset: u64, period: u64, burst: u64 },
    /// ns-2's `ErrorModel/MultiState` over uniform states: a Markov chain that starts in the
    /// first state; each packet is lost with its state's `rate`. The chain steps (a draw on the
    /// state's row of `transitions`) at every packet, or with `by_time` at the first packet
    /// once `period` has passed since the chain entered its state (a step that stays does not
    /// start the period again: it steps at every packet after).
    Multistate { states: Vec<LossState>, transitions: Vec<Vec<f64>>, by_time: bool },
}

/// One state of a multistate model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LossState {
    pub rate: f64,
    /// How long the chain stays before it steps, with `by_time`.
    #[serde(rename = "period_s")]
    pub period: f64,
}

/// What a loss model does to the packets it picks (ns-2 ErrorModel's drop_, markecn_, delay_pkt_).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum LossAction {
    Drop,
    /// Set the CE bit and let the packet go on.
    Mark,
    /// Hold the packet for this long, then let it into the queue.
    Delay {
        #[serde(rename = "delay_s", serialize_with = "secs")]
        delay: Time,
    },
}

/// One loss model bound to some flow ids: it sees the packets of those flows entering the link
/// and picks some, to drop, mark or delay.
pub struct Loss {
    pub action: LossAction,
    fids: Vec<u32>,
    kind: Kind,
    draws: Draws,
}

enum Kind {
    /// ns-2's `ErrorModel/List` with packet units: the packets whose count is listed.
    List {
        picks: Vec<u64>,
        next: usize,
        count: u64,
    },
    Uniform {
        rate: f64,
    },
    /// A bit error rate, applied as the byte error rate it implies (1 - (1 - ber)^8): the same
    /// law, and the arithmetic of ns-2's byte-unit `ErrorModel`, which the translator uses
    /// (ns-2's bit unit ignores each packet's size).
    Ber {
        byte_rate: f64,
    },
    /// ns-2's bit unit (`CorruptBit`): a packet of at least `data_bits` bytes is intact with
    /// probability `intact_data` = (1 − ber)^data_bits, others with `intact_control`.
    SizedBer {
        data_bits: u32,
        intact_data: f64,
        intact_control: f64,
    },
    Gilbert {
        p_good_bad: f64,
        p_bad_good: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
    },
    Periodic {
        offset: u64,
        period: u64,
        burst: u64,
        /// Packets since the last one picked (or since the start).
        count: u64,
        started: bool,
    },
    Multistate {
        states: Vec<LossState>,
        transitions: Vec<Vec<f64>>,
        by_time: bool,
        state: usize,
        /// When the chain entered its state (ns-2's `prevTime_`), and whether its period has
        /// run out since (`texpired_`, which only entering a new state clears).
        since: f64,
        expired: bool,
        /// The chain entered a new state (or has seen no packet yet): `since` is to be set.
        entered: bool,
    },
}

impl Loss {
    pub fn new(cfg: &LossConfig, draws: Draws) -> Loss {
        let kind = match cfg.model.clone() {
            LossModel::List { packets } => Kind::List { picks: packets, next: 0, count: 0 },
            LossModel::Uniform { rate } => Kind::Uniform { rate },
            LossModel::Ber { ber, data_bits: Some(data_bits), control_bits: Some(control_bits) } => {
                // as ns-2's `ComputeBitErrProb`, whose first term is the chance of no error
                let intact = |bits: u32| (1.0 - ber).powf(bits as f64);
                Kind::SizedBer { data_bits, intact_data: intact(data_bits), intact_control: intact(control_bits) }
            }
            LossModel::Ber { ber, .. } => Kind::Ber { byte_rate: 1.0 - (1.0 - ber).powf(8.0) },
            LossModel::Gilbert { p_good_bad, p_bad_good, loss_good, loss_bad } => {
                Kind::Gilbert { p_good_bad, p_bad_good, loss_good, loss_bad, bad: false }
            }
            LossModel::Periodic { offset, period, burst } => {
                Kind::Periodic { offset, period, burst, count: 0, started: false }
            }
            LossModel::Multistate { states, transitions, by_time } => {
                Kind::Multistate { states, transitions, by_time, state: 0, since: 0.0, expired: false, entered: true }
            }
        };
        Loss { action: cfg.action, fids: cfg.fids.clone(), kind, draws }
    }

    /// Whether this model picks a packet of flow id `fid` and `size` bytes entering the link
    /// at `now` (seconds).
    pub fn picks(&mut self, fid: u32, size: u32, now: f64, shared: &mut Ns2Rng) -> bool {
        if !self.fids.is_empty() && !self.fids.contains(&fid) {
            return false; // unbound flow ids pass the error module untouched
        }
        let draws = &mut self.draws;
        match &mut self.kind {
            Kind::List { picks, next, count } => {
                let pick = picks.get(*next) == Some(count);
                if pick {
                    *next += 1;
                }
                *count += 1;
                pick
            }
            Kind::Uniform { rate } => draws.uniform(shared) < *rate,
            Kind::Ber { byte_rate } => draws.uniform(shared) < 1.0 - (1.0 - *byte_rate).powf(size as f64),
            Kind::SizedBer { data_bits, intact_data, intact_control } => {
                let intact = if size >= *data_bits { *intact_data } else { *intact_control };
                // ns-2 counts the errored bits: none when its cumulative first term exceeds u
                draws.uniform(shared) >= intact
            }
            Kind::Gilbert { p_good_bad, p_bad_good, loss_good, loss_bad, bad } => {
                let lost = draws.uniform(shared) < if *bad { *loss_bad } else { *loss_good };
                let leave = if *bad { *p_bad_good } else { *p_good_bad };
                if draws.uniform(shared) < leave {
                    *bad = !*bad;
                }
                lost
            }
            Kind::Periodic { offset, period, burst, count, started } => {
                *count += 1;
                let due = if *started { *count >= *period } else { *count >= *offset };
                if due {
                    *started = true;
                    *count = 0;
                    return true;
                }
                *started && *count < *burst
            }
            Kind::Multistate { states, transitions, by_time, state, since, expired, entered } => {
                // ns-2's C++ `corrupt`, then its Tcl `corrupt` (time-transition / transition)
                if *by_time && now - *since >= states[*state].period {
                    *expired = true;
                }
                if !*by_time || *expired {
                    let p = draws.tcl_uniform(shared);
                    let mut total = 0.0;
                    // a row that sums short of p leaves the chain where it is (ns-2 warns)
                    if let Some(next) = transitions[*state].iter().position(|t| {
                        total += t;
                        p <= total
                    }) {
                        if next != *state {
                            *state = next;
                            *entered = true;
                        }
                    }
                }
                // the state's ErrorModel/Uniform in packets draws even at rate 0
                let lost = draws.uniform(shared) < states[*state].rate;
                if *entered {
                    *entered = false;
                    *since = now;
                    *expired = false;
                }
                lost
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_des::Rng;

    fn model(fids: Vec<u32>, model: LossModel) -> Loss {
        let cfg = LossConfig { at: LossAt::Link { link: 0 }, fids, model, action: LossAction::Drop };
        Loss::new(&cfg, Draws::Own(Rng::stream(7, "loss")))
    }

    fn share(m: &mut Loss, size: u32, n: usize) -> f64 {
        let mut rng = Ns2Rng::seeded(1);
        (0..n).filter(|_| m.picks(0, size, 0.0, &mut rng)).count() as f64 / n as f64
    }

    #[test]
    fn drops_the_listed_packets_of_its_flows_only() {
        let mut m = model(vec![1], LossModel::List { packets: vec![2, 4, 5] });
        let mut rng = Ns2Rng::seeded(1);
        let mut dropped = Vec::new();
        for i in 0..8 {
            assert!(!m.picks(7, 100, 0.0, &mut rng), "other flows pass and are not counted");
            if m.picks(1, 100, 0.0, &mut rng) {
                dropped.push(i);
            }
        }
        assert_eq!(dropped, vec![2, 4, 5]);
    }

    /// ns-2 quirk kept: a repeated entry can never match again and blocks the rest of the list.
    #[test]
    fn repeated_entries_block_the_list_as_in_ns2() {
        let mut m = model(vec![], LossModel::List { packets: vec![1, 1, 3] });
        assert_eq!(share(&mut m, 100, 5), 0.2);
    }

    /// As ns-2's ErrorModel/Periodic with offset_ 3, period_ 5: packets 3, 8, 13 (from 1).
    #[test]
    fn periodic_picks_the_offset_then_every_period() {
        let mut m = model(vec![], LossModel::Periodic { offset: 3, period: 5, burst: 0 });
        let mut rng = Ns2Rng::seeded(1);
        let picked: Vec<usize> = (1..=15).filter(|_| m.picks(0, 100, 0.0, &mut rng)).collect();
        assert_eq!(picked, vec![3, 8, 13]);
        let mut m = model(vec![], LossModel::Periodic { offset: 2, period: 10, burst: 3 });
        let picked: Vec<usize> = (1..=14).filter(|_| m.picks(0, 100, 0.0, &mut rng)).collect();
        assert_eq!(picked, vec![2, 3, 4, 12, 13, 14]);
    }

    #[test]
    fn uniform_loses_its_rate() {
        let p = share(&mut model(vec![], LossModel::Uniform { rate: 0.1 }), 1000, 100_000);
        assert!((p - 0.1).abs() < 0.003, "{p}");
    }

    #[test]
    fn ber_loses_more_of_bigger_packets() {
        let ber = 1e-5;
        for size in [100u32, 1000] {
            let p =
                share(&mut model(vec![], LossModel::Ber { ber, data_bits: None, control_bits: None }), size, 100_000);
            let expected = 1.0 - (1.0 - ber).powi(size as i32 * 8);
            assert!((p - expected).abs() < 0.003, "{size} B: {p} vs {expected}");
        }
    }

    /// ns-2's bit unit with datapktsize 1000 and cntrlpktsize 80 (test-suite-wireless-lan-
    /// newnode-err): a packet of 1000 bytes or more is intact with (1 − ber)^1000, a smaller one
    /// with (1 − ber)^80, from one draw each: lost when the draw is not below that.
    #[test]
    fn sized_ber_counts_packets_as_data_or_control_bits() {
        let ber = 1e-3;
        let sized = LossModel::Ber { ber, data_bits: Some(1000), control_bits: Some(80) };
        let cfg = LossConfig { at: LossAt::Link { link: 0 }, fids: vec![], model: sized, action: LossAction::Drop };
        let mut m = Loss::new(&cfg, Draws::Shared);
        let (mut shared, mut replay) = (Ns2Rng::seeded(1), Ns2Rng::seeded(1));
        for size in [40u32, 999, 1000, 1500].into_iter().cycle().take(400) {
            let intact = (1.0 - ber).powf(if size >= 1000 { 1000.0 } else { 80.0 });
            assert_eq!(m.picks(0, size, 0.0, &mut shared), replay.uniform() >= intact, "{size} B");
        }
    }

    fn multistate(rates: &[f64], periods: &[f64], transitions: Vec<Vec<f64>>, by_time: bool) -> Loss {
        let states = rates.iter().zip(periods).map(|(&rate, &period)| LossState { rate, period }).collect();
        let cfg = LossConfig {
            at: LossAt::Link { link: 0 },
            fids: vec![],
            model: LossModel::Multistate { states, transitions, by_time },
            action: LossAction::Drop,
        };
        Loss::new(&cfg, Draws::Shared)
    }

    /// A time-based chain that alternates between a clean state (period 0: it steps at the next
    /// packet) and a lossy one of 10 ms.
    #[test]
    fn multistate_by_time_steps_once_the_states_period_is_over() {
        let mut m = multistate(&[0.0, 1.0], &[0.0, 0.01], vec![vec![0.0, 1.0], vec![1.0, 0.0]], true);
        let mut rng = Ns2Rng::seeded(1);
        let lost: Vec<bool> =
            [0.0, 0.005, 0.0099, 0.01, 0.011, 0.02, 0.0215].iter().map(|&t| m.picks(0, 100, t, &mut rng)).collect();
        // 0: steps to lossy (since 0); 0.01: back to clean; 0.011: lossy again (since 0.011)
        assert_eq!(lost, [true, true, true, false, true, true, false]);
    }

    /// ns-2 quirk kept: a step that stays in its state does not start the period again, so
    /// the chain then steps (a draw) at every packet; a packet-based chain steps at every one.
    #[test]
    fn multistate_draws_a_step_at_every_packet_once_a_period_ran_out() {
        let stay = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
        for (by_time, draws) in [(true, 1 + 2 + 2), (false, 2 + 2 + 2)] {
            let mut m = multistate(&[0.0, 0.0], &[0.01, 0.01], stay.clone(), by_time);
            let mut rng = Ns2Rng::seeded(1);
            for t in [0.0, 0.02, 0.021] {
                assert!(!m.picks(0, 100, t, &mut rng));
            }
            let mut replay = Ns2Rng::seeded(1);
            (0..draws).for_each(|_| _ = replay.uniform());
            assert_eq!(rng.uniform(), replay.uniform(), "by_time {by_time}: {draws} draws");
        }
    }

    #[test]
    fn gilbert_loses_the_stationary_share_in_bursts() {
        // stationary bad share 0.01/(0.01 + 0.1) = 1/11, all lost there: loss 9.1%
        let mut m =
            model(vec![], LossModel::Gilbert { p_good_bad: 0.01, p_bad_good: 0.1, loss_good: 0.0, loss_bad: 1.0 });
        let mut rng = Ns2Rng::seeded(1);
        let lost: Vec<bool> = (0..200_000).map(|_| m.picks(0, 100, 0.0, &mut rng)).collect();
        let p = lost.iter().filter(|&&l| l).count() as f64 / lost.len() as f64;
        assert!((p - 1.0 / 11.0).abs() < 0.005, "{p}");
        // the mean burst is 1/p_bad_good = 10 packets
        let bursts = lost.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        let mean_burst = lost.iter().filter(|&&l| l).count() as f64 / bursts;
        assert!((mean_burst - 10.0).abs() < 0.5, "{mean_burst}");
    }
}
