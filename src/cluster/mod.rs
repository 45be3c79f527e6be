//! Matching and clustering: the SpotSigs partitioned matcher, signature buckets,
//! union-find, cluster summaries, the exact Jaccard set join. Pure and parallel (rayon); no I/O.

pub mod andd_matcher;
pub mod buckets;
pub mod components;
pub mod set_join;
pub mod spotsigs_matcher;
pub mod union_find;
