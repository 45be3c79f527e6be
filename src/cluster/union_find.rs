//! Union-find (disjoint sets) over the indices `0..n`: path compression plus union by
//! size, so a sequence of `m` operations costs O(m α(n)). Used to turn matched pairs or
//! shared buckets into clusters.

/// Disjoint sets over `0..n`.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    /// `n` singleton sets. Indices are `u32` because document ids are.
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    /// Number of elements (not sets).
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The representative of `x`'s set. Iterative (no recursion on long chains); halves
    /// the path on the way up, which gives the same amortized bound as full compression.
    pub fn find(&mut self, x: u32) -> u32 {
        let mut x = x as usize;
        while self.parent[x] as usize != x {
            let grand = self.parent[self.parent[x] as usize];
            self.parent[x] = grand;
            x = grand as usize;
        }
        x as u32
    }

    /// Merges the sets of `a` and `b`; returns true when they were different sets.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        if self.size[ra as usize] < self.size[rb as usize] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb as usize] = ra;
        self.size[ra as usize] += self.size[rb as usize];
        true
    }

    /// Whether `a` and `b` are in the same set.
    pub fn same(&mut self, a: u32, b: u32) -> bool {
        self.find(a) == self.find(b)
    }

    /// Size of the set containing `x`.
    pub fn set_size(&mut self, x: u32) -> usize {
        let r = self.find(x);
        self.size[r as usize] as usize
    }

    /// All sets, singletons included: each group's members ascending, groups ordered by
    /// their smallest member. Deterministic whatever the order of the unions.
    pub fn groups(&mut self) -> Vec<Vec<u32>> {
        let n = self.parent.len();
        let mut slot_of_root = vec![u32::MAX; n];
        let mut groups: Vec<Vec<u32>> = Vec::new();
        // Visiting elements in ascending order makes each group's first member its
        // smallest and creates the groups in order of their smallest member.
        for x in 0..n as u32 {
            let r = self.find(x) as usize;
            if slot_of_root[r] == u32::MAX {
                slot_of_root[r] = groups.len() as u32;
                groups.push(Vec::new());
            }
            groups[slot_of_root[r] as usize].push(x);
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unions_merge_sets_and_groups_are_sorted() {
        let mut uf = UnionFind::new(7);
        assert!(uf.union(5, 1));
        assert!(uf.union(3, 5));
        assert!(!uf.union(1, 3));
        assert!(uf.union(6, 4));
        assert!(uf.same(3, 1));
        assert!(!uf.same(0, 1));
        assert_eq!(uf.set_size(5), 3);
        assert_eq!(
            uf.groups(),
            vec![vec![0], vec![1, 3, 5], vec![2], vec![4, 6]]
        );
    }

    #[test]
    fn long_chains_do_not_overflow_the_stack() {
        let n = 200_000;
        let mut uf = UnionFind::new(n);
        for i in 1..n as u32 {
            uf.union(i - 1, i);
        }
        assert_eq!(uf.set_size(0), n);
        assert_eq!(uf.groups().len(), 1);
    }

    #[test]
    fn empty_has_no_groups() {
        let mut uf = UnionFind::new(0);
        assert!(uf.is_empty());
        assert!(uf.groups().is_empty());
    }
}
