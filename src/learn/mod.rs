//! Training pairs, ANDD features and training, evaluation metrics.

pub mod andd;
pub mod metrics;
