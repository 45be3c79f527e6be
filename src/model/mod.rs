//! The review domain as typed data with pure rules: what a decision is and what it implies
//! (`decision`), the decision log and what undo and redo mean (`log`), labels of sets and
//! pairs (`label`), the status of a cluster (`status`), a log replayed in memory
//! (`replay`), the merged queue's entries (`entries`), noise triage (`triage`), the
//! queue's rows, filters and orders (`queue`), progress and agreement
//! (`agreement`), what merging coders' copies adds (`merge`), and which single-detector
//! pairs are template siblings rather than copies and which pairs are two pages of one site
//! by their titles (`siblings`). No I/O: the store persists these types and the review session shows
//! them.

pub mod adjudication;
pub mod agreement;
pub mod decision;
pub mod entries;
pub mod label;
pub mod log;
pub mod merge;
pub mod queue;
pub mod replay;
pub mod sample;
pub mod siblings;
pub mod status;
pub mod triage;

pub use agreement::{agreement_of, cohens_kappa, kappa_cell, Agreement, Progress};
pub use decision::{touches_cluster, with_batch, Decision, PairRule, DECISION_ACTIONS};
pub use entries::{
    agreement_label, build_entries, entries_from_pairs, merge_pairs, DetectorPairs, Entry,
    EntryConfig, MergedPair, MergedPairs, PairMerger, MAX_DETECTORS, MAX_ENTRY_SIZE,
};
pub use label::{normalized_groups, Label, LabelSet, LabelStatus, PairLabel};
pub use log::{
    active_decisions, label_of, last_verdict, parse_set_key, set_key, DecisionRow, LogEntry,
};
pub use queue::{
    queue_order, teach_score, NoiseShown, QueueFilter, QueueKey, QueueRow, QueueSort, MERGED_QUEUE,
};
pub use replay::Labels;
pub use status::{cluster_review, derive_status, pair_count, ClusterReview, PairCounts};
pub use triage::{
    triage, triage_help, triage_markdown, DocFacts, TriageCounts, TriageRule, TRIAGE_RULES,
};
