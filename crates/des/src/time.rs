//! Simulated time as an integer number of picoseconds.
//!
//! Integer time keeps runs exact and reproducible: 1040 bytes at 2 Mb/s is exactly 4.16 ms, and
//! 2^64 ps is about 213 days of simulated time. The same type serves as an instant and a duration,
//! as ns-2's double does, which keeps protocol code close to the formulas it implements.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

const TWO_POW_52: f64 = (1u64 << 52) as f64;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub const PS_PER_SEC: u64 = 1_000_000_000_000;

    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    pub const fn from_micros(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s * Self::PS_PER_SEC)
    }
    /// Nearest picosecond; negative or NaN inputs give zero, huge ones saturate.
    pub fn from_secs_f64(s: f64) -> Time {
        let ps = s * Self::PS_PER_SEC as f64;
        if ps > 0.0 && ps < TWO_POW_52 {
            // `f64::round` by hand (on baseline x86-64 it is a libm call, and this runs once per
            // event): below 2^52 a half is a whole number of the double's units, so adding it
            // is exact, and truncating the sum rounds halves up, as `round` does. The signed
            // conversion is one instruction; an unsigned one is a branchy sequence.
            // SAFETY: 0 < ps + 0.5 < 2^52 + 1, well inside i64, so the conversion needs none of
            // `as`'s saturation (five instructions more).
            Time(unsafe { (ps + 0.5).to_int_unchecked::<i64>() } as u64)
        } else if ps.is_nan() || ps <= 0.0 {
            Time::ZERO
        } else if ps >= u64::MAX as f64 {
            Time::MAX
        } else {
            Time(ps as u64) // from 2^52 ps on, every double is a whole number
        }
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / Self::PS_PER_SEC as f64
    }
    /// Time to serialise `bytes` at `rate_bps`, rounded to the nearest picosecond.
    pub fn tx_time(bytes: u32, rate_bps: u64) -> Time {
        // bits * 10^12 fits 64 bits for any packet up to 2.3 MB; u128 division is a slow call
        let bits = bytes as u64 * 8;
        if bits < u64::MAX / Self::PS_PER_SEC / 2 && rate_bps < u64::MAX / 2 {
            return Time((bits * Self::PS_PER_SEC + rate_bps / 2) / rate_bps);
        }
        let num = bits as u128 * Self::PS_PER_SEC as u128;
        let rate = rate_bps as u128;
        Time(((num + rate / 2) / rate) as u64)
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0.checked_add(rhs.0).expect("simulated time overflow"))
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        *self = *self + rhs;
    }
}

impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        Time(self.0.checked_sub(rhs.0).expect("negative simulated duration"))
    }
}

impl fmt::Debug for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.as_secs_f64())
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_times_are_exact() {
        assert_eq!(Time::tx_time(1040, 2_000_000), Time::from_micros(4160));
        assert_eq!(Time::tx_time(1040, 10_000_000), Time::from_micros(832));
        assert_eq!(Time::tx_time(40, 100_000_000), Time::from_ps(3_200_000));
        // past 2.3 MB the product needs 128 bits; both ways round to the nearest picosecond
        assert_eq!(Time::tx_time(3_000_000, 7), Time::from_ps(3_428_571_428_571_428_571));
        assert_eq!(Time::tx_time(1500, 3), Time::from_ps(4_000_000_000_000_000));
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(Time::from_secs_f64(0.05), Time::from_millis(50));
        assert_eq!(Time::from_secs_f64(-1.0), Time::ZERO);
        assert_eq!(Time::from_millis(1500).as_secs_f64(), 1.5);
    }

    /// The hand-made rounding is `f64::round`: on random doubles, on halves and next to them,
    /// next to the powers of two where a double's unit doubles, and past 2^52 where every
    /// double is a whole number.
    #[test]
    fn rounds_as_f64_round() {
        let reference = |s: f64| Time((s * Time::PS_PER_SEC as f64).round() as u64);
        let mut rng = crate::Rng::stream(1, "rounding");
        for i in 0..200_000u64 {
            let state = rng.next_u64();
            let secs = match i % 5 {
                0 => (state >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((i % 9) as i32),
                1 => ((state % 1_000_000) as f64 + 0.5) / 1e12,
                2 => f64::from_bits(((state % 1_000_000) as f64 + 0.5).to_bits() - 1 + (state & 2)) / 1e12,
                3 => (state >> 10) as f64 / 1e12 * 1.5,
                _ => {
                    let edge = (1u64 << (i % 60)) as f64 - 0.5; // up to 2^59 ps
                    f64::from_bits(edge.to_bits() - 4 + state % 9) / 1e12
                }
            };
            assert_eq!(Time::from_secs_f64(secs), reference(secs), "{secs:e} s");
        }
    }
}
