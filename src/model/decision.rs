//! A coder's decision on a document set as typed data, with what it implies: the status it
//! gives the set's label ([`Decision::verdict`]), its effect on the label's tags and note
//! ([`Decision::apply_to`]) and the label it gives each pair of the set's documents
//! ([`Decision::pair_rule`]). Also its stored form — the action name and JSON payload of a
//! decision-log row — which must never change: existing databases are read with it.

use std::collections::HashMap;

use anyhow::{bail, Result};
use serde_json::{json, Value};

use super::label::{Label, LabelStatus, PairLabel};

/// One decision on a document set (the set itself is the log row's target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Every member is a near-duplicate of every other.
    Confirm,
    /// No two members are near-duplicates.
    Reject,
    Unsure,
    /// Members in one group are near-duplicates, members of different groups are not; a
    /// member in no group stands alone.
    Split {
        groups: Vec<Vec<i64>>,
    },
    /// A split whose groups are the sides of the cluster cut at its weakest bridge
    /// (`bridge`: the two documents of the removed edge). Labels as a split does.
    Cut {
        groups: Vec<Vec<i64>>,
        bridge: (i64, i64),
    },
    Tag(String),
    Untag(String),
    /// Sets the note (None clears it).
    Note(Option<String>),
}

/// The action names of the log rows that are decisions (the others are `undo` and `redo`).
pub const DECISION_ACTIONS: &[&str] = &[
    "confirm", "split", "reject", "unsure", "tag", "untag", "note",
];

impl Decision {
    /// The action name the log stores (a cut is stored as a split).
    pub fn action(&self) -> &'static str {
        match self {
            Decision::Confirm => "confirm",
            Decision::Reject => "reject",
            Decision::Unsure => "unsure",
            Decision::Split { .. } | Decision::Cut { .. } => "split",
            Decision::Tag(_) => "tag",
            Decision::Untag(_) => "untag",
            Decision::Note(_) => "note",
        }
    }

    /// The payload the log stores, without the batch token (see [`with_batch`]).
    pub fn payload(&self) -> Value {
        match self {
            Decision::Confirm | Decision::Reject | Decision::Unsure => json!({}),
            Decision::Split { groups } => json!({ "groups": groups }),
            Decision::Cut { groups, bridge } => {
                json!({ "groups": groups, "cut": [bridge.0, bridge.1] })
            }
            Decision::Tag(t) | Decision::Untag(t) => json!({ "tag": t }),
            Decision::Note(n) => json!({ "note": n }),
        }
    }

    /// Reads a decision from its stored action name and payload, as every version of
    /// spotcheck has read it: a split's unreadable groups are no groups (every member
    /// alone), a note that is not a string clears the note. Errors for an action that is
    /// not a decision and for a tag or untag that names no tag (which changes nothing and
    /// is refused when appended).
    pub fn from_stored(action: &str, payload: &Value) -> Result<Decision> {
        let tag = || payload["tag"].as_str().map(str::to_string);
        Ok(match action {
            "confirm" => Decision::Confirm,
            "reject" => Decision::Reject,
            "unsure" => Decision::Unsure,
            "split" => {
                let groups: Vec<Vec<i64>> =
                    serde_json::from_value(payload["groups"].clone()).unwrap_or_default();
                match serde_json::from_value::<[i64; 2]>(payload["cut"].clone()) {
                    Ok([a, b]) => Decision::Cut {
                        groups,
                        bridge: (a, b),
                    },
                    Err(_) => Decision::Split { groups },
                }
            }
            "tag" => match tag() {
                Some(t) => Decision::Tag(t),
                None => bail!("a tag decision needs a tag"),
            },
            "untag" => match tag() {
                Some(t) => Decision::Untag(t),
                None => bail!("an untag decision needs a tag"),
            },
            "note" => Decision::Note(payload["note"].as_str().map(str::to_string)),
            other => bail!("unknown decision action {other}"),
        })
    }

    /// The status a verdict gives its set (None: tags and notes leave the status alone).
    pub fn verdict(&self) -> Option<LabelStatus> {
        match self {
            Decision::Confirm => Some(LabelStatus::Confirmed),
            Decision::Reject => Some(LabelStatus::Rejected),
            Decision::Unsure => Some(LabelStatus::Unsure),
            Decision::Split { .. } | Decision::Cut { .. } => Some(LabelStatus::Split),
            Decision::Tag(_) | Decision::Untag(_) | Decision::Note(_) => None,
        }
    }

    /// The groups of a split or cut (empty for anything else).
    pub fn groups(&self) -> &[Vec<i64>] {
        match self {
            Decision::Split { groups } | Decision::Cut { groups, .. } => groups,
            _ => &[],
        }
    }

    /// The decision's effect on the label of its own set.
    pub fn apply_to(&self, label: &mut Label) {
        if let Some(status) = self.verdict() {
            label.status = status;
            return;
        }
        match self {
            Decision::Tag(t) if !label.tags.contains(t) => {
                label.tags.push(t.clone());
                label.tags.sort();
            }
            Decision::Untag(t) => label.tags.retain(|x| x != t),
            Decision::Note(n) => label.note = n.clone(),
            _ => {}
        }
    }

    /// The label a verdict gives each pair of its set's members (None for tags and notes,
    /// which label no pair).
    pub fn pair_rule(&self) -> Option<PairRule> {
        let status = self.verdict()?;
        let mut group = HashMap::new();
        // A member named in two groups belongs to the later one.
        for (g, members) in self.groups().iter().enumerate() {
            for m in members {
                group.insert(*m, g);
            }
        }
        Some(PairRule { status, group })
    }
}

impl Decision {
    /// The pairs a decision on the set `target` labels, with their labels (a < b; none for
    /// tags and notes). Each replaces whatever label the pair had: the latest verdict
    /// covering a pair decides it.
    pub fn pair_labels(&self, target: &[i64]) -> Vec<(i64, i64, PairLabel)> {
        let Some(rule) = self.pair_rule() else {
            return Vec::new();
        };
        let mut ids = target.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let mut out = Vec::with_capacity(ids.len() * ids.len().saturating_sub(1) / 2);
        for (i, &a) in ids.iter().enumerate() {
            for &b in &ids[i + 1..] {
                out.push((a, b, rule.label(a, b)));
            }
        }
        out
    }
}

/// Whether a decision on the set `target` can change the status of a queue cluster with
/// these `members`: only when they share a pair (two documents or more), since a status
/// is read from the labels of the members' pairs and of the sets sharing a pair with it.
pub fn touches_cluster(target: &[i64], members: &[i64]) -> bool {
    let members: std::collections::HashSet<i64> = members.iter().copied().collect();
    let shared: std::collections::BTreeSet<i64> = target
        .iter()
        .copied()
        .filter(|d| members.contains(d))
        .collect();
    shared.len() >= 2
}

/// Adds a batch token to a payload: decisions made with one key on many sets share it and
/// are undone and redone as one step.
pub fn with_batch(mut payload: Value, batch: Option<&str>) -> Value {
    if let (Some(b), Some(obj)) = (batch, payload.as_object_mut()) {
        obj.insert("batch".into(), json!(b));
    }
    payload
}

/// The pair labels of one verdict, ready to be asked about many pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairRule {
    status: LabelStatus,
    /// For a split: the group of each member named in a group.
    group: HashMap<i64, usize>,
}

impl PairRule {
    /// The label of the pair (a, b) of members: a split says "same" within a group and
    /// "different" across groups (a member in no group stands alone).
    pub fn label(&self, a: i64, b: i64) -> PairLabel {
        match self.status {
            LabelStatus::Confirmed => PairLabel::Same,
            LabelStatus::Rejected => PairLabel::Different,
            LabelStatus::Split => match (self.group.get(&a), self.group.get(&b)) {
                (Some(x), Some(y)) if x == y => PairLabel::Same,
                _ => PairLabel::Different,
            },
            _ => PairLabel::Unsure,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_form_reads_back_as_the_same_decision() {
        let all = [
            Decision::Confirm,
            Decision::Reject,
            Decision::Unsure,
            Decision::Split {
                groups: vec![vec![3, 1], vec![2]],
            },
            Decision::Cut {
                groups: vec![vec![1, 2], vec![3, 4]],
                bridge: (2, 3),
            },
            Decision::Tag("wire".into()),
            Decision::Untag("wire".into()),
            Decision::Note(Some("a note".into())),
            Decision::Note(None),
        ];
        for d in all {
            let back = Decision::from_stored(d.action(), &d.payload()).unwrap();
            assert_eq!(back, d);
            // A batch token does not change what the row decides.
            let batched = with_batch(d.payload(), Some("b1"));
            assert_eq!(Decision::from_stored(d.action(), &batched).unwrap(), d);
        }
        assert!(Decision::from_stored("bless", &json!({})).is_err());
        assert!(Decision::from_stored("tag", &json!({})).is_err());
    }

    #[test]
    fn the_stored_text_is_what_the_log_has_always_held() {
        let cut = Decision::Cut {
            groups: vec![vec![1, 2], vec![3]],
            bridge: (2, 3),
        };
        assert_eq!(
            with_batch(cut.payload(), Some("x-1")).to_string(),
            r#"{"batch":"x-1","cut":[2,3],"groups":[[1,2],[3]]}"#
        );
        assert_eq!(Decision::Confirm.payload().to_string(), "{}");
        assert_eq!(
            Decision::Note(Some("n".into())).payload().to_string(),
            r#"{"note":"n"}"#
        );
        // A payload the session never writes is read as the old code read it.
        let odd = Decision::from_stored("split", &json!({"groups": "?"})).unwrap();
        assert_eq!(odd, Decision::Split { groups: vec![] });
        assert_eq!(
            Decision::from_stored("note", &json!({"note": 3})).unwrap(),
            Decision::Note(None)
        );
    }

    #[test]
    fn a_split_labels_pairs_by_group_and_a_member_in_no_group_alone() {
        let d = Decision::Split {
            groups: vec![vec![1, 2], vec![3]],
        };
        let r = d.pair_rule().unwrap();
        assert_eq!(r.label(1, 2), PairLabel::Same);
        assert_eq!(r.label(2, 3), PairLabel::Different);
        assert_eq!(r.label(4, 5), PairLabel::Different);
        assert_eq!(
            Decision::Confirm.pair_rule().unwrap().label(1, 9),
            PairLabel::Same
        );
        assert_eq!(
            Decision::Unsure.pair_rule().unwrap().label(1, 9),
            PairLabel::Unsure
        );
        assert!(Decision::Tag("t".into()).pair_rule().is_none());
    }

    #[test]
    fn tags_stay_sorted_and_unique_and_a_verdict_keeps_them() {
        let mut l = Label::default();
        Decision::Tag("b".into()).apply_to(&mut l);
        Decision::Tag("a".into()).apply_to(&mut l);
        Decision::Tag("b".into()).apply_to(&mut l);
        Decision::Reject.apply_to(&mut l);
        assert_eq!(l.tags, vec!["a", "b"]);
        assert_eq!(l.status, LabelStatus::Rejected);
        Decision::Untag("a".into()).apply_to(&mut l);
        Decision::Note(Some("n".into())).apply_to(&mut l);
        assert_eq!(
            l,
            Label {
                status: LabelStatus::Rejected,
                tags: vec!["b".into()],
                note: Some("n".into())
            }
        );
    }
}
