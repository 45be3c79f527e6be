//! Training pairs, ANDD features and training, cross-validation, robust training
//! additions (mined negatives, edited copies), the collection threshold, a learned λ shrunk
//! for the collection it meets, evaluation metrics.

pub mod andd;
pub mod corpus;
pub mod cv;
pub mod estimate;
pub mod labels;
pub mod metrics;
pub mod pairs;
pub mod robust;
pub mod shrink;
pub mod threshold;
