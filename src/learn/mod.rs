//! Training pairs, ANDD features and training, cross-validation, robust training
//! additions (mined negatives, edited copies), evaluation metrics.

pub mod andd;
pub mod corpus;
pub mod cv;
pub mod estimate;
pub mod labels;
pub mod metrics;
pub mod pairs;
pub mod robust;
pub mod threshold;
