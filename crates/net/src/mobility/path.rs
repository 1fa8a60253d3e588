//! Where a moving node is: straight legs at constant speed, as ns-2's `setdest`, and its
//! position moved on as ns-2's MobileNode moves it, step by step.

use serde::Serialize;

/// "At `at`, head for `to` at `speed` m/s" (a new move cuts short the one before).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Move {
    pub node: usize,
    pub at: f64,
    pub to: (f64, f64),
    pub speed: f64,
}

/// A node that moves, as ns-2's MobileNode keeps it: a position as of the last time something
/// asked where the node is, moved on from there by one step along its heading each time it is
/// asked again (`update_position`). A node asked at other moments would round differently, so
/// the callers ask when ns-2 does (wifi/channel.rs). A `setdest` takes effect at its time, as
/// the node is next asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Motion {
    now: Step,
    /// This node's moves (time, destination, speed) in time order, and the next to take.
    moves: Vec<(f64, (f64, f64), f64)>,
    next: usize,
}

/// Where a moving node is and where it heads, as of one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Step {
    /// Where the node is (ns-2's `X_`, `Y_`), as of `since` (`position_update_time_`).
    at: (f64, f64),
    since: f64,
    /// The unit vector towards `dest` (`dX_`, `dY_`), and the speed, which stays after the
    /// node has arrived.
    heading: (f64, f64),
    speed: f64,
    dest: (f64, f64),
}

impl Step {
    /// Moves the node on to `now` (`update_position`, which corrects an overshoot of the
    /// destination in each axis); hands back its x before, if that changed.
    fn update(&mut self, now: f64) -> Option<f64> {
        let interval = now - self.since;
        if interval == 0.0 && self.since != 0.0 {
            return None;
        }
        let before = self.at.0;
        let (h, dest) = (self.heading, self.dest);
        self.at.0 += h.0 * (self.speed * interval);
        self.at.1 += h.1 * (self.speed * interval);
        if (h.0 > 0.0 && self.at.0 > dest.0) || (h.0 < 0.0 && self.at.0 < dest.0) {
            self.at.0 = dest.0;
        }
        if (h.1 > 0.0 && self.at.1 > dest.1) || (h.1 < 0.0 && self.at.1 < dest.1) {
            self.at.1 = dest.1;
        }
        self.since = now;
        (before != self.at.0).then_some(before)
    }

    /// `setdest` at time `at` (`set_destination`): moved on to then, and a new heading.
    fn head_for(&mut self, (at, to, speed): (f64, (f64, f64), f64)) -> Option<f64> {
        let moved = self.update(at);
        self.dest = to;
        self.speed = speed;
        let d = (to.0 - self.at.0, to.1 - self.at.1);
        self.heading = if to != self.at {
            let len = (d.0 * d.0 + d.1 * d.1).sqrt();
            (d.0 / len, d.1 / len)
        } else {
            d
        };
        self.since = at;
        moved
    }
}

impl Motion {
    /// A node at `start` that will make `moves` (its own, sorted by time).
    pub fn new(start: (f64, f64), moves: &[&Move]) -> Motion {
        let now = Step { at: start, since: 0.0, heading: (0.0, 0.0), speed: 0.0, dest: (0.0, 0.0) };
        Motion { now, moves: moves.iter().map(|m| (m.at, m.to, m.speed)).collect(), next: 0 }
    }

    /// Where the node was when last moved on, and when that was.
    pub fn at(&self) -> (f64, f64) {
        self.now.at
    }

    pub fn since(&self) -> f64 {
        self.now.since
    }

    /// Its speed (m/s; it stays after the node arrives, as ns-2's `speed_`).
    pub fn speed(&self) -> f64 {
        self.now.speed
    }

    /// Takes the next move if it is due by `now`. Hands back whether there was one, and the
    /// node's x before it moved on to the move's time, if that changed it.
    pub fn take_due_move(&mut self, now: f64) -> Option<Option<f64>> {
        let due = *self.moves.get(self.next).filter(|m| m.0 <= now)?;
        self.next += 1;
        Some(self.now.head_for(due))
    }

    /// Moves the node on to `now` (its moves due by then taken first: `take_due_move`); hands
    /// back its x before, if that changed.
    pub fn update(&mut self, now: f64) -> Option<f64> {
        self.now.update(now)
    }

    /// Where the node would be found at `now`, nothing recorded (for models outside ns-2's).
    pub fn peek(&self, now: f64) -> (f64, f64) {
        let mut step = self.now;
        for &m in self.moves[self.next..].iter().take_while(|m| m.0 <= now) {
            step.head_for(m);
        }
        step.update(now);
        step.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Motion {
        /// Where the node is at `now`, its moves due by then taken, the steps recorded (as
        /// wifi/channel.rs asks, without its lists).
        fn locate(&mut self, now: f64) -> (f64, f64) {
            while self.take_due_move(now).is_some() {}
            self.update(now);
            self.at()
        }
    }

    fn close(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9
    }

    #[test]
    fn legs_at_constant_speed_and_cut_short() {
        let a = Move { node: 0, at: 1.0, to: (100.0, 0.0), speed: 10.0 };
        let b = Move { node: 0, at: 6.0, to: (50.0, 0.0), speed: 5.0 };
        let mut p = Motion::new((0.0, 0.0), &[&a, &b]);
        assert_eq!(p.locate(0.5), (0.0, 0.0));
        assert!(close(p.locate(3.0), (20.0, 0.0)));
        // at 6 s it is at 50 m: the second move starts there and goes nowhere
        assert!(close(p.locate(6.0), (50.0, 0.0)));
        assert_eq!(p.locate(100.0), (50.0, 0.0), "an overshoot is corrected to the destination");
        let mut q = Motion::new((0.0, 0.0), &[&Move { node: 0, at: 0.0, to: (30.0, 40.0), speed: 1.0 }]);
        assert!(close(q.locate(25.0), (15.0, 20.0)));
        assert_eq!(q.locate(60.0), (30.0, 40.0));
    }

    /// setdest at speed 0 (setdest's pauses): the node stays where it is, even when it is
    /// not at `to`, and a move after starts from there.
    #[test]
    fn a_move_at_speed_zero_stays_put() {
        let a = Move { node: 0, at: 1.0, to: (100.0, 0.0), speed: 10.0 };
        let pause = Move { node: 0, at: 5.0, to: (100.0, 0.0), speed: 0.0 };
        let b = Move { node: 0, at: 8.0, to: (40.0, 0.0), speed: 10.0 };
        let mut p = Motion::new((0.0, 0.0), &[&a, &pause, &b]);
        assert!(close(p.locate(7.0), (40.0, 0.0)), "cut short at 40 m, and paused there");
        assert!(close(p.locate(9.0), (40.0, 0.0)));
        let mut q = Motion::new((0.0, 0.0), &[&Move { node: 0, at: 0.0, to: (30.0, 40.0), speed: 0.0 }]);
        assert_eq!(q.locate(60.0), (0.0, 0.0));
    }

    /// The position is a sum of steps, one per time the node is asked: asked at other moments,
    /// it rounds differently (here in the last bits), which is why callers ask when ns-2 does.
    #[test]
    fn the_position_is_the_sum_of_the_steps_taken() {
        let m = Move { node: 0, at: 0.5, to: (350.0, 402.0), speed: 20.0 };
        let (mut once, mut often) = (Motion::new((207.0, 147.0), &[&m]), Motion::new((207.0, 147.0), &[&m]));
        for i in 1..1000 {
            often.locate(0.5 + f64::from(i) * 0.001_3);
        }
        let (a, b) = (once.locate(1.8), often.locate(1.8));
        assert!(close(a, b));
        assert_ne!(a, b, "the same place, rounded along two histories");
        assert_eq!(Motion::new((207.0, 147.0), &[&m]).peek(1.8), a, "peek takes one step from the setdest");
        // ns-2's arithmetic: X_ += dX_ * (speed_ * interval) from the setdest's position
        let (dx, dy) = (143.0, 255.0);
        let len = f64::sqrt(dx * dx + dy * dy);
        assert_eq!(once.at(), (207.0 + dx / len * (20.0 * (1.8 - 0.5)), 147.0 + dy / len * (20.0 * (1.8 - 0.5))));
    }
}
