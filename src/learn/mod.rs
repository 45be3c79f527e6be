//! Training pairs, ANDD features and training, cross-validation, evaluation metrics.

pub mod andd;
pub mod corpus;
pub mod cv;
pub mod estimate;
pub mod labels;
pub mod metrics;
pub mod pairs;
