//! Stops a run gone wrong, at no cost per event: every `STRIDE` events the run stops to look.
//!
//! A run is stopped, with an error that says why, when
//! - it has dispatched `BUDGET_FACTOR` times the events its estimate foresaw (crate::budget):
//!   the estimate errs on the high side, so a run that far beyond it is caught in a loop that
//!   still moves the clock (a timer or pacer firing far more often than its traffic needs);
//! - simulated time has stood still for `STILL_EVENTS` events: a loop at one instant;
//! - a model refused to go on (`Network::stop_run`), as when an agent's arithmetic leaves the
//!   range of the simulator it reproduces.
//!
//! `--no-limits` (`RunOptions::no_limits`) turns the first two off; a model's refusal stays, and
//! so does the user's own budget of events (`max_events`), a limit that, unlike wall time, gives
//! the same verdict on every machine.

use crate::scenario::ScenarioError;
use crate::units::show_seconds;

/// Events between two looks: a power of two, so that a look costs nothing measurable.
pub const STRIDE: u64 = 1 << 20;
/// A run past this many times its estimated events is stopped.
pub const BUDGET_FACTOR: f64 = 100.0;
/// ... but never before this many: small estimates are the roughest.
pub const BUDGET_FLOOR: f64 = 1e8;
/// Events at one instant of simulated time that no run needs.
pub const STILL_EVENTS: u64 = 1 << 24;

pub struct Guard {
    /// The run stops once it has dispatched this many events (u64::MAX: never).
    max_events: u64,
    /// The user's own budget (`max_events`), if it is the one that stops the run.
    asked: bool,
    estimated: f64,
    /// The dispatched count of the next look.
    pub next_look: u64,
    /// The clock at the last look, and the looks since it moved.
    still: (f64, u64),
    /// Whether simulated time standing still stops the run.
    watch_clock: bool,
}

/// What a look found wrong.
pub enum Alarm {
    /// More events than the budget its estimate sets; (events, estimated).
    OverBudget(u64, f64),
    /// More events than the user's `max_events`, this many.
    OverAsked(u64),
    /// The clock has stood still at this time for at least this many events.
    Still(f64, u64),
}

impl Guard {
    /// The guard of a run estimated at `estimated` events; `limits` false turns it off, but
    /// for the user's own budget, `asked` events, which holds either way.
    pub fn new(estimated: f64, limits: bool, asked: Option<u64>) -> Guard {
        let budget =
            if limits { (BUDGET_FACTOR * estimated).max(BUDGET_FLOOR).min(u64::MAX as f64) as u64 } else { u64::MAX };
        let max_events = asked.map_or(budget, |a| a.min(budget));
        let asked = asked.is_some_and(|a| a <= budget);
        // a budget below a stride is looked at once it is passed
        let next_look = STRIDE.min(max_events.saturating_add(1));
        Guard { max_events, asked, estimated, next_look, still: (-1.0, 0), watch_clock: limits }
    }

    /// A look after `dispatched` events, the clock at `now`.
    pub fn look(&mut self, dispatched: u64, now: f64) -> Result<(), Alarm> {
        self.next_look = dispatched.saturating_add(STRIDE).min(self.max_events.saturating_add(1).max(dispatched + 1));
        if dispatched > self.max_events {
            return Err(if self.asked {
                Alarm::OverAsked(self.max_events)
            } else {
                Alarm::OverBudget(dispatched, self.estimated)
            });
        }
        self.still = if now == self.still.0 { (now, self.still.1 + 1) } else { (now, 0) };
        if self.watch_clock && self.still.1 * STRIDE >= STILL_EVENTS {
            return Err(Alarm::Still(now, self.still.1 * STRIDE));
        }
        Ok(())
    }
}

impl Alarm {
    /// The error that stops the run. `culprit`: the flow (index, name) whose timers the next
    /// events are most, if any; `end`, the run's end in seconds.
    pub fn error(&self, culprit: Option<(usize, &str)>, end: f64) -> ScenarioError {
        let anyway = "if it is meant to, run it with --no-limits (Python: limits=False)";
        let (path, whose) = match culprit {
            Some((i, name)) => (format!("flows[{i}]"), format!(", most of them flow {name:?}'s timers")),
            None => ("duration".to_string(), String::new()),
        };
        match *self {
            Alarm::OverBudget(events, estimated) => ScenarioError::new(
                path,
                format!(
                    "the run was stopped after {events:.1e} events{whose}, {BUDGET_FACTOR} times its estimate of {estimated:.1e} \
                     ({} events at the least): so far beyond it, a run is caught in a loop (a timer or pacer firing far more \
                     often than its traffic needs); {anyway}",
                    BUDGET_FLOOR
                ),
            ),
            Alarm::OverAsked(most) => ScenarioError::new(
                "max_events",
                format!("the run needed more than the {most} events it was given{whose}, and was stopped; raise max_events to run it further"),
            ),
            Alarm::Still(now, events) => ScenarioError::new(
                path,
                format!(
                    "simulated time stood still at {} of {} for {events:.1e} events{whose}: the run is caught in a \
                     loop at one instant and was stopped. This is a fault of tcplab's; please report it with the scenario \
                     ({anyway})",
                    show_seconds(now),
                    show_seconds(end)
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_a_multiple_of_the_estimate_with_a_floor() {
        assert_eq!(Guard::new(1e9, true, None).max_events, 100_000_000_000);
        assert_eq!(Guard::new(10.0, true, None).max_events, 100_000_000);
        assert_eq!(Guard::new(1e30, true, None).max_events, u64::MAX);
        assert_eq!(Guard::new(1e9, false, None).max_events, u64::MAX);
    }

    #[test]
    fn the_users_own_budget_holds_whatever_the_limits() {
        for limits in [true, false] {
            let mut g = Guard::new(1e9, limits, Some(1000));
            assert_eq!(g.next_look, 1001, "looked at once passed, not a stride later");
            assert!(matches!(g.look(1001, 1.0), Err(Alarm::OverAsked(1000))));
        }
        // above the estimate's budget, the estimate's stops the run
        let mut g = Guard::new(10.0, true, Some(u64::MAX));
        assert!(matches!(g.look(100_000_001, 1.0), Err(Alarm::OverBudget(..))));
    }

    #[test]
    fn a_clock_standing_still_is_caught_and_a_moving_one_is_not() {
        let mut g = Guard::new(1e12, true, None);
        let mut n = 0;
        for k in 0..1000 {
            n += STRIDE;
            assert!(g.look(n, k as f64 * 1e-12).is_ok(), "the clock moves");
        }
        let looks = (0..1000).take_while(|_| {
            n += STRIDE;
            g.look(n, 7.0).is_ok()
        });
        assert_eq!(looks.count() as u64 + 1, STILL_EVENTS / STRIDE + 1, "the first look at 7 s starts the count");
        assert!(matches!(g.look(n + STRIDE, 7.0), Err(Alarm::Still(t, e)) if t == 7.0 && e > STILL_EVENTS));
        let mut off = Guard::new(1e12, false, None);
        assert!((1..1000).all(|k| off.look(k * STRIDE, 7.0).is_ok()), "--no-limits");
    }

    #[test]
    fn a_run_past_its_budget_is_caught() {
        let mut g = Guard::new(1e6, true, None);
        assert!(g.look(100_000_000, 1.0).is_ok());
        assert!(matches!(g.look(100_000_001, 2.0), Err(Alarm::OverBudget(100_000_001, e)) if e == 1e6));
    }
}
