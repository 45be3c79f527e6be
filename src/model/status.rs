//! What a coder's labels say about a cluster of a detector run. Decisions name document
//! sets, so a cluster of a rerun (other ids, a member more or less) is judged by the labels
//! over its own pairs: confirmed when every member pair is labeled "same", rejected when
//! every pair is "different", split when both occur, unsure when any pair is unsure, partial
//! when only some pairs are labeled. Tags and the note come from every labeled document set
//! that shares a pair (two documents) with the cluster.

use std::collections::BTreeSet;

use serde::Serialize;

use super::label::{Label, LabelStatus, PairLabel};

/// A cluster's status for one coder (see the module notes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ClusterReview {
    pub status: LabelStatus,
    /// Member pairs the coder has labeled, of `pairs`.
    pub labeled: i64,
    pub pairs: i64,
    /// Sorted, without duplicates.
    pub tags: Vec<String>,
    pub note: Option<String>,
}

/// How many of a cluster's member pairs carry each pair label.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairCounts {
    pub same: i64,
    pub different: i64,
    pub unsure: i64,
}

impl PairCounts {
    pub fn add(&mut self, label: PairLabel) {
        match label {
            PairLabel::Same => self.same += 1,
            PairLabel::Different => self.different += 1,
            PairLabel::Unsure => self.unsure += 1,
        }
    }

    pub fn labeled(&self) -> i64 {
        self.same + self.different + self.unsure
    }
}

/// The status of a cluster whose `pairs` member pairs carry `same`, `different` and
/// `unsure` pair labels (the rest unlabeled).
pub fn derive_status(same: i64, different: i64, unsure: i64, pairs: i64) -> LabelStatus {
    let labeled = same + different + unsure;
    if labeled == 0 {
        LabelStatus::Unreviewed
    } else if labeled < pairs {
        LabelStatus::Partial
    } else if unsure > 0 {
        LabelStatus::Unsure
    } else if same == pairs {
        LabelStatus::Confirmed
    } else if different == pairs {
        LabelStatus::Rejected
    } else {
        LabelStatus::Split
    }
}

/// The number of pairs of `n` documents.
pub fn pair_count(n: usize) -> i64 {
    let n = n as i64;
    n * (n - 1).max(0) / 2
}

/// The review of a cluster of `size` distinct members whose member pairs carry `counts`,
/// covered by the labeled sets `covering` (each with the id of its last decision in force)
/// that share two or more members with it: their tags together, the note of the latest
/// one with a note. None when nothing labels the cluster (no status is kept for it).
pub fn cluster_review<'a>(
    size: usize,
    counts: PairCounts,
    covering: impl IntoIterator<Item = (&'a Label, i64)>,
) -> Option<ClusterReview> {
    let mut tags: BTreeSet<String> = BTreeSet::new();
    let mut note: Option<(i64, &str)> = None;
    for (label, decision) in covering {
        tags.extend(label.tags.iter().cloned());
        if let Some(n) = &label.note {
            if note.is_none_or(|(id, _)| decision > id) {
                note = Some((decision, n));
            }
        }
    }
    let pairs = pair_count(size);
    let status = derive_status(counts.same, counts.different, counts.unsure, pairs);
    if status == LabelStatus::Unreviewed && tags.is_empty() && note.is_none() {
        return None;
    }
    Some(ClusterReview {
        status,
        labeled: counts.labeled(),
        pairs,
        tags: tags.into_iter().collect(),
        note: note.map(|(_, n)| n.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_follows_the_pair_labels() {
        use LabelStatus::*;
        assert_eq!(derive_status(0, 0, 0, 3), Unreviewed);
        assert_eq!(derive_status(2, 0, 0, 3), Partial);
        assert_eq!(derive_status(0, 1, 0, 3), Partial);
        assert_eq!(derive_status(3, 0, 0, 3), Confirmed);
        assert_eq!(derive_status(0, 3, 0, 3), Rejected);
        assert_eq!(derive_status(1, 2, 0, 3), Split);
        assert_eq!(derive_status(2, 0, 1, 3), Unsure);
    }

    #[test]
    fn tags_gather_and_the_latest_note_wins() {
        let a = Label {
            tags: vec!["x".into()],
            note: Some("old".into()),
            ..Label::default()
        };
        let b = Label {
            tags: vec!["y".into(), "x".into()],
            note: Some("new".into()),
            ..Label::default()
        };
        let r = cluster_review(3, PairCounts::default(), [(&b, 9), (&a, 4)]).unwrap();
        assert_eq!(r.tags, vec!["x", "y"]);
        assert_eq!(r.note.as_deref(), Some("new"));
        assert_eq!((r.status, r.pairs), (LabelStatus::Unreviewed, 3));
        assert_eq!(cluster_review(3, PairCounts::default(), []), None);
    }
}
