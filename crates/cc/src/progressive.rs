//! How far Vegas moves cwnd at the end of an epoch in congestion avoidance: standard Vegas's
//! ±1, or the "progressive cwnd" of Yew et al. (protocols.md §2.2, a reconstructed
//! specification):
//!
//! - P1: hold while the backlog q is in [alpha, beta]; else step by round(k·(q* − q)) towards
//!   q* = (alpha + beta)/2, at least one segment, at most +cwnd or −ceil(cwnd/2). Near the
//!   target this is Vegas's ±1; far from it, it is FAST's law with gamma = k and alpha = q*.
//! - P2: the increase doubles (1, 2, 4, … up to cwnd/8) over consecutive epochs with q < alpha
//!   and falls back to 1 once q ≥ alpha; the decrease is Vegas's −1.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum Progressive {
    /// Standard Vegas: ±1 per epoch.
    Off,
    P1 {
        /// k, the fraction of the distance to the target covered per epoch.
        gain: f64,
    },
    P2,
}

/// The step rule with its memory (P2's current increase).
#[derive(Debug, Clone, PartialEq)]
pub struct Stepper {
    rule: Progressive,
    increase: f64,
}

impl Stepper {
    pub fn new(rule: Progressive) -> Stepper {
        Stepper { rule, increase: 1.0 }
    }

    /// The change of cwnd at the end of an epoch with backlog `q` (segments queued).
    pub fn step(&mut self, q: f64, alpha: f64, beta: f64, cwnd: f64) -> f64 {
        match self.rule {
            Progressive::Off => {
                if q > beta {
                    -1.0
                } else if q < alpha {
                    1.0
                } else {
                    0.0
                }
            }
            Progressive::P1 { gain } => {
                if (alpha..=beta).contains(&q) {
                    return 0.0;
                }
                let distance = (alpha + beta) / 2.0 - q;
                let step = (gain * distance).round();
                let step = if step == 0.0 { distance.signum() } else { step };
                step.clamp(-(cwnd / 2.0).ceil(), cwnd)
            }
            Progressive::P2 => {
                if q < alpha {
                    let step = self.increase;
                    self.increase = (self.increase * 2.0).min((cwnd / 8.0).floor().max(1.0));
                    step
                } else {
                    self.increase = 1.0;
                    if q > beta {
                        -1.0
                    } else {
                        0.0
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_vegas_moves_by_one() {
        let mut s = Stepper::new(Progressive::Off);
        assert_eq!(s.step(0.5, 2.0, 4.0, 30.0), 1.0);
        assert_eq!(s.step(2.0, 2.0, 4.0, 30.0), 0.0);
        assert_eq!(s.step(4.0, 2.0, 4.0, 30.0), 0.0);
        assert_eq!(s.step(4.5, 2.0, 4.0, 30.0), -1.0);
    }

    #[test]
    fn p1_steps_in_proportion_to_the_distance() {
        let mut s = Stepper::new(Progressive::P1 { gain: 0.5 });
        // q* = 3: q = 0 is 3 below, half of it rounds to 2
        assert_eq!(s.step(0.0, 2.0, 4.0, 30.0), 2.0);
        // q = 20 is 17 above: -8.5 rounds away from zero
        assert_eq!(s.step(20.0, 2.0, 4.0, 30.0), -9.0);
        // near the band, at least one segment
        assert_eq!(s.step(1.9, 2.0, 4.0, 30.0), 1.0);
        assert_eq!(s.step(4.1, 2.0, 4.0, 30.0), -1.0);
        assert_eq!(s.step(3.0, 2.0, 4.0, 30.0), 0.0);
    }

    #[test]
    fn p1_is_clipped_to_doubling_and_halving() {
        let mut s = Stepper::new(Progressive::P1 { gain: 1.0 });
        assert_eq!(s.step(0.0, 100.0, 200.0, 10.0), 10.0);
        assert_eq!(s.step(500.0, 2.0, 4.0, 9.0), -5.0);
    }

    #[test]
    fn p2_doubles_the_increase_until_the_backlog_reaches_alpha() {
        let mut s = Stepper::new(Progressive::P2);
        let steps: Vec<f64> = (0..6).map(|_| s.step(0.0, 2.0, 4.0, 40.0)).collect();
        assert_eq!(steps, [1.0, 2.0, 4.0, 5.0, 5.0, 5.0], "capped at cwnd/8 = 5");
        assert_eq!(s.step(3.0, 2.0, 4.0, 40.0), 0.0);
        assert_eq!(s.step(0.0, 2.0, 4.0, 40.0), 1.0, "back to 1 after an epoch at alpha or above");
        assert_eq!(s.step(6.0, 2.0, 4.0, 40.0), -1.0);
        assert_eq!(s.step(0.0, 2.0, 4.0, 4.0), 1.0, "a small window still grows by one");
        assert_eq!(s.step(0.0, 2.0, 4.0, 4.0), 1.0);
    }
}
