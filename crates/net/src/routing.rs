//! Static shortest-path routing (hop count), computed once before the run, as ns-2's
//! `RouteLogic::compute_routes` computes it, ties included.

/// `next[src * n + dst]` is the simplex link to take from `src` towards `dst`.
pub struct Routes {
    n: usize,
    next: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Routes {
    /// `links[i] = (from, to)` for every simplex link (wired links, then WLAN pairs). From each
    /// source, nodes are settled nearest first and, among equally near ones, lowest id first;
    /// a node takes the first hop of the first settled node that reaches it, and only a
    /// strictly shorter path replaces a route. This is the order of ns-2's
    /// `RouteLogic::compute_routes` (Dijkstra from each source). Of two edges with the same
    /// ends the one listed first wins, tcplab's choice (ns-2's adjacency matrix keeps the last
    /// inserted): validation refuses two wired links with the same ends, so only a radio pair
    /// beside a wired link meets this rule.
    ///
    /// Every link costs one hop, so the search goes breadth first, a level of equally near
    /// nodes at a time, with no priority queue: a node takes the first hop of the
    /// lowest-numbered node of the level before that reaches it, which is the first of them
    /// ns-2 settles (S3-300's 602 nodes: 31 M instructions, where a heap took 110 M).
    pub fn shortest_paths(n: usize, links: &[(usize, usize)]) -> Routes {
        let mut search = RouteSearch::new(n, links);
        let mut next = vec![NONE; n * n];
        for (src, row) in next.chunks_mut(n.max(1)).enumerate() {
            search.first_hops(src, row);
        }
        Routes { n, next }
    }

    /// Bytes the table of `n` nodes takes: it grows with the square of the nodes.
    pub fn table_bytes(n: usize) -> f64 {
        (n as f64).powi(2) * std::mem::size_of::<u32>() as f64
    }

    pub fn next_link(&self, at: usize, dst: usize) -> Option<usize> {
        match self.next[at * self.n + dst] {
            NONE => None,
            l => Some(l as usize),
        }
    }
}

/// The search behind `Routes`, one source at a time.
struct RouteSearch<'a> {
    links: &'a [(usize, usize)],
    outgoing: Vec<Vec<u32>>,
    hops: Vec<u32>,
    /// The node of the level before whose first hop a node took.
    via: Vec<usize>,
    level: Vec<usize>,
    below: Vec<usize>,
}

impl<'a> RouteSearch<'a> {
    fn new(n: usize, links: &'a [(usize, usize)]) -> RouteSearch<'a> {
        let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, &(from, _)) in links.iter().enumerate() {
            outgoing[from].push(i as u32);
        }
        RouteSearch { links, outgoing, hops: vec![u32::MAX; n], via: vec![0; n], level: Vec::new(), below: Vec::new() }
    }

    /// `first[dst]`: the link to take from `src` towards `dst` (`u32::MAX` for none), as
    /// `Routes::shortest_paths` says.
    fn first_hops(&mut self, src: usize, first: &mut [u32]) {
        let (hops, via, level, below) = (&mut self.hops, &mut self.via, &mut self.level, &mut self.below);
        first.fill(NONE);
        hops.fill(u32::MAX);
        hops[src] = 0;
        level.clear();
        level.push(src);
        for h in 1.. {
            for &v in level.iter() {
                for &l in &self.outgoing[v] {
                    let w = self.links[l as usize].1;
                    if hops[w] == u32::MAX {
                        hops[w] = h;
                        via[w] = v;
                        first[w] = if v == src { l } else { first[v] };
                        below.push(w);
                    } else if hops[w] == h && v < via[w] {
                        // (the source is alone in its level: here v is not the source)
                        via[w] = v;
                        first[w] = first[v];
                    }
                }
            }
            if below.is_empty() {
                break;
            }
            std::mem::swap(level, below);
            below.clear();
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
        assert_eq!(r.next_link(2, 2), None);
    }

    #[test]
    fn equal_paths_tie_as_in_ns2_whatever_the_listing_order() {
        // Two paths of two hops from 1 to 3, through 0 or 2: node 0 is settled first, so it
        // carries the route, even with the links towards 2 listed first.
        for duplex in [[(1, 2), (2, 3), (1, 0), (0, 3)], [(0, 3), (1, 0), (2, 3), (1, 2)]] {
            let links: Vec<(usize, usize)> = duplex.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
            let r = Routes::shortest_paths(4, &links);
            assert_eq!(links[r.next_link(1, 3).unwrap()], (1, 0));
            assert_eq!(links[r.next_link(3, 1).unwrap()], (3, 0));
        }
        // s=0 to d=5 over 0-2-3-5 or 0-4-1-5 (checked against ns-2.35): the tie is settled at
        // the destination's end, where 1 is settled before 3, not by the lower first hop.
        let duplex = [(0, 2), (2, 3), (3, 5), (0, 4), (4, 1), (1, 5)];
        let links: Vec<(usize, usize)> = duplex.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        let r = Routes::shortest_paths(6, &links);
        assert_eq!(links[r.next_link(0, 5).unwrap()], (0, 4));
        assert_eq!(links[r.next_link(4, 5).unwrap()], (4, 1));
    }

    /// ns-2's algorithm as written: Dijkstra from each source over hop counts, settling the
    /// least (hops, node) first.
    fn dijkstra(n: usize, links: &[(usize, usize)]) -> Vec<u32> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut next = vec![NONE; n * n];
        for src in 0..n {
            let (mut hops, mut settled) = (vec![u32::MAX; n], vec![false; n]);
            let first = &mut next[src * n..(src + 1) * n];
            hops[src] = 0;
            let mut frontier = BinaryHeap::from([Reverse((0, src))]);
            while let Some(Reverse((h, v))) = frontier.pop() {
                if std::mem::replace(&mut settled[v], true) {
                    continue;
                }
                for (l, &(from, w)) in links.iter().enumerate() {
                    if from == v && !settled[w] && h + 1 < hops[w] {
                        hops[w] = h + 1;
                        first[w] = if v == src { l as u32 } else { first[v] };
                        frontier.push(Reverse((h + 1, w)));
                    }
                }
            }
        }
        next
    }

    #[test]
    fn routes_are_those_of_ns2s_dijkstra_on_random_graphs() {
        let mut rng = tcplab_des::Rng::stream(7, "routes");
        let mut below = |k: u64| (rng.next_u64() % k) as usize;
        for _ in 0..500 {
            let n = 1 + below(14);
            // simplex links in any order, parallel ones and loops included, some graphs cut
            let links: Vec<(usize, usize)> =
                (0..below(3 * n as u64 + 1)).map(|_| (below(n as u64), below(n as u64))).collect();
            assert_eq!(Routes::shortest_paths(n, &links).next, dijkstra(n, &links), "{n} nodes, links {links:?}");
        }
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let r = Routes::shortest_paths(3, &[(0, 1), (1, 0)]);
        assert_eq!(r.next_link(0, 2), None);
        assert!(r.next_link(0, 1).is_some());
    }
}
