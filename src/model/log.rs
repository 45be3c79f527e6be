//! The decision log as typed data: a row as stored ([`DecisionRow`]), an entry to append
//! ([`LogEntry`]), and the pure rules that read a log — which decisions are in force after
//! the undos and redos ([`active_decisions`]) and the label they leave on a set
//! ([`label_of`]).
//!
//! What undo means: the log is append-only, so an undo is a row naming the decision it
//! reverts and a redo a row naming the undo it reverts. A decision is in force unless its
//! latest undo has not been redone. Everything derived (labels, pair labels, statuses) is
//! what the decisions in force say, replayed in log order, so undoing a decision that is
//! not the newest (another set's decision came after it) is exact too; the `previous`
//! label a row records is for display only.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use serde_json::Value;

use super::decision::{with_batch, Decision, DECISION_ACTIONS};
use super::label::Label;

/// One row of the decision log, as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionRow {
    pub id: i64,
    pub coder: String,
    pub time: String,
    /// A decision's action name (see [`Decision::action`]), `undo` or `redo`.
    pub action: String,
    /// The document set, sorted.
    pub target: Vec<i64>,
    pub payload: Value,
    /// The label of the set before this row (display only, see the module notes).
    pub previous: Value,
    /// For an undo: the decision it reverts; for a redo: the undo it reverts.
    pub undoes: Option<i64>,
}

impl DecisionRow {
    /// Whether the row is a decision (not an undo or a redo).
    pub fn is_decision(&self) -> bool {
        DECISION_ACTIONS.contains(&self.action.as_str())
    }

    /// The decision of a decision row (None for undo and redo rows, and for a row whose
    /// payload decides nothing: it is in force but changes nothing).
    pub fn decision(&self) -> Option<Decision> {
        if !self.is_decision() {
            return None;
        }
        Decision::from_stored(&self.action, &self.payload).ok()
    }

    /// The token shared by the decisions of one key press on many sets.
    pub fn batch(&self) -> Option<&str> {
        self.payload.get("batch").and_then(|b| b.as_str())
    }
}

/// One row to append to the decision log.
#[derive(Debug, Clone, PartialEq)]
pub enum LogEntry {
    /// A decision on a document set, in its stored form (see [`LogEntry::decide`]).
    Decision {
        action: String,
        target: Vec<i64>,
        payload: Value,
    },
    /// Undo the decision row with this id.
    Undo(i64),
    /// Redo the undo row with this id.
    Redo(i64),
}

impl LogEntry {
    /// A decision given by its stored action name and payload (checked when appended).
    pub fn decision(action: &str, target: &[i64], payload: Value) -> LogEntry {
        LogEntry::Decision {
            action: action.to_string(),
            target: target.to_vec(),
            payload,
        }
    }

    /// A typed decision on `target`, with the batch token of its key press if it was made
    /// on several sets at once.
    pub fn decide(decision: &Decision, target: &[i64], batch: Option<&str>) -> LogEntry {
        LogEntry::Decision {
            action: decision.action().to_string(),
            target: target.to_vec(),
            payload: with_batch(decision.payload(), batch),
        }
    }
}

/// Sorted, deduplicated ids as one key: the `target` text of the log and of the labels.
pub fn set_key(ids: &[i64]) -> String {
    let set: BTreeSet<i64> = ids.iter().copied().collect();
    set.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The ids of a key written by [`set_key`].
pub fn parse_set_key(key: &str) -> Vec<i64> {
    key.split(',').filter_map(|s| s.parse().ok()).collect()
}

/// The decisions in force: a decision is active unless its latest undo has not been
/// redone. `log` is one coder's log (or the rows of one set) in id order.
pub fn active_decisions(log: &[DecisionRow]) -> Vec<&DecisionRow> {
    let mut undone: BTreeSet<i64> = BTreeSet::new();
    let by_id: HashMap<i64, &DecisionRow> = log.iter().map(|d| (d.id, d)).collect();
    for d in log {
        match (d.action.as_str(), d.undoes) {
            ("undo", Some(t)) => {
                undone.insert(t);
            }
            ("redo", Some(u)) => {
                if let Some(t) = by_id.get(&u).and_then(|u| u.undoes) {
                    undone.remove(&t);
                }
            }
            _ => {}
        }
    }
    log.iter()
        .filter(|d| d.is_decision() && !undone.contains(&d.id))
        .collect()
}

/// The label of a document set from the log rows naming exactly that set (decisions, and
/// the undo and redo rows, which name the set of the row they reverse), in id order, with
/// the id of the last decision in force; None when no decision on the set is in force.
pub fn label_of(rows: &[DecisionRow]) -> Option<(Label, i64)> {
    let active = active_decisions(rows);
    let last = active.last()?.id;
    let mut label = Label::default();
    for d in active {
        if let Some(decision) = d.decision() {
            decision.apply_to(&mut label);
        }
    }
    Some((label, last))
}

/// The last verdict in force among the rows of one set, with its row id.
pub fn last_verdict(rows: &[DecisionRow]) -> Option<(i64, Decision)> {
    active_decisions(rows)
        .into_iter()
        .rev()
        .find_map(|d| Some((d.id, d.decision().filter(|x| x.verdict().is_some())?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LabelStatus;
    use serde_json::json;

    fn row(id: i64, action: &str, payload: Value, undoes: Option<i64>) -> DecisionRow {
        DecisionRow {
            id,
            coder: "c".into(),
            time: String::new(),
            action: action.into(),
            target: vec![1, 2],
            payload,
            previous: json!({}),
            undoes,
        }
    }

    #[test]
    fn an_undo_takes_a_decision_out_of_force_and_a_redo_puts_it_back() {
        let mut log = vec![
            row(1, "confirm", json!({}), None),
            row(2, "tag", json!({"tag": "t"}), None),
            row(3, "undo", json!({}), Some(1)),
        ];
        let (label, last) = label_of(&log).unwrap();
        assert_eq!(label.status, LabelStatus::Unreviewed);
        assert_eq!((label.tags.clone(), last), (vec!["t".to_string()], 2));
        assert!(last_verdict(&log).is_none());
        log.push(row(4, "redo", json!({}), Some(3)));
        let (label, _) = label_of(&log).unwrap();
        assert_eq!(label.status, LabelStatus::Confirmed);
        assert_eq!(last_verdict(&log).map(|(id, _)| id), Some(1));
        log.push(row(5, "undo", json!({}), Some(2)));
        log.push(row(6, "undo", json!({}), Some(1)));
        assert_eq!(label_of(&log), None, "nothing in force: no label at all");
    }

    #[test]
    fn keys_are_sorted_and_deduplicated() {
        assert_eq!(set_key(&[3, 1, 3, 2]), "1,2,3");
        assert_eq!(parse_set_key("1,2,3"), vec![1, 2, 3]);
        let e = LogEntry::decide(&Decision::Confirm, &[2, 1], Some("b"));
        assert_eq!(
            e,
            LogEntry::decision("confirm", &[2, 1], json!({"batch": "b"}))
        );
    }
}
