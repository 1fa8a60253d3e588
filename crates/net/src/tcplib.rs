//! tcplib's empirical telnet interarrival times (Danzig and Jamin's tcplib, as ns-2.35 ships it
//! in tcp/tcplib-telnet.cc): 10,000 measured gaps in seconds, ascending, one picked uniformly per
//! packet. `data/tcplib-telnet.txt` holds the table, one number per line, as ns-2 writes it.

use std::sync::OnceLock;

const ENTRIES: usize = 10_000;

fn table() -> &'static [f64] {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let table: Vec<f64> = include_str!("data/tcplib-telnet.txt")
            .lines()
            .map(|l| l.parse().expect("tcplib-telnet.txt holds numbers"))
            .collect();
        assert_eq!(table.len(), ENTRIES);
        table
    })
}

/// The interarrival time for a uniform draw `u` in [0, 1): entry int(u * 10000).
pub fn telnet_interarrival(u: f64) -> f64 {
    table()[(u * ENTRIES as f64) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_tcplibs() {
        let t = table();
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "ascending");
        assert_eq!((t[0], t[ENTRIES - 1]), (0.000606425, 209.92121875));
        assert_eq!(telnet_interarrival(0.0), 0.000606425);
        assert_eq!(telnet_interarrival(0.99999), 209.92121875);
        assert_eq!(telnet_interarrival(0.00015), 0.000617809, "entry 1");
    }
}
