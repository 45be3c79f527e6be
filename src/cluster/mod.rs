//! Matching and clustering: the SpotSigs partitioned matcher, signature buckets,
//! union-find, cluster summaries. Pure and parallel (rayon); no I/O.

pub mod andd_matcher;
pub mod buckets;
pub mod components;
pub mod spotsigs_matcher;
pub mod union_find;
