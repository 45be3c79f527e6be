//! Training pairs, ANDD features and training, evaluation metrics.

pub mod andd;
pub mod corpus;
pub mod estimate;
pub mod labels;
pub mod metrics;
pub mod pairs;
