//! Quantities as people write them: "50ms", "2Mb", "1500B".
//!
//! Each parser returns a message that says what was wrong and shows a valid example; the
//! scenario loader adds the field path in front of it.

use serde::Serializer;
use tcplab_des::Time;

/// Splits "12.5Mbps" into (12.5, "Mbps"); the number may use exponents ("1e-3s").
fn split_number(text: &str) -> Option<(f64, &str)> {
    let t = text.trim();
    let mut end = 0;
    let bytes = t.as_bytes();
    while end < bytes.len() {
        let c = bytes[end] as char;
        let exp_sign = (c == '+' || c == '-') && end > 0 && matches!(bytes[end - 1], b'e' | b'E');
        let exp = (c == 'e' || c == 'E')
            && end > 0
            && bytes.get(end + 1).is_some_and(|b| b.is_ascii_digit() || *b == b'-' || *b == b'+');
        if c.is_ascii_digit() || c == '.' || (c == '-' && end == 0) || exp_sign || exp {
            end += 1;
        } else {
            break;
        }
    }
    let value: f64 = t[..end].parse().ok()?;
    value.is_finite().then_some((value, &t[end..]))
}

/// A time such as "50ms", "1.5s", "20us", "100ns" or bare seconds ("0.5").
pub fn parse_time(text: &str) -> Result<Time, String> {
    parse_seconds(text).map(Time::from_secs_f64)
}

/// A time in seconds as the double ns-2's `time_parse` makes of it (value times the unit's
/// scale, e.g. 10 * 1e-3 for "10ms"); range-checked like `parse_time`.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    let bad = || format!("{text:?} is not a time (try \"50ms\", \"1.5s\", \"20us\")");
    let (value, unit) = split_number(text).ok_or_else(bad)?;
    let scale = match unit.trim() {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "ps" => 1e-12,
        _ => return Err(bad()),
    };
    seconds_to_time(value * scale).map_err(|e| format!("{text:?} {e}"))?;
    Ok(value * scale)
}

/// Seconds as a number (TOML float or integer) to `Time`.
pub fn seconds_to_time(seconds: f64) -> Result<Time, String> {
    if !seconds.is_finite() {
        return Err("is not a finite time".into());
    }
    if seconds < 0.0 {
        return Err("is negative".into());
    }
    if seconds > 1.0e7 {
        return Err("is too long (at most 10^7 s of simulated time)".into());
    }
    Ok(Time::from_secs_f64(seconds))
}

/// A span of seconds for people: "5 s", "20 ps", "1.5 ms", "2.1 days".
pub fn show_seconds(s: f64) -> String {
    // three decimals at most below a second: 2e-11 s is "20 ps", not "20.000000000000004 ps"
    let short =
        |v: f64, unit: &str| format!("{} {unit}", format!("{v:.3}").trim_end_matches('0').trim_end_matches('.'));
    match s {
        s if s >= 86400.0 => format!("{:.1} days", s / 86400.0),
        s if s >= 3600.0 => format!("{:.1} h", s / 3600.0),
        s if s >= 1.0 || s == 0.0 => format!("{s} s"),
        s if s >= 1e-3 => short(s * 1e3, "ms"),
        s if s >= 1e-6 => short(s * 1e6, "us"),
        s if s >= 1e-9 => short(s * 1e9, "ns"),
        s => short(s * 1e12, "ps"),
    }
}

/// A rate in bit/s: "2Mb", "448kb", "10Mbps", "1.5Gb"; "B/s" forms ("1MB/s") are bytes per second
/// (a bare "1MB" is refused as the slip it nearly always is).
/// Prefixes are decimal, as in ns-2 (1Mb = 10^6 bit/s).
pub fn parse_rate(text: &str) -> Result<u64, String> {
    let bad = || format!("{text:?} is not a rate (try \"2Mb\", \"10Mbps\", \"448kb\")");
    let (value, unit) = split_number(text).ok_or_else(bad)?;
    let unit = unit.trim();
    let (prefix, rest) = match unit.chars().next() {
        Some('k' | 'K') => (1e3, &unit[1..]),
        Some('M' | 'm') => (1e6, &unit[1..]),
        Some('G' | 'g') => (1e9, &unit[1..]),
        Some('T') => (1e12, &unit[1..]),
        _ => (1.0, unit),
    };
    let per_unit = match rest {
        "" | "b" | "bps" | "bit" | "bit/s" | "b/s" => 1.0,
        "Bps" | "B/s" => 8.0,
        // "10MB" is 10 megabytes per second to ns-2, 80 Mb/s: nearly always a slip for "10Mb"
        "B" => {
            let p = &unit[..unit.len() - 1]; // the prefix as written: "M" of "MB"
            return Err(format!(
                "{text:?} would be bytes per second ({}); write \"{value}{p}b\" for {value} {p}b/s, \
                 or \"{value}{p}B/s\" if bytes per second are meant",
                show_rate(value * prefix * 8.0)
            ));
        }
        _ => return Err(bad()),
    };
    if unit.is_empty() && value != value.trunc() {
        return Err(bad());
    }
    rate_from_bps(value * prefix * per_unit).map_err(|e| format!("{text:?} {e}"))
}

/// A rate for people: "80 Mb/s", "448 kb/s", "1.5 Gb/s".
pub fn show_rate(bps: f64) -> String {
    let (v, unit) = match bps {
        b if b >= 1e9 => (b / 1e9, "Gb/s"),
        b if b >= 1e6 => (b / 1e6, "Mb/s"),
        b if b >= 1e3 => (b / 1e3, "kb/s"),
        b => (b, "b/s"),
    };
    format!("{} {unit}", format!("{v:.3}").trim_end_matches('0').trim_end_matches('.'))
}

pub fn rate_from_bps(bps: f64) -> Result<u64, String> {
    if bps.is_nan() || bps <= 0.0 {
        return Err("is not a positive rate".into());
    }
    if bps > 1.0e13 {
        return Err("is too fast (at most 10Tb)".into());
    }
    if bps < 1.0 {
        return Err("is below 1 bit/s".into());
    }
    Ok(bps.round() as u64)
}

/// A size in bytes: "1500B", "1.5KB" (10^3), "64KiB" (2^10), "1MB", or a bare integer.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let bad = || format!("{text:?} is not a size (try \"1500B\", \"64KB\", \"1MiB\")");
    let (value, unit) = split_number(text).ok_or_else(bad)?;
    let scale = match unit.trim() {
        "" | "B" | "bytes" => 1.0,
        "KB" | "kB" => 1e3,
        "KiB" => 1024.0,
        "MB" => 1e6,
        "MiB" => 1024.0 * 1024.0,
        "GB" => 1e9,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let bytes = value * scale;
    if bytes < 0.0 {
        return Err(format!("{text:?} is negative"));
    }
    if bytes != bytes.trunc() {
        return Err(format!("{text:?} is not a whole number of bytes"));
    }
    if bytes > 1.0e15 {
        return Err(format!("{text:?} is too large"));
    }
    Ok(bytes as u64)
}

/// A time as seconds in a serialised scenario or summary.
pub fn secs<S: Serializer>(t: &Time, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(t.as_secs_f64())
}

/// An optional time as seconds (null when none).
pub fn opt_secs<S: Serializer>(t: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_f64(t.as_secs_f64()),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(parse_time("50ms"), Ok(Time::from_millis(50)));
        assert_eq!(parse_time("1.5s"), Ok(Time::from_millis(1500)));
        assert_eq!(parse_time("0.5"), Ok(Time::from_millis(500)));
        assert_eq!(parse_time("20us"), Ok(Time::from_micros(20)));
        assert_eq!(parse_time("1e-3s"), Ok(Time::from_millis(1)));
        assert_eq!(parse_time(" 2 ms "), Ok(Time::from_millis(2)));
        for bad in ["", "ms", "5 parsecs", "abc", "1..2s", "inf"] {
            assert!(parse_time(bad).unwrap_err().contains("is not a time"), "{bad}");
        }
        assert!(parse_time("-1s").unwrap_err().contains("negative"));
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("2Mb"), Ok(2_000_000));
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("448kb"), Ok(448_000));
        assert_eq!(parse_rate("1.5Gb"), Ok(1_500_000_000));
        assert_eq!(parse_rate("1MB/s"), Ok(8_000_000));
        assert_eq!(parse_rate("1MBps"), Ok(8_000_000));
        let slip = parse_rate("10MB").unwrap_err();
        assert!(slip.contains("80 Mb/s") && slip.contains("\"10Mb\"") && slip.contains("\"10MB/s\""), "{slip}");
        assert_eq!(parse_rate("800Kb"), Ok(800_000));
        assert_eq!(parse_rate("9600"), Ok(9600));
        assert!(parse_rate("2 Mbs").unwrap_err().contains("is not a rate"));
        assert!(parse_rate("0Mb").unwrap_err().contains("positive"));
        assert!(parse_rate("-2Mb").unwrap_err().contains("positive"));
        assert!(parse_rate("1e308Mb").unwrap_err().contains("too fast"), "infinite, not negative");
        assert!(parse_rate("2Mhz").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1500B"), Ok(1500));
        assert_eq!(parse_size("1.5KB"), Ok(1500));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("1.5B").unwrap_err().contains("whole"));
        assert!(parse_size("10 apples").unwrap_err().contains("is not a size"));
        assert!(parse_size("-5B").unwrap_err().contains("negative"));
    }
}
