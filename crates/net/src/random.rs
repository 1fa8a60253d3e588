//! Where a component's random numbers come from.
//!
//! Under `rng = "ns2"` (the default) every draw comes from one generator, ns-2's default RNG,
//! in the order ns-2 makes them, so runs reproduce ns-2 exactly. Under `rng = "streams"` each
//! component draws from its own stream derived from (seed, component name), so adding a flow
//! leaves every other component's numbers unchanged.

use tcplab_des::{Ns2Rng, Rng};

pub enum Draws {
    /// From the run's shared ns-2 generator.
    Shared,
    /// From the component's own stream.
    Own(Rng),
}

impl Draws {
    pub fn uniform(&mut self, shared: &mut Ns2Rng) -> f64 {
        match self {
            Draws::Shared => shared.uniform(),
            Draws::Own(rng) => rng.uniform(),
        }
    }

    /// Tcl's `uniform 0 1` in ns-2 (ns-random.tcl): `next-random`, an integer in 0..2^31, over
    /// 0x7fffffff.
    pub fn tcl_uniform(&mut self, shared: &mut Ns2Rng) -> f64 {
        match self {
            Draws::Shared => shared.integer(1 << 31) as f64 / 2_147_483_647.0,
            Draws::Own(rng) => rng.uniform(),
        }
    }

    /// An integer in 0..k (ns-2's `Random::integer`).
    pub fn integer(&mut self, k: u32, shared: &mut Ns2Rng) -> u32 {
        match self {
            Draws::Shared => shared.integer(k),
            Draws::Own(rng) => (rng.uniform() * k as f64) as u32 % k,
        }
    }
}

/// The order in which Tcl 8.6 lists the keys "0".."n-1" of an array (`array names`): ns-2
/// resets its nodes, and so draws its TCP agents' clock phases, in this order at `$ns run`.
pub fn tcl_array_order(n: usize) -> Vec<usize> {
    // Tcl's string hash, buckets growing 4x when entries reach 3 per bucket, new entries at the
    // head of their bucket's chain, iteration bucket by bucket.
    let hash = |k: usize| k.to_string().bytes().fold(0u32, |h, c| h.wrapping_add(h << 3).wrapping_add(c as u32));
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); 4];
    let mut count = 0;
    for key in 0..n {
        let mask = buckets.len() as u32 - 1;
        buckets[(hash(key) & mask) as usize].insert(0, key);
        count += 1;
        if count >= 3 * buckets.len() {
            let old: Vec<usize> = buckets.iter().flatten().copied().collect();
            buckets = vec![Vec::new(); buckets.len() * 4];
            let mask = buckets.len() as u32 - 1;
            for k in old {
                buckets[(hash(k) & mask) as usize].insert(0, k);
            }
        }
    }
    buckets.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As printed by ns-2.35 (`array names Node_`) after creating n nodes.
    #[test]
    fn tcl_order_matches_ns2() {
        let s = |n| tcl_array_order(n).iter().map(|k| k.to_string()).collect::<Vec<_>>().join(" ");
        assert_eq!(s(4), "0 1 2 3");
        assert_eq!(s(6), "4 0 5 1 2 3");
        assert_eq!(s(7), "4 0 5 1 6 2 3");
        assert_eq!(s(12), "0 1 2 3 4 5 6 7 8 9 10 11");
        assert_eq!(
            s(40),
            "35 17 0 36 18 1 37 20 19 2 38 21 3 39 22 4 23 5 24 6 25 7 26 8 27 9 10 28 11 30 29 12 31 13 32 14 33 15 34 16"
        );
    }
}
