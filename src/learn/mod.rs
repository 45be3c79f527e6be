//! Training pairs, ANDD features and training, evaluation metrics.

pub mod metrics;
