//! Labels: the verdict a coder's decisions leave on a document set ([`LabelStatus`], with
//! its tags and note in [`Label`]), on a pair of documents ([`PairLabel`]), and the labeled
//! sets that exports and training read ([`LabelSet`]).

use serde::Serialize;
use serde_json::{json, Value};

/// A coder's verdict on a document set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default, Hash)]
pub enum LabelStatus {
    #[default]
    Unreviewed,
    /// Some of a cluster's member pairs are labeled, not all (derived, never stored as a
    /// label of a document set).
    Partial,
    Confirmed,
    Split,
    Rejected,
    Unsure,
}

impl LabelStatus {
    pub const ALL: [LabelStatus; 6] = [
        LabelStatus::Unreviewed,
        LabelStatus::Partial,
        LabelStatus::Confirmed,
        LabelStatus::Split,
        LabelStatus::Rejected,
        LabelStatus::Unsure,
    ];

    /// The name the database and the exports use.
    pub fn as_str(self) -> &'static str {
        match self {
            LabelStatus::Unreviewed => "unreviewed",
            LabelStatus::Partial => "partial",
            LabelStatus::Confirmed => "confirmed",
            LabelStatus::Split => "split",
            LabelStatus::Rejected => "rejected",
            LabelStatus::Unsure => "unsure",
        }
    }

    /// Reads a name written by [`LabelStatus::as_str`]; anything else is unreviewed.
    pub fn parse(s: &str) -> LabelStatus {
        match s {
            "partial" => LabelStatus::Partial,
            "confirmed" => LabelStatus::Confirmed,
            "split" => LabelStatus::Split,
            "rejected" => LabelStatus::Rejected,
            "unsure" => LabelStatus::Unsure,
            _ => LabelStatus::Unreviewed,
        }
    }

    /// Whether a cluster with this status is done: neither unreviewed nor partly labeled
    /// (what progress counts and where the queue resumes).
    pub fn is_reviewed(self) -> bool {
        !matches!(self, LabelStatus::Unreviewed | LabelStatus::Partial)
    }
}

/// The current label of a document set for one coder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Label {
    pub status: LabelStatus,
    /// Sorted, without duplicates.
    pub tags: Vec<String>,
    pub note: Option<String>,
}

impl Label {
    /// The label as the log's `previous` column stores it.
    pub fn to_json(&self) -> Value {
        json!({"status": self.status.as_str(), "tags": self.tags, "note": self.note})
    }

    /// Reads a label stored by [`Label::to_json`] (anything missing is the default).
    pub fn from_json(v: &Value) -> Label {
        Label {
            status: LabelStatus::parse(v["status"].as_str().unwrap_or("")),
            tags: serde_json::from_value(v["tags"].clone()).unwrap_or_default(),
            note: v["note"].as_str().map(str::to_string),
        }
    }
}

/// What a coder's verdicts say about one pair of documents: the label of the latest
/// verdict in force whose document set holds both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum PairLabel {
    Same,
    Different,
    Unsure,
}

impl PairLabel {
    /// The name the database stores.
    pub fn as_str(self) -> &'static str {
        match self {
            PairLabel::Same => "same",
            PairLabel::Different => "different",
            PairLabel::Unsure => "unsure",
        }
    }

    /// Reads a stored name; anything but "same" and "different" counts as unsure, as the
    /// cluster statuses have always counted it.
    pub fn parse(s: &str) -> PairLabel {
        match s {
            "same" => PairLabel::Same,
            "different" => PairLabel::Different,
            _ => PairLabel::Unsure,
        }
    }
}

/// One coder's current verdict on one document set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LabelSet {
    pub coder: String,
    /// The document ids, sorted.
    pub members: Vec<i64>,
    /// Confirmed, Split, Rejected or Unsure (never Unreviewed).
    pub status: LabelStatus,
    /// For a split: the groups as recorded (a member in no group stands alone), each
    /// sorted and deduplicated, empty groups left out. Empty otherwise.
    pub groups: Vec<Vec<i64>>,
    pub tags: Vec<String>,
    /// The decision-log id of the confirm/split/reject/unsure row in force. Pair labels of
    /// one coder follow the latest such decision covering the pair.
    pub decision: i64,
}

/// A split's groups as a [`LabelSet`] reports them: each sorted and deduplicated, empty
/// ones left out, in the recorded order.
pub fn normalized_groups(groups: &[Vec<i64>]) -> Vec<Vec<i64>> {
    groups
        .iter()
        .map(|g| {
            let mut g = g.clone();
            g.sort_unstable();
            g.dedup();
            g
        })
        .filter(|g| !g.is_empty())
        .collect()
}
