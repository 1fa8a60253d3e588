//! Pacing: a token bucket filled at gain·cwnd/RTT segments per second, holding at most `depth`
//! tokens; a new segment leaves only with a whole token.
//!
//! Depth 1 is the packet spacing of Yew et al. (000_3bee746e20d1e1b9.txt): consecutive segments
//! leave at least RTT/cwnd apart. Depth 1 or 2 with the RTT measured once at the start is the
//! leaky-bucket "gap" of Elsadig and Fouad (003_0913345c8440c33a.txt); a depth of cwnd would
//! be plain ACK clocking. Before the first RTT sample nothing is paced.

use serde::Serialize;

/// Which RTT sets the rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RttSource {
    /// The latest sample.
    Latest,
    /// RFC 6298's smoothed RTT of the samples.
    Smoothed,
    /// The smallest sample (Vegas's BaseRTT).
    Min,
    /// The first sample, kept for the whole connection (the "static" mode of the gap paper).
    Initial,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PacingConfig {
    pub rtt: RttSource,
    /// Bucket depth in segments: the largest burst.
    pub depth: f64,
    /// Rate multiplier (1: a window per RTT; Linux paces at 2 in slow start, 1.2 after).
    pub gain: f64,
}

impl Default for PacingConfig {
    fn default() -> Self {
        PacingConfig { rtt: RttSource::Latest, depth: 1.0, gain: 1.0 }
    }
}

/// Tokens are compared with this slack, so that a timer set for the exact refill time is
/// never a hair early because of rounding.
const SLACK: f64 = 1e-9;

#[derive(Debug, Clone)]
pub struct Pacer {
    cfg: PacingConfig,
    tokens: f64,
    /// When `tokens` was last brought up to date.
    at: f64,
    latest: f64,
    smoothed: f64,
    min: f64,
    initial: f64,
}

impl Pacer {
    pub fn new(cfg: PacingConfig) -> Pacer {
        Pacer { tokens: cfg.depth, cfg, at: 0.0, latest: 0.0, smoothed: 0.0, min: f64::INFINITY, initial: 0.0 }
    }

    pub fn on_rtt(&mut self, sample: f64) {
        if sample <= 0.0 {
            return;
        }
        if self.initial == 0.0 {
            self.initial = sample;
            self.smoothed = sample;
        } else {
            self.smoothed = 0.875 * self.smoothed + 0.125 * sample;
        }
        self.latest = sample;
        self.min = self.min.min(sample);
    }

    /// The RTT the rate uses; 0 before the first sample.
    pub fn rtt(&self) -> f64 {
        match self.cfg.rtt {
            RttSource::Latest => self.latest,
            RttSource::Smoothed => self.smoothed,
            RttSource::Min if self.min.is_finite() => self.min,
            RttSource::Min => 0.0,
            RttSource::Initial => self.initial,
        }
    }

    /// Segments per second at window `cwnd`; None while unpaced.
    pub fn rate(&self, cwnd: f64) -> Option<f64> {
        let rtt = self.rtt();
        (rtt > 0.0 && cwnd > 0.0).then(|| self.cfg.gain * cwnd / rtt)
    }

    fn refill(&mut self, now: f64, cwnd: f64) {
        if let Some(rate) = self.rate(cwnd) {
            self.tokens = (self.tokens + (now - self.at) * rate).min(self.cfg.depth);
        }
        self.at = now;
    }

    /// How long the next new segment must wait at window `cwnd`: None if it may go now.
    ///
    /// A wait too short for the clock to express (`now + wait == now`, as for a deficit of a
    /// billionth of a token at a fast rate seconds into a run) is no wait: a timer set for it
    /// would fire at this same instant with nothing refilled, again and again.
    pub fn wait(&mut self, now: f64, cwnd: f64) -> Option<f64> {
        self.refill(now, cwnd);
        match self.rate(cwnd) {
            Some(rate) if self.tokens < 1.0 - SLACK => Some((1.0 - self.tokens) / rate).filter(|&w| now + w > now),
            _ => None,
        }
    }

    /// A new segment left at `now`. (A segment sent past the pacer, such as Limited Transmit,
    /// leaves a debt that delays the next.)
    pub fn on_send(&mut self, now: f64, cwnd: f64) {
        self.refill(now, cwnd);
        if self.rate(cwnd).is_some() {
            self.tokens -= 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pacer(rtt: RttSource, depth: f64) -> Pacer {
        Pacer::new(PacingConfig { rtt, depth, gain: 1.0 })
    }

    #[test]
    fn nothing_is_paced_before_the_first_sample() {
        let mut p = pacer(RttSource::Latest, 1.0);
        for _ in 0..5 {
            assert_eq!(p.wait(0.0, 10.0), None);
            p.on_send(0.0, 10.0);
        }
    }

    #[test]
    fn depth_one_spaces_segments_by_rtt_over_cwnd() {
        let mut p = pacer(RttSource::Latest, 1.0);
        p.on_rtt(0.1);
        assert_eq!(p.wait(1.0, 10.0), None, "a full bucket after the idle start");
        p.on_send(1.0, 10.0);
        let w = p.wait(1.0, 10.0).unwrap();
        assert!((w - 0.01).abs() < 1e-15, "RTT/cwnd = 10 ms, got {w}");
        assert!((p.wait(1.004, 10.0).unwrap() - 0.006).abs() < 1e-12);
        assert_eq!(p.wait(1.01, 10.0), None);
        // an idle spell fills the bucket to its depth only
        p.on_send(1.01, 10.0);
        assert_eq!(p.wait(5.0, 10.0), None);
        p.on_send(5.0, 10.0);
        assert!(p.wait(5.0, 10.0).is_some(), "depth 1: no second segment in the same instant");
    }

    #[test]
    fn depth_two_lets_pairs_through() {
        let mut p = pacer(RttSource::Latest, 2.0);
        p.on_rtt(0.1);
        p.on_send(1.0, 20.0);
        assert_eq!(p.wait(1.0, 20.0), None);
        p.on_send(1.0, 20.0);
        assert!((p.wait(1.0, 20.0).unwrap() - 0.005).abs() < 1e-15);
    }

    #[test]
    fn the_rtt_source_is_chosen() {
        let samples = [0.2, 0.1, 0.3];
        let expect = [(RttSource::Latest, 0.3), (RttSource::Min, 0.1), (RttSource::Initial, 0.2)];
        for (source, rtt) in expect {
            let mut p = pacer(source, 1.0);
            samples.iter().for_each(|&s| p.on_rtt(s));
            assert_eq!(p.rtt(), rtt, "{source:?}");
        }
        let mut p = pacer(RttSource::Smoothed, 1.0);
        samples.iter().for_each(|&s| p.on_rtt(s));
        assert_eq!(p.rtt(), 0.875 * (0.875 * 0.2 + 0.125 * 0.1) + 0.125 * 0.3);
    }

    #[test]
    fn a_wait_the_clock_cannot_express_is_no_wait() {
        // 64 segments per 10 us: 6.4 M a second; at 2.05 s the clock's step is 4.4e-16 s, about
        // 3e-9 of a token
        let mut p = pacer(RttSource::Min, 1.0);
        p.on_rtt(10e-6);
        let now = 2.05;
        p.on_send(now, 64.0);
        (p.tokens, p.at) = (1.0 - 1.2e-9, now); // short by more than SLACK, by less than a step
        assert!(now + 1.2e-9 / 6.4e6 == now);
        assert_eq!(p.wait(now, 64.0), None);
        // every wait it does ask for moves the clock
        let mut t = 1e4;
        p.on_send(t, 64.0);
        while let Some(w) = p.wait(t, 64.0) {
            assert!(t + w > t);
            t += w;
        }
    }

    #[test]
    fn a_send_past_the_pacer_is_a_debt() {
        let mut p = pacer(RttSource::Latest, 1.0);
        p.on_rtt(0.1);
        p.on_send(1.0, 10.0);
        p.on_send(1.0, 10.0);
        assert!((p.wait(1.0, 10.0).unwrap() - 0.02).abs() < 1e-15);
    }
}
