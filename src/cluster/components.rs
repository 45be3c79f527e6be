//! Clusters from a pair graph: connected components (union-find) with, for each, the
//! range of its edge similarities and its weakest bridge — the lowest-similarity edge
//! whose removal splits the cluster, i.e. the first link a reviewer should doubt when a
//! cluster chains unrelated pages together. Bridges come from an iterative Tarjan DFS
//! (no recursion: a long chain of pages must not overflow the stack).

use std::borrow::Cow;

use super::union_find::UnionFind;

/// A connected component of the pair graph with at least two members.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// Member ids, ascending.
    pub members: Vec<u32>,
    /// Lowest and highest similarity among the cluster's edges.
    pub min_sim: f64,
    pub max_sim: f64,
    /// The lowest-similarity bridge `(a, b, sim)` with `a < b` (ties: smallest `(a, b)`);
    /// `None` when every edge lies on a cycle.
    pub weakest_bridge: Option<(u32, u32, f64)>,
}

/// Clusters of the graph on `0..n_docs` whose edges are `pairs`, ordered by smallest
/// member. Self-loops and edges naming a document `≥ n_docs` are ignored; a repeated edge
/// is a parallel edge (so never a bridge).
pub fn clusters_with_bridges(n_docs: usize, pairs: &[(u32, u32, f64)]) -> Vec<Cluster> {
    // The detectors' pairs are already `(min, max)` and in range: used as they are, where a
    // copy was 16 bytes a pair at the end of a run of millions of pairs (issue 16).
    let canonical = pairs
        .iter()
        .all(|&(a, b, _)| a < b && (b as usize) < n_docs);
    let edges: Cow<[(u32, u32, f64)]> = if canonical {
        Cow::Borrowed(pairs)
    } else {
        Cow::Owned(
            pairs
                .iter()
                .filter(|&&(a, b, _)| a != b && (a as usize) < n_docs && (b as usize) < n_docs)
                .map(|&(a, b, s)| (a.min(b), a.max(b), s))
                .collect(),
        )
    };
    let edges: &[(u32, u32, f64)] = &edges;
    let mut uf = UnionFind::new(n_docs);
    for &(a, b, _) in edges {
        uf.union(a, b);
    }
    let is_bridge = bridges(n_docs, edges);

    let groups: Vec<Vec<u32>> = uf.groups().into_iter().filter(|g| g.len() > 1).collect();
    let mut slot_of_root = vec![usize::MAX; n_docs];
    let mut clusters: Vec<Cluster> = Vec::with_capacity(groups.len());
    for (slot, g) in groups.into_iter().enumerate() {
        slot_of_root[uf.find(g[0]) as usize] = slot;
        clusters.push(Cluster {
            members: g,
            min_sim: f64::INFINITY,
            max_sim: f64::NEG_INFINITY,
            weakest_bridge: None,
        });
    }
    for (e, &(a, b, s)) in edges.iter().enumerate() {
        let c = &mut clusters[slot_of_root[uf.find(a) as usize]];
        c.min_sim = c.min_sim.min(s);
        c.max_sim = c.max_sim.max(s);
        if is_bridge[e] {
            let better = match c.weakest_bridge {
                None => true,
                Some((x, y, t)) => s < t || (s == t && (a, b) < (x, y)),
            };
            if better {
                c.weakest_bridge = Some((a, b, s));
            }
        }
    }
    clusters
}

/// `is_bridge[e]` for each edge of the undirected multigraph on `0..n`.
pub fn bridges(n: usize, edges: &[(u32, u32, f64)]) -> Vec<bool> {
    // Edge ids in the adjacency as `u32` while they fit: 8 bytes a half-edge where
    // `(u32, usize)` took 16 (two half-edges a pair; issue 16).
    if u32::try_from(edges.len()).is_ok_and(|m| m < u32::MAX) {
        bridges_with::<u32>(n, edges)
    } else {
        bridges_with::<usize>(n, edges)
    }
}

/// An edge's number in the adjacency of [`bridges`].
trait EdgeId: Copy + PartialEq {
    /// No edge (the DFS root's entering edge).
    const NONE: Self;
    /// Edge `e`; the caller has checked that every edge number fits.
    fn of(e: usize) -> Self;
    fn index(self) -> usize;
}

impl EdgeId for u32 {
    const NONE: u32 = u32::MAX;
    fn of(e: usize) -> u32 {
        // `bridges` takes this type only for fewer than `u32::MAX` edges.
        e as u32
    }
    fn index(self) -> usize {
        self as usize
    }
}

impl EdgeId for usize {
    const NONE: usize = usize::MAX;
    fn of(e: usize) -> usize {
        e
    }
    fn index(self) -> usize {
        self
    }
}

fn bridges_with<E: EdgeId>(n: usize, edges: &[(u32, u32, f64)]) -> Vec<bool> {
    // Adjacency in CSR form: (neighbour, edge id).
    let mut degree = vec![0usize; n + 1];
    for &(a, b, _) in edges {
        degree[a as usize + 1] += 1;
        degree[b as usize + 1] += 1;
    }
    for i in 0..n {
        degree[i + 1] += degree[i];
    }
    let start = degree;
    let mut fill = start.clone();
    let mut adj = vec![(0u32, E::NONE); 2 * edges.len()];
    for (e, &(a, b, _)) in edges.iter().enumerate() {
        let e = E::of(e);
        adj[fill[a as usize]] = (b, e);
        fill[a as usize] += 1;
        adj[fill[b as usize]] = (a, e);
        fill[b as usize] += 1;
    }
    drop(fill);

    const UNSEEN: u32 = u32::MAX;
    let mut disc = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut is_bridge = vec![false; edges.len()];
    let mut timer = 0u32;
    // DFS frame: (vertex, edge it was entered by, next adjacency slot to look at).
    let mut stack: Vec<(u32, E, usize)> = Vec::new();
    for root in 0..n {
        if disc[root] != UNSEEN || start[root] == start[root + 1] {
            continue;
        }
        disc[root] = timer;
        low[root] = timer;
        timer += 1;
        stack.push((root as u32, E::NONE, start[root]));
        while let Some(frame) = stack.last_mut() {
            let (v, parent_edge, next) = *frame;
            let v = v as usize;
            if next < start[v + 1] {
                frame.2 += 1;
                let (w, e) = adj[next];
                // Skip only the edge we came by, not every edge to the parent: a
                // parallel edge is a second path back.
                if e == parent_edge {
                    continue;
                }
                let w = w as usize;
                if disc[w] == UNSEEN {
                    disc[w] = timer;
                    low[w] = timer;
                    timer += 1;
                    stack.push((w as u32, e, start[w]));
                } else {
                    low[v] = low[v].min(disc[w]);
                }
            } else {
                stack.pop();
                if let Some(&(u, _, _)) = stack.last() {
                    let u = u as usize;
                    low[u] = low[u].min(low[v]);
                    if low[v] > disc[u] {
                        is_bridge[parent_edge.index()] = true;
                    }
                }
            }
        }
    }
    is_bridge
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_triangle_with_a_tail_has_one_bridge_cluster() {
        // 0-1-2 triangle, 2-3 tail (bridge), 5-6 separate pair, 4 alone.
        let pairs = [
            (0, 1, 0.9),
            (1, 2, 0.8),
            (0, 2, 0.95),
            (2, 3, 0.7),
            (5, 6, 0.85),
        ];
        let cs = clusters_with_bridges(7, &pairs);
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[0].members, [0, 1, 2, 3]);
        assert_eq!((cs[0].min_sim, cs[0].max_sim), (0.7, 0.95));
        assert_eq!(cs[0].weakest_bridge, Some((2, 3, 0.7)));
        assert_eq!(cs[1].members, [5, 6]);
        assert_eq!(cs[1].weakest_bridge, Some((5, 6, 0.85)));
    }

    #[test]
    fn cycles_have_no_bridge_and_parallel_edges_are_not_bridges() {
        let cs = clusters_with_bridges(3, &[(0, 1, 0.9), (1, 2, 0.9), (2, 0, 0.9)]);
        assert_eq!(cs[0].weakest_bridge, None);
        let cs = clusters_with_bridges(2, &[(0, 1, 0.9), (1, 0, 0.8)]);
        assert_eq!(cs[0].weakest_bridge, None);
        assert_eq!(cs[0].min_sim, 0.8);
    }

    #[test]
    fn both_edge_id_widths_find_the_same_bridges() {
        // Two triangles joined by a path, a parallel edge, a pendant edge, an isolated pair.
        let edges = [
            (0, 1, 0.9),
            (1, 2, 0.9),
            (0, 2, 0.9),
            (2, 3, 0.8),
            (3, 4, 0.7),
            (3, 4, 0.6),
            (4, 5, 0.9),
            (5, 6, 0.9),
            (4, 6, 0.9),
            (6, 7, 0.5),
            (8, 9, 0.9),
        ];
        let narrow = bridges_with::<u32>(10, &edges);
        assert_eq!(narrow, bridges_with::<usize>(10, &edges));
        assert_eq!(narrow, bridges(10, &edges));
        let expect: Vec<bool> = (0..edges.len()).map(|e| [3, 9, 10].contains(&e)).collect();
        assert_eq!(narrow, expect);
    }

    #[test]
    fn pairs_not_in_canonical_form_cluster_like_their_canonical_form() {
        let canonical = [(0, 1, 0.9), (1, 2, 0.8), (3, 4, 0.7)];
        let raw = [
            (1, 0, 0.9),
            (2, 2, 0.1),
            (2, 1, 0.8),
            (4, 3, 0.7),
            (3, 9, 0.5),
        ];
        assert_eq!(
            clusters_with_bridges(5, &raw),
            clusters_with_bridges(5, &canonical)
        );
    }

    #[test]
    fn a_long_path_does_not_overflow_the_stack() {
        let n = 300_000u32;
        let pairs: Vec<(u32, u32, f64)> = (1..n).map(|i| (i - 1, i, 0.9)).collect();
        let cs = clusters_with_bridges(n as usize, &pairs);
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].weakest_bridge, Some((0, 1, 0.9)));
    }
}
