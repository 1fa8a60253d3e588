//! The "congestion measure" of Yew et al. (protocols.md §2.3, a reconstructed specification):
//! is the network congested right now, or was a loss "spurious" (wireless errors, a handover)?
//!
//! The answer C is true when an ECN echo arrived within the last smoothed RTT, or when the last
//! Vegas epoch measured more than beta segments queued. Vegas cuts its window on a loss only
//! when C holds; without C a loss is repaired and the window kept.

/// What the measure remembers: the last ECN echo and the last epoch's backlog.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CongestionMeasure {
    last_echo: Option<f64>,
    last_backlog: f64,
}

impl CongestionMeasure {
    pub fn on_ecn_echo(&mut self, now: f64) {
        self.last_echo = Some(now);
    }

    pub fn on_epoch(&mut self, backlog: f64) {
        self.last_backlog = backlog;
    }

    /// C: congestion is real at `now`, given the smoothed RTT and Vegas's beta.
    pub fn congested(&self, now: f64, srtt: f64, beta: f64) -> bool {
        self.last_echo.is_some_and(|t| now - t <= srtt) || self.last_backlog > beta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_counts_for_one_smoothed_rtt() {
        let mut m = CongestionMeasure::default();
        assert!(!m.congested(1.0, 0.25, 4.0), "no evidence: spurious");
        m.on_ecn_echo(1.0);
        assert!(m.congested(1.25, 0.25, 4.0));
        assert!(!m.congested(1.2501, 0.25, 4.0));
    }

    #[test]
    fn a_backlog_above_beta_is_congestion() {
        let mut m = CongestionMeasure::default();
        m.on_epoch(4.0);
        assert!(!m.congested(5.0, 0.1, 4.0));
        m.on_epoch(4.5);
        assert!(m.congested(5.0, 0.1, 4.0));
        m.on_epoch(1.0);
        assert!(!m.congested(5.0, 0.1, 4.0), "only the last epoch counts");
    }
}
