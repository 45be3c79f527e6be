//! Clusters and weakest bridges of a pair graph, checked against the definition: an edge
//! is a bridge when removing it increases the number of connected components.

use proptest::prelude::*;
use spotcheck::cluster::components::clusters_with_bridges;
use spotcheck::cluster::union_find::UnionFind;

fn components(n: usize, edges: &[(u32, u32, f64)], skip: Option<usize>) -> usize {
    let mut uf = UnionFind::new(n);
    for (e, &(a, b, _)) in edges.iter().enumerate() {
        if Some(e) != skip {
            uf.union(a, b);
        }
    }
    uf.groups().len()
}

/// Random simple graphs: `n` ≤ 12 vertices, each unordered pair an edge with some
/// probability, similarities from a small set so ties happen.
fn graph() -> impl Strategy<Value = (usize, Vec<(u32, u32, f64)>)> {
    (1usize..13).prop_flat_map(|n| {
        let all: Vec<(u32, u32)> = (0..n as u32)
            .flat_map(|a| (a + 1..n as u32).map(move |b| (a, b)))
            .collect();
        let k = all.len();
        (
            Just(n),
            Just(all),
            prop::collection::vec(0u8..10, k),
            prop::collection::vec(0u8..4, k),
            0u8..10,
        )
            .prop_map(|(n, all, keep, sims, density)| {
                let edges = all
                    .into_iter()
                    .zip(keep.into_iter().zip(sims))
                    .filter(|&(_, (k, _))| k < density / 2 + 1)
                    .map(|((a, b), (_, s))| (a, b, 0.6 + 0.1 * f64::from(s)))
                    .collect();
                (n, edges)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn weakest_bridge_matches_edge_removal((n, edges) in graph()) {
        let clusters = clusters_with_bridges(n, &edges);
        let base = components(n, &edges, None);
        // Clusters are exactly the components with two or more vertices.
        let mut uf = UnionFind::new(n);
        for &(a, b, _) in &edges {
            uf.union(a, b);
        }
        let expected_members: Vec<Vec<u32>> =
            uf.groups().into_iter().filter(|g| g.len() > 1).collect();
        let members: Vec<Vec<u32>> = clusters.iter().map(|c| c.members.clone()).collect();
        prop_assert_eq!(&members, &expected_members);

        for c in &clusters {
            let inside: Vec<(usize, &(u32, u32, f64))> = edges
                .iter()
                .enumerate()
                .filter(|(_, e)| c.members.binary_search(&e.0).is_ok())
                .collect();
            let min = inside.iter().map(|(_, e)| e.2).fold(f64::INFINITY, f64::min);
            let max = inside.iter().map(|(_, e)| e.2).fold(f64::NEG_INFINITY, f64::max);
            prop_assert_eq!((c.min_sim, c.max_sim), (min, max));
            let weakest = inside
                .iter()
                .filter(|(i, _)| components(n, &edges, Some(*i)) > base)
                .map(|(_, e)| **e)
                .min_by(|x, y| x.2.total_cmp(&y.2).then((x.0, x.1).cmp(&(y.0, y.1))));
            prop_assert_eq!(c.weakest_bridge, weakest);
        }
    }
}

#[test]
fn two_triangles_joined_by_one_edge() {
    // 0-1-2 and 3-4-5 triangles joined by 2-3 (0.95) and a pendant 5-6 (0.97).
    let edges = [
        (0, 1, 0.9),
        (1, 2, 0.9),
        (0, 2, 0.9),
        (3, 4, 0.9),
        (4, 5, 0.9),
        (3, 5, 0.9),
        (2, 3, 0.95),
        (5, 6, 0.97),
    ];
    let c = clusters_with_bridges(7, &edges);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].weakest_bridge, Some((2, 3, 0.95)));
}
