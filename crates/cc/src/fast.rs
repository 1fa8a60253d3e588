//! FAST TCP (Jin, Wei and Low, INFOCOM 2004; protocols.md §3): once per update period,
//!
//! ```text
//! w ← min{ 2w, (1 − γ)·w + γ·(BaseRTT/RTT · w + α) }
//! ```
//!
//! with RTT a moving average of the samples. In equilibrium each flow keeps α segments queued,
//! which shares a bottleneck in proportion (equally at equal α). The 2w bound makes the law its
//! own slow start. Losses are handled as Reno does (halve; one segment after a timeout).

use crate::{reno_reaction, Ack, CongestionControl, Signal};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FastConfig {
    /// Segments each flow aims to keep queued.
    pub alpha: f64,
    /// How far each update moves towards the equilibrium window, in (0, 1].
    pub gamma: f64,
    /// Seconds between updates; None updates once per RTT (when the ACK passes the first
    /// segment sent after the previous update).
    pub period: Option<f64>,
}

impl Default for FastConfig {
    fn default() -> Self {
        FastConfig { alpha: 20.0, gamma: 0.5, period: None }
    }
}

#[derive(Debug, Clone)]
pub struct Fast {
    cfg: FastConfig,
    cwnd: f64,
    ssthresh: f64,
    base_rtt: f64,
    avg_rtt: f64,
    /// The next update: when the ACK reaches this segment (per RTT) or at this time (period).
    next_seq: u64,
    next_time: f64,
}

impl Fast {
    pub fn new(cfg: FastConfig, initial: f64) -> Fast {
        Fast {
            cfg,
            cwnd: initial,
            ssthresh: f64::INFINITY,
            base_rtt: f64::INFINITY,
            avg_rtt: 0.0,
            next_seq: 0,
            next_time: 0.0,
        }
    }

    /// The segments this flow has queued, by its own estimate.
    pub fn backlog(&self) -> f64 {
        if self.avg_rtt > 0.0 {
            self.cwnd * (self.avg_rtt - self.base_rtt) / self.avg_rtt
        } else {
            0.0
        }
    }

    fn update(&mut self) {
        let g = self.cfg.gamma;
        let target = (1.0 - g) * self.cwnd + g * (self.base_rtt / self.avg_rtt * self.cwnd + self.cfg.alpha);
        self.cwnd = target.min(2.0 * self.cwnd).max(1.0);
    }
}

impl CongestionControl for Fast {
    fn on_ack(&mut self, ack: &Ack) {
        if let Some(r) = ack.rtt {
            self.base_rtt = self.base_rtt.min(r);
            // FAST's averaging weight: about three windows' worth of samples, at most a quarter
            self.avg_rtt = if self.avg_rtt == 0.0 {
                r
            } else {
                let w = (3.0 / self.cwnd).min(0.25);
                (1.0 - w) * self.avg_rtt + w * r
            };
        }
        if self.avg_rtt == 0.0 {
            return;
        }
        let due = match self.cfg.period {
            None => ack.snd_una >= self.next_seq,
            Some(_) => ack.now >= self.next_time,
        };
        if due {
            self.update();
            self.next_seq = ack.snd_nxt;
            self.next_time = ack.now + self.cfg.period.unwrap_or(0.0);
        }
    }

    fn on_congestion(&mut self, _now: f64, signal: Signal, flight: f64) {
        (self.cwnd, self.ssthresh) = reno_reaction(signal, flight);
    }

    fn cwnd(&self) -> f64 {
        self.cwnd
    }

    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now: f64, una: u64, nxt: u64, rtt: f64) -> Ack {
        Ack { now, acked: 1, snd_una: una, snd_nxt: nxt, rtt: Some(rtt) }
    }

    /// Equal but for the rounding of the RTT average.
    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn the_window_law_moves_towards_alpha_queued() {
        let mut f = Fast::new(FastConfig { alpha: 10.0, gamma: 0.5, period: None }, 100.0);
        f.base_rtt = 0.1;
        f.avg_rtt = 0.125;
        f.next_seq = 50;
        // first sample 0.125 keeps the average; w = 0.5·100 + 0.5·(0.8·100 + 10) = 95
        f.on_ack(&ack(1.0, 50, 150, 0.125));
        close(f.cwnd(), 95.0);
        assert_eq!(f.next_seq, 150);
        f.on_ack(&ack(1.0, 60, 150, 0.125));
        close(f.cwnd(), 95.0); // one update per RTT
    }

    #[test]
    fn the_fixed_point_keeps_alpha_segments_queued() {
        // At w·(1 − Base/RTT) = alpha the law holds w.
        let mut f = Fast::new(FastConfig { alpha: 10.0, gamma: 0.5, period: None }, 50.0);
        f.base_rtt = 0.1;
        f.avg_rtt = 0.125; // backlog 50·0.2 = 10
        f.on_ack(&ack(1.0, 1, 60, 0.125));
        assert!((f.cwnd() - 50.0).abs() < 1e-9);
        assert!((f.backlog() - 10.0).abs() < 1e-9);
    }

    #[test]
    fn with_an_empty_queue_it_doubles_at_most() {
        let mut f = Fast::new(FastConfig { alpha: 100.0, gamma: 1.0, period: None }, 4.0);
        f.on_ack(&ack(0.1, 1, 5, 0.1));
        assert_eq!(f.cwnd(), 8.0);
    }

    #[test]
    fn a_period_updates_by_time() {
        let mut f = Fast::new(FastConfig { alpha: 10.0, gamma: 0.5, period: Some(0.02) }, 100.0);
        f.base_rtt = 0.1;
        f.avg_rtt = 0.1;
        f.on_ack(&ack(1.0, 1, 2, 0.1));
        close(f.cwnd(), 105.0);
        f.on_ack(&ack(1.01, 2, 3, 0.1));
        close(f.cwnd(), 105.0);
        f.on_ack(&ack(1.02, 3, 4, 0.1));
        close(f.cwnd(), 110.0);
    }

    #[test]
    fn losses_halve() {
        let mut f = Fast::new(FastConfig::default(), 40.0);
        f.on_congestion(0.0, Signal::Loss, 40.0);
        assert_eq!((f.cwnd(), f.ssthresh()), (20.0, 20.0));
        f.on_congestion(0.0, Signal::Timeout, 20.0);
        assert_eq!((f.cwnd(), f.ssthresh()), (1.0, 10.0));
    }
}
