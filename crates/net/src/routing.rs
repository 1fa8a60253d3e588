//! Static shortest-path routing (hop count), computed once before the run.

use std::collections::VecDeque;

/// `next[src * n + dst]` is the simplex link to take from `src` towards `dst`.
pub struct Routes {
    n: usize,
    next: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Routes {
    /// `links[i] = (from, to)` for every simplex link. Ties between equal-length paths go to the
    /// link listed first, so routes depend only on the scenario.
    pub fn shortest_paths(n: usize, links: &[(usize, usize)]) -> Routes {
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, &(_, to)) in links.iter().enumerate() {
            incoming[to].push(i as u32);
        }
        let mut next = vec![NONE; n * n];
        let mut queue = VecDeque::new();
        for dst in 0..n {
            // Breadth-first from the destination over reversed links: the link by which a node is
            // first reached is its first hop towards `dst`.
            let mut seen = vec![false; n];
            seen[dst] = true;
            queue.clear();
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                for &l in &incoming[v] {
                    let u = links[l as usize].0;
                    if !seen[u] {
                        seen[u] = true;
                        next[u * n + dst] = l;
                        queue.push_back(u);
                    }
                }
            }
        }
        Routes { n, next }
    }

    pub fn next_link(&self, at: usize, dst: usize) -> Option<usize> {
        match self.next[at * self.n + dst] {
            NONE => None,
            l => Some(l as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_follow_fewest_hops_on_any_graph() {
        // A square 0-1-2-3-0 with a chord 0-2 (links listed as simplex pairs).
        let duplex = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)];
        let links: Vec<(usize, usize)> = duplex.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        let r = Routes::shortest_paths(4, &links);
        assert_eq!(links[r.next_link(0, 2).unwrap()], (0, 2), "the chord is one hop");
        assert_eq!(links[r.next_link(1, 3).unwrap()].0, 1);
        let hop = links[r.next_link(1, 3).unwrap()].1;
        assert!(hop == 0 || hop == 2);
        assert_eq!(r.next_link(2, 2), None);
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let r = Routes::shortest_paths(3, &[(0, 1), (1, 0)]);
        assert_eq!(r.next_link(0, 2), None);
        assert!(r.next_link(0, 1).is_some());
    }
}
