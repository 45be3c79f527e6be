//! The undo and redo stacks of one coder, rebuilt from the decision log so they survive a
//! restart. Decisions made in one batch (tag a selection, confirm a selection) share a
//! `batch` token in their payload and are undone and redone together.

use std::collections::HashMap;

use crate::model::DecisionRow;

/// Stacks of decision rows: `undo` holds decisions in force (newest last), `redo` holds the
/// undo rows that can be redone (newest last).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UndoStack {
    pub undo: Vec<DecisionRow>,
    pub redo: Vec<DecisionRow>,
    /// The decision each undo row on the redo stack reverted, by the undo row's id.
    originals: HashMap<i64, DecisionRow>,
}

fn batch_of(d: &DecisionRow) -> Option<&str> {
    d.batch()
}

impl UndoStack {
    /// Replays one coder's log (in id order).
    pub fn from_log(log: &[DecisionRow]) -> UndoStack {
        let mut s = UndoStack::default();
        s.push_rows(log);
        s
    }

    /// Takes rows just appended to the coder's log (in id order), as a replay of the whole
    /// log would.
    pub fn push_rows(&mut self, rows: &[DecisionRow]) {
        for d in rows {
            match d.action.as_str() {
                "undo" => {
                    if let Some(pos) = self.undo.iter().rposition(|x| Some(x.id) == d.undoes) {
                        let original = self.undo.remove(pos);
                        self.originals.insert(d.id, original);
                        self.redo.push(d.clone());
                    }
                }
                "redo" => {
                    if let Some(pos) = self.redo.iter().rposition(|x| Some(x.id) == d.undoes) {
                        let undo_row = self.redo.remove(pos);
                        if let Some(original) = self.originals.remove(&undo_row.id) {
                            self.undo.push(original);
                        }
                    }
                }
                _ => {
                    self.undo.push(d.clone());
                    self.redo.clear();
                    self.originals.clear();
                }
            }
        }
    }

    /// The decisions the next undo step reverts, newest first.
    pub fn next_undo(&self) -> Vec<&DecisionRow> {
        let Some(top) = self.undo.last() else {
            return Vec::new();
        };
        match batch_of(top) {
            None => vec![top],
            Some(b) => self
                .undo
                .iter()
                .rev()
                .take_while(|d| batch_of(d) == Some(b))
                .collect(),
        }
    }

    /// The undo rows the next redo step redoes, newest first (redo them oldest first; the
    /// order does not matter for labels of distinct targets, and a batch never names one
    /// target twice).
    pub fn next_redo(&self) -> Vec<&DecisionRow> {
        let batch = |undo_row: &DecisionRow| -> Option<&str> {
            self.originals.get(&undo_row.id).and_then(batch_of)
        };
        let Some(top) = self.redo.last() else {
            return Vec::new();
        };
        match batch(top) {
            None => vec![top],
            Some(b) => self
                .redo
                .iter()
                .rev()
                .take_while(|d| batch(d) == Some(b))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(id: i64, action: &str, undoes: Option<i64>, batch: Option<&str>) -> DecisionRow {
        DecisionRow {
            id,
            coder: "c".into(),
            time: String::new(),
            action: action.into(),
            target: vec![id],
            payload: batch.map_or(json!({}), |b| json!({ "batch": b })),
            previous: json!({}),
            undoes,
        }
    }

    #[test]
    fn stacks_follow_undo_redo_and_new_decisions() {
        let mut log = vec![
            row(1, "confirm", None, None),
            row(2, "tag", None, Some("b1")),
            row(3, "tag", None, Some("b1")),
        ];
        let s = UndoStack::from_log(&log);
        let ids: Vec<i64> = s.next_undo().iter().map(|d| d.id).collect();
        assert_eq!(ids, vec![3, 2], "a batch is one step");
        log.push(row(4, "undo", Some(3), None));
        log.push(row(5, "undo", Some(2), None));
        let s = UndoStack::from_log(&log);
        assert_eq!(s.undo.len(), 1);
        let redo: Vec<i64> = s.next_redo().iter().map(|d| d.id).collect();
        assert_eq!(redo, vec![5, 4]);
        // The same stacks, kept up to date row by row.
        let mut kept = UndoStack::from_log(&log[..3]);
        kept.push_rows(&log[3..]);
        assert_eq!(kept, s);
        log.push(row(6, "redo", Some(5), None));
        let s = UndoStack::from_log(&log);
        assert_eq!(s.undo.iter().map(|d| d.id).collect::<Vec<_>>(), vec![1, 2]);
        log.push(row(7, "reject", None, None));
        let s = UndoStack::from_log(&log);
        assert!(s.redo.is_empty(), "a new decision clears the redo stack");
        let mut kept = UndoStack::from_log(&log[..5]);
        kept.push_rows(&log[5..6]);
        kept.push_rows(&log[6..]);
        assert_eq!(kept, s);
    }
}
