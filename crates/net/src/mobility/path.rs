//! Where a moving node is: straight legs at constant speed, as ns-2's `setdest`.

use serde::Serialize;

/// "At `at`, head for `to` at `speed` m/s" (a new move cuts short the one before).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Move {
    pub node: usize,
    pub at: f64,
    pub to: (f64, f64),
    pub speed: f64,
}

/// (start time, start position, end time, end position)
type Leg = (f64, (f64, f64), f64, (f64, f64));

/// A node's legs, in time order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Path {
    legs: Vec<Leg>,
}

impl Path {
    /// The path from `start` through `moves` (which must be this node's, sorted by time).
    pub fn new(start: (f64, f64), moves: &[&Move]) -> Path {
        let mut legs: Vec<Leg> = Vec::new();
        let mut here = start;
        for m in moves {
            if let Some(last) = legs.last_mut() {
                if m.at < last.2 {
                    // cut short: stop where the node is when the new move starts
                    let p = Self::along(*last, m.at);
                    *last = (last.0, last.1, m.at, p);
                }
                here = last.3;
            }
            if m.speed == 0.0 {
                // ns-2's setdest at speed 0: the node stays where it is, whatever `to`
                legs.push((m.at, here, m.at, here));
                continue;
            }
            let d = ((m.to.0 - here.0).powi(2) + (m.to.1 - here.1).powi(2)).sqrt();
            legs.push((m.at, here, m.at + d / m.speed, m.to));
        }
        Path { legs }
    }

    fn along(leg: Leg, t: f64) -> (f64, f64) {
        let (t0, a, t1, b) = leg;
        if t1 <= t0 {
            return b;
        }
        let f = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
        (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1))
    }

    /// The position at time `t`; `start` before the first move.
    pub fn at(&self, start: (f64, f64), t: f64) -> (f64, f64) {
        match self.legs.iter().rev().find(|l| l.0 <= t) {
            Some(&leg) => Self::along(leg, t),
            None => start,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legs_at_constant_speed_and_cut_short() {
        let a = Move { node: 0, at: 1.0, to: (100.0, 0.0), speed: 10.0 };
        let b = Move { node: 0, at: 6.0, to: (50.0, 0.0), speed: 5.0 };
        let p = Path::new((0.0, 0.0), &[&a, &b]);
        assert_eq!(p.at((0.0, 0.0), 0.5), (0.0, 0.0));
        assert_eq!(p.at((0.0, 0.0), 3.0), (20.0, 0.0));
        // at 6 s it is at 50 m: the second move starts there and goes nowhere
        assert_eq!(p.at((0.0, 0.0), 6.0), (50.0, 0.0));
        assert_eq!(p.at((0.0, 0.0), 100.0), (50.0, 0.0));
        let q = Path::new((0.0, 0.0), &[&Move { node: 0, at: 0.0, to: (30.0, 40.0), speed: 1.0 }]);
        assert_eq!(q.at((0.0, 0.0), 25.0), (15.0, 20.0));
        assert_eq!(q.at((0.0, 0.0), 60.0), (30.0, 40.0));
    }

    /// setdest at speed 0 (setdest's pauses): the node stays where it is, even when it is
    /// not at `to`, and a move after starts from there.
    #[test]
    fn a_move_at_speed_zero_stays_put() {
        let a = Move { node: 0, at: 1.0, to: (100.0, 0.0), speed: 10.0 };
        let pause = Move { node: 0, at: 5.0, to: (100.0, 0.0), speed: 0.0 };
        let b = Move { node: 0, at: 8.0, to: (40.0, 0.0), speed: 10.0 };
        let p = Path::new((0.0, 0.0), &[&a, &pause, &b]);
        assert_eq!(p.at((0.0, 0.0), 7.0), (40.0, 0.0), "cut short at 40 m, and paused there");
        assert_eq!(p.at((0.0, 0.0), 9.0), (40.0, 0.0));
        let q = Path::new((0.0, 0.0), &[&Move { node: 0, at: 0.0, to: (30.0, 40.0), speed: 0.0 }]);
        assert_eq!(q.at((0.0, 0.0), 60.0), (0.0, 0.0));
    }
}
