//! RFC 6298's retransmission timer: SRTT and RTTVAR from the samples, RTO = SRTT + max(G,
//! 4·RTTVAR) clamped to [min, max], doubled on each expiry until a new sample.

#[derive(Debug, Clone, PartialEq)]
pub struct Rto {
    srtt: f64,
    rttvar: f64,
    /// The RTO before any sample (RFC 6298: 1 s).
    initial: f64,
    min: f64,
    max: f64,
    /// Clock granularity G.
    granularity: f64,
    backoff: f64,
}

impl Rto {
    pub fn new(initial: f64, min: f64, max: f64) -> Rto {
        Rto { srtt: 0.0, rttvar: 0.0, initial, min, max, granularity: 1e-6, backoff: 1.0 }
    }

    pub fn on_sample(&mut self, r: f64) {
        if self.srtt == 0.0 {
            self.srtt = r;
            self.rttvar = r / 2.0;
        } else {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        }
        self.backoff = 1.0;
    }

    /// The smoothed RTT (0 before the first sample).
    pub fn srtt(&self) -> f64 {
        self.srtt
    }

    pub fn rto(&self) -> f64 {
        let base = if self.srtt == 0.0 { self.initial } else { self.srtt + self.granularity.max(4.0 * self.rttvar) };
        (base.max(self.min) * self.backoff).min(self.max)
    }

    /// The timer expired: double the next RTO (RFC 6298 §5.5).
    pub fn back_off(&mut self) {
        if self.rto() < self.max {
            self.backoff *= 2.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_rfc_6298() {
        let mut r = Rto::new(1.0, 0.2, 60.0);
        assert_eq!(r.rto(), 1.0);
        r.on_sample(0.1);
        assert_eq!((r.srtt(), r.rto()), (0.1, 0.30000000000000004));
        r.on_sample(0.2);
        // RTTVAR = 3/4·0.05 + 1/4·0.1 = 0.0625, SRTT = 0.1125
        assert!((r.rto() - (0.1125 + 0.25)).abs() < 1e-12);
    }

    #[test]
    fn clamps_and_backs_off() {
        let mut r = Rto::new(1.0, 1.0, 4.0);
        r.on_sample(0.01);
        assert_eq!(r.rto(), 1.0, "minimum");
        r.back_off();
        r.back_off();
        assert_eq!(r.rto(), 4.0);
        r.back_off();
        assert_eq!(r.rto(), 4.0, "maximum");
        r.on_sample(0.01);
        assert_eq!(r.rto(), 1.0, "a new sample ends the backoff");
    }
}
