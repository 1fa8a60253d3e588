//! The 802.11b physical layer: frame timing (DSSS/HR-DSSS, long or short PLCP) and radio
//! propagation (two-ray ground or free space) with ns-2's radio defaults.

use serde::Serialize;

/// Speed of light, m/s.
pub const LIGHT: f64 = 299_792_458.0;
/// ns-2's `SPEED_OF_LIGHT` (mobile/propagation.h), which its propagation delays
/// (`MobileNode::propdelay`) and wavelength (`WirelessPhy lambda_`) use: 3·10⁸ m/s.
pub const NS2_LIGHT: f64 = 300_000_000.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Preamble {
    /// 144-bit preamble + 48-bit header at 1 Mb/s: 192 µs.
    Long,
    /// 72-bit preamble at 1 Mb/s + 48-bit header at 2 Mb/s: 96 µs.
    Short,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Propagation {
    /// Friis up to the crossover distance 4π·ht·hr/λ, then Pt·Gt·Gr·ht²·hr²/(d⁴·L).
    TwoRayGround,
    FreeSpace,
}

/// The radio's constants (ns-2's `Phy/WirelessPhy` and `Antenna/OmniAntenna` defaults).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Radio {
    pub propagation: Propagation,
    /// Transmit power, W.
    pub tx_power: f64,
    /// Carrier frequency, Hz.
    pub frequency: f64,
    /// A frame is received above this power (W), sensed as carrier above `cs_threshold`, and
    /// survives a later one that is `capture_ratio` times weaker.
    pub rx_threshold: f64,
    pub cs_threshold: f64,
    pub capture_ratio: f64,
    /// Antenna height, m; system loss.
    pub antenna_height: f64,
    pub system_loss: f64,
    /// The speed of light the propagation delay and the wavelength use, m/s (`LIGHT`, or
    /// ns-2's `NS2_LIGHT` in the ns2 profile).
    pub light: f64,
    /// Powers computed as ns-2's propagation models compute them (the ns2 profile): its π
    /// (`PI`, 13 decimals), its products in its order, Friis up to and at the crossover.
    #[serde(skip)]
    pub ns2: bool,
}

/// ns-2's π (mobile/propagation.h), 13 decimals: its powers round with it.
#[allow(clippy::approx_constant)]
pub(crate) const NS2_PI: f64 = 3.1415926535897;

impl Default for Radio {
    fn default() -> Self {
        Radio {
            propagation: Propagation::TwoRayGround,
            tx_power: 0.281_838_15,
            frequency: 914e6,
            rx_threshold: 3.652e-10,
            cs_threshold: 1.559e-11,
            capture_ratio: 10.0,
            antenna_height: 1.5,
            system_loss: 1.0,
            light: LIGHT,
            ns2: false,
        }
    }
}

impl Radio {
    /// Received power (W) at distance `d` metres (antenna gains 1).
    #[inline]
    pub fn rx_power(&self, d: f64) -> f64 {
        if self.ns2 {
            return self.ns2_rx_power(d);
        }
        let lambda = self.light / self.frequency;
        let friis =
            |d: f64| self.tx_power * lambda * lambda / ((4.0 * std::f64::consts::PI * d).powi(2) * self.system_loss);
        let d = d.max(1e-3);
        match self.propagation {
            Propagation::FreeSpace => friis(d),
            Propagation::TwoRayGround => {
                let h = self.antenna_height;
                let crossover = 4.0 * std::f64::consts::PI * h * h / lambda;
                if d < crossover {
                    friis(d)
                } else {
                    self.tx_power * h * h * h * h / (d.powi(4) * self.system_loss)
                }
            }
        }
    }

    /// `rx_power` as ns-2 computes it: `TwoRayGround::Pr` or `FreeSpace::Pr` with omni antennas
    /// (gains 1) at equal heights.
    fn ns2_rx_power(&self, d: f64) -> f64 {
        let (pt, l) = (self.tx_power, self.system_loss);
        let lambda = self.light / self.frequency;
        let friis = |d: f64| {
            if d == 0.0 {
                return pt;
            }
            let m = lambda / (4.0 * NS2_PI * d);
            (pt * (m * m)) / l
        };
        let h = self.antenna_height;
        match self.propagation {
            Propagation::FreeSpace => friis(d),
            Propagation::TwoRayGround if d <= (4.0 * NS2_PI * h * h) / lambda => friis(d),
            Propagation::TwoRayGround => pt * (h * h * h * h) / (d * d * d * d * l),
        }
    }

    /// How far ns-2's channel looks for radios that may sense a frame (`calcHighestAntennaZ`:
    /// the propagation model's `getDist` at the carrier-sense threshold, gains 1).
    pub fn ns2_cs_distance(&self) -> f64 {
        let (pt, pr, h) = (self.tx_power, self.cs_threshold, self.antenna_height);
        match self.propagation {
            Propagation::TwoRayGround => (pt * (h * h * h * h) / pr).sqrt().sqrt(),
            Propagation::FreeSpace => {
                let lambda = self.light / self.frequency;
                ((pt * lambda * lambda) / (self.system_loss * pr)).sqrt() / (4.0 * NS2_PI)
            }
        }
    }

    /// The distance up to which a frame is received.
    pub fn rx_range(&self) -> f64 {
        self.range_at(self.rx_threshold)
    }

    /// The distance up to which a frame is sensed as carrier.
    pub fn cs_range(&self) -> f64 {
        self.range_at(self.cs_threshold)
    }

    fn range_at(&self, threshold: f64) -> f64 {
        // rx_power falls with distance: bisect.
        let (mut lo, mut hi) = (1e-3, 1e6);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.rx_power(mid) >= threshold {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// 802.11b timing: interframe spaces, PLCP and frame sizes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    pub slot: f64,
    pub sifs: f64,
    pub preamble: Preamble,
    /// Bits per second of data frames and of control frames (RTS, CTS, ACK).
    pub data_rate: f64,
    pub basic_rate: f64,
    /// Bytes a data frame adds to its IP packet (MAC header, FCS and LLC/SNAP).
    pub mac_overhead: u32,
}

/// MAC frame bodies of the control frames, bytes (with FCS).
pub const RTS_BYTES: u32 = 20;
pub const CTS_BYTES: u32 = 14;
pub const ACK_BYTES: u32 = 14;

impl Timing {
    pub fn difs(&self) -> f64 {
        self.sifs + 2.0 * self.slot
    }

    /// After an errored frame: SIFS + an ACK at the basic rate + DIFS.
    pub fn eifs(&self) -> f64 {
        self.sifs + self.control(ACK_BYTES) + self.difs()
    }

    pub fn plcp(&self) -> f64 {
        match self.preamble {
            Preamble::Long => 192e-6,
            Preamble::Short => 96e-6,
        }
    }

    /// Air time of a MAC frame of `bytes` at `rate`.
    pub fn air(&self, bytes: u32, rate: f64) -> f64 {
        self.plcp() + bytes as f64 * 8.0 / rate
    }

    /// Air time of a control frame (at the basic rate).
    pub fn control(&self, bytes: u32) -> f64 {
        self.air(bytes, self.basic_rate)
    }

    /// Air time of a data frame carrying an IP packet of `ip_bytes`.
    pub fn data(&self, ip_bytes: u32) -> f64 {
        self.air(ip_bytes + self.mac_overhead, self.data_rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_ranges_are_250_and_550_metres() {
        let r = Radio::default();
        assert!((r.rx_range() - 250.0).abs() < 0.5, "{}", r.rx_range());
        assert!((r.cs_range() - 550.0).abs() < 1.0, "{}", r.cs_range());
    }

    /// In the ns2 profile, powers are ns-2's to the last bit: its π (13 decimals), its order of
    /// products, Friis at the crossover distance itself, all the power at distance 0.
    #[test]
    #[allow(clippy::approx_constant)]
    fn ns2_powers_round_as_ns2s() {
        let mut radio = Radio { ns2: true, light: NS2_LIGHT, ..Radio::default() };
        let (pi, lambda) = (3.1415926535897, 3e8 / 914e6);
        let crossover = (4.0 * pi * 1.5 * 1.5) / lambda;
        let friis = |d: f64| {
            let m = lambda / (4.0 * pi * d);
            0.28183815 * (m * m) / 1.0
        };
        assert_eq!(radio.rx_power(crossover), friis(crossover));
        assert_eq!(radio.rx_power(250.0), 0.28183815 * (1.5 * 1.5 * 1.5 * 1.5) / (250.0 * 250.0 * 250.0 * 250.0 * 1.0));
        assert_eq!(radio.rx_power(0.0), 0.28183815);
        assert_eq!(radio.ns2_cs_distance(), f64::sqrt(f64::sqrt(0.28183815 * (1.5 * 1.5 * 1.5 * 1.5) / 1.559e-11)));
        radio.ns2 = false;
        assert_ne!(radio.rx_power(crossover * 0.5), friis(crossover * 0.5), "the standard profile's π");
    }

    #[test]
    fn frame_times() {
        let t = Timing {
            slot: 20e-6,
            sifs: 10e-6,
            preamble: Preamble::Long,
            data_rate: 1e6,
            basic_rate: 1e6,
            mac_overhead: 34,
        };
        // ns-2: a 1000-byte IP packet is a 1058-byte frame with PLCP: 8.464 ms at 1 Mb/s
        assert!((t.data(1000) - 8.464e-3).abs() < 1e-12);
        assert!((t.control(ACK_BYTES) - 304e-6).abs() < 1e-12);
        assert!((t.eifs() - 364e-6).abs() < 1e-12, "ns-2's EIFS");
        let short = Timing { preamble: Preamble::Short, data_rate: 11e6, basic_rate: 2e6, ..t };
        assert!((short.control(ACK_BYTES) - (96e-6 + 56e-6)).abs() < 1e-12);
    }
}
