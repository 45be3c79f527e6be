//! Document signatures: SpotSigs, I-Match lexicons and bags, Cooper's salient terms, ANDD
//! vectors. Pure functions of token streams and versioned parameters; no I/O.

pub mod andd;
pub mod cooper;
pub mod imatch;
pub mod lexicon;
pub mod passage;
pub mod spotsigs;
pub mod termsets;
