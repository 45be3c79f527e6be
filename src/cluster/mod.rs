//! Matching and clustering: the SpotSigs partitioned matcher, signature buckets,
//! union-find, cluster summaries. Pure and parallel (rayon); no I/O.

pub mod buckets;
