//! `TcpAgent`'s HighSpeed TCP (`windowOption_ 8`, RFC 3649) and Limited Slow-Start
//! (`max_ssthresh_`, RFC 3742), as ns-2.35's tcp.cc computes them: in doubles, from the
//! coefficients `reset()` derives from `low_window_`, `high_window_`, `high_p_` and
//! `high_decrease_`, with C's `log` and `exp` (Rust's `ln` and `exp` call the same libm).

use super::Ns2Sender;
use crate::scenario::TcpParams;

/// ns-2's `struct hstcp`: the response function's coefficients, and the last increase
/// computed with the window it was computed for (reused within `cwnd_range_` of it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct HsTcp {
    low_p: f64,
    dec1: f64,
    dec2: f64,
    p1: f64,
    p2: f64,
    cwnd_last: f64,
    increase_last: f64,
}

impl HsTcp {
    /// The coefficients as `TcpAgent::reset()` computes them.
    pub(super) fn new(p: &TcpParams) -> HsTcp {
        let (low, high) = (p.low_window as f64, p.high_window as f64);
        let low_p = 1.5 / (low * low);
        let high_low_win = high.ln() - low.ln();
        let high_low_p = p.high_p.ln() - low_p.ln();
        HsTcp {
            low_p,
            dec1: 0.5 - low.ln() * (p.high_decrease - 0.5) / high_low_win,
            dec2: (p.high_decrease - 0.5) / high_low_win,
            p1: low_p.ln() - low.ln() * high_low_p / high_low_win,
            p2: high_low_p / high_low_win,
            cwnd_last: 0.0,
            increase_last: 0.0,
        }
    }
}

impl Ns2Sender {
    /// ns-2 `decrease_param()`: the fraction of the window a loss takes away at this cwnd.
    pub(super) fn decrease_param(&self) -> f64 {
        let hs = self.hstcp.as_ref().expect("a HighSpeed sender");
        hs.dec1 + self.cwnd.ln() * hs.dec2
    }

    /// ns-2 `increase_param()`: the increase of cwnd for one new ACK in congestion avoidance.
    pub(super) fn increase_param(&mut self) -> f64 {
        let cwnd = self.cwnd;
        if cwnd <= self.p.low_window as f64 {
            return 1.0 / cwnd;
        }
        let range = self.p.cwnd_range as f64;
        let hs = *self.hstcp.as_ref().expect("a HighSpeed sender");
        if cwnd >= hs.cwnd_last && cwnd < hs.cwnd_last + range {
            return hs.increase_last / cwnd;
        }
        let p = (hs.p1 + cwnd.ln() * hs.p2).exp();
        let decrease = self.decrease_param();
        let increase = cwnd * cwnd * p / (1.0 / decrease - 0.5);
        let hs = self.hstcp.as_mut().expect("a HighSpeed sender");
        hs.cwnd_last = cwnd;
        hs.increase_last = increase;
        increase / cwnd
    }

    /// ns-2 `limited_slow_start()`: in the first slow start (or one after a timeout) beyond
    /// ssthresh, at least 1/int(cwnd / (max_ssthresh/2)) per ACK.
    pub(super) fn limited_slow_start(&self, increment: f64) -> f64 {
        let max_ssthresh = self.p.max_ssthresh;
        if max_ssthresh <= 0 {
            return increment;
        }
        let round = (self.cwnd / (max_ssthresh as f64 / 2.0)) as i32;
        let increment1 = if round > 0 { 1.0 / round as f64 } else { 0.0 };
        if increment < increment1 {
            increment1
        } else {
            increment
        }
    }
}

#[cfg(test)]
mod tests {
    //! Expected values are ns-2.35's formulas (tcp.cc `reset`, `increase_param`,
    //! `decrease_param`, `limited_slow_start`) evaluated in doubles with the same libm, and
    //! RFC 3649's table of the response function.
    use super::super::tests::Tcp;
    use super::super::{CwndAction, CwndCut, Slowdown};
    use crate::scenario::{TcpParams, TcpVariant};

    fn highspeed() -> TcpParams {
        TcpParams { window_option: 8, window: 512, precision_reduce: false, ..TcpParams::default() }
    }

    /// A Sack1 sender whose SYN is ACKed, put in congestion avoidance at `cwnd`.
    fn at(p: TcpParams, cwnd: f64, ssthresh: i64) -> Tcp {
        let mut t = Tcp::start(TcpVariant::Sack1, p);
        t.ack(0.1, 0, &[]);
        t.s.cwnd = cwnd;
        t.s.ssthresh = ssthresh;
        t
    }

    /// RFC 3649, Appendix B: a(w) (the increase per RTT) and b(w) (the decrease) for the
    /// default parameters, rounded as the RFC prints them.
    #[test]
    fn response_function_follows_rfc3649_table() {
        let table = [
            (38.0, 1, 0.50),
            (118.0, 2, 0.44),
            (221.0, 3, 0.41),
            (347.0, 4, 0.38),
            (495.0, 5, 0.37),
            (1058.0, 8, 0.33),
            (1529.0, 10, 0.31),
        ];
        for (w, a, b) in table {
            let mut t = at(highspeed(), w, 2);
            let increase = t.s.increase_param() * w;
            assert_eq!(increase.round() as i32, a, "a({w}) = {increase}");
            assert_eq!((t.s.decrease_param() * 100.0).round() / 100.0, b, "b({w})");
        }
    }

    /// Above low_window_ each new ACK adds increase_param(): at cwnd 100,
    /// 100 * 100 * p(100) / (1/b(100) - 0.5) / 100 = 0.018818175872577294.
    #[test]
    fn congestion_avoidance_adds_the_highspeed_increase() {
        let mut t = at(highspeed(), 100.0, 50);
        t.ack(0.2, 1, &[]);
        assert_eq!(t.s.cwnd, 100.01881817587258);
        // at or below low_window_ it is 1/cwnd, as standard TCP
        let mut t = at(highspeed(), 38.0, 20);
        t.ack(0.2, 1, &[]);
        assert_eq!(t.s.cwnd, 38.0 + 1.0 / 38.0);
        // slow start is unchanged
        let mut t = at(highspeed(), 100.0, 200);
        t.ack(0.2, 1, &[]);
        assert_eq!(t.s.cwnd, 101.0);
    }

    /// cwnd_range_ keeps the increase computed at cwnd_last_ while cwnd stays below
    /// cwnd_last_ + cwnd_range_: the second ACK adds 1.8818175872577294 / cwnd instead of
    /// a fresh increase_param() (100.03763510519576).
    #[test]
    fn cwnd_range_reuses_the_last_increase() {
        let mut t = at(TcpParams { cwnd_range: 50, ..highspeed() }, 100.0, 50);
        t.ack(0.2, 1, &[]);
        t.ack(0.21, 2, &[]);
        assert_eq!(t.s.cwnd, 100.03763281117399);
        let mut t = at(highspeed(), 100.0, 50);
        t.ack(0.2, 1, &[]);
        t.ack(0.21, 2, &[]);
        assert_eq!(t.s.cwnd, 100.03763510519576);
    }

    /// A later cut above low_window_ takes b(cwnd) of the window (without precisionReduce_,
    /// int(w - b w)): at cwnd 100.01881817587258, b = 0.4496542610988492 and both ssthresh
    /// and cwnd become int(55.04...) = 55. ns-2 keeps b as decrease_num_, so a cut below
    /// low_window_ then keeps int(b * 30) = 13 of a window of 30, where 0.5 would halve it.
    #[test]
    fn a_cut_takes_the_highspeed_decrease_and_keeps_it() {
        let mut t = at(highspeed(), 100.0, 50);
        t.ack(0.2, 1, &[]);
        t.s.first_decrease = false;
        let cut = Slowdown { ssthresh_half: true, cwnd: CwndCut::Half };
        t.s.slowdown(&mut t.net, cut);
        assert_eq!((t.s.cwnd, t.s.ssthresh), (55.0, 55));
        assert_eq!(t.s.decrease_num, 0.4496542610988492);
        t.s.cwnd = 30.0;
        t.s.ssthresh = 20;
        t.s.slowdown(&mut t.net, cut);
        assert_eq!((t.s.cwnd, t.s.ssthresh), (13.0, 13));
        // the first cut halves whatever the window
        let mut t = at(highspeed(), 100.0, 50);
        t.s.slowdown(&mut t.net, cut);
        assert_eq!((t.s.cwnd, t.s.ssthresh), (50.0, 50));
    }

    /// Limited Slow-Start: ssthresh starts at max_ssthresh_ (below window_), and beyond it,
    /// until the first cut, each ACK adds at least 1/int(cwnd / (max_ssthresh_/2)): at cwnd
    /// 150, 1/int(150/50) = 1/3 (more than 1/150 or HighSpeed's 0.0163). After a fast
    /// retransmit's cut the standard increase returns.
    #[test]
    fn limited_slow_start_caps_the_increase_per_rtt() {
        for option in [1, 8] {
            let p = TcpParams { max_ssthresh: 100, window_option: option, ..highspeed() };
            let t = Tcp::start(TcpVariant::Sack1, p.clone());
            assert_eq!(t.s.ssthresh, 100);
            let mut t = at(p.clone(), 150.0, 100);
            t.ack(0.2, 1, &[]);
            assert_eq!(t.s.cwnd, 150.33333333333334, "window_option {option}");
            let mut t = at(p, 150.0, 100);
            t.s.last_cwnd_action = CwndAction::Dupack;
            t.ack(0.2, 1, &[]);
            let expected = if option == 8 { 150.0 + 0.016297859253887985 } else { 150.0 + 1.0 / 150.0 };
            assert_eq!(t.s.cwnd, expected, "window_option {option}");
        }
        // a window_ below max_ssthresh_ keeps ssthresh at window_
        let t = Tcp::start(TcpVariant::Sack1, TcpParams { max_ssthresh: 100, ..TcpParams::default() });
        assert_eq!(t.s.ssthresh, 20);
    }
}
