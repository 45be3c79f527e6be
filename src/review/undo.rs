//! The undo and redo stacks of one coder, rebuilt from the decision log so they survive a
//! restart. Decisions made in one batch (tag a selection, confirm a selection) share a
//! `batch` token in their payload and are undone and redone together.

use crate::store::DecisionRow;

/// Stacks of decision rows: `undo` holds decisions in force (newest last), `redo` holds the
/// undo rows that can be redone (newest last).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UndoStack {
    pub undo: Vec<DecisionRow>,
    pub redo: Vec<DecisionRow>,
}

fn batch_of(d: &DecisionRow) -> Option<&str> {
    d.payload.get("batch").and_then(|b| b.as_str())
}

impl UndoStack {
    /// Replays one coder's log (in id order).
    pub fn from_log(log: &[DecisionRow]) -> UndoStack {
        let mut s = UndoStack::default();
        for d in log {
            match d.action.as_str() {
                "undo" => {
                    if let Some(pos) = s.undo.iter().rposition(|x| Some(x.id) == d.undoes) {
                        s.undo.remove(pos);
                        s.redo.push(d.clone());
                    }
                }
                "redo" => {
                    if let Some(pos) = s.redo.iter().rposition(|x| Some(x.id) == d.undoes) {
                        let undo_row = s.redo.remove(pos);
                        if let Some(orig) = log.iter().find(|x| Some(x.id) == undo_row.undoes) {
                            s.undo.push(orig.clone());
                        }
                    }
                }
                _ => {
                    s.undo.push(d.clone());
                    s.redo.clear();
                }
            }
        }
        s
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

    /// The undo rows the next redo step redoes, newest first (redo them in this order, so
    /// the oldest decision ends on top of the undo stack last... order does not matter for
    /// labels of distinct targets, and a batch never names one target twice).
    pub fn next_redo<'a>(&'a self, log: &'a [DecisionRow]) -> Vec<&'a DecisionRow> {
        let batch = |undo_row: &DecisionRow| -> Option<String> {
            log.iter()
                .find(|x| Some(x.id) == undo_row.undoes)
                .and_then(|o| batch_of(o).map(str::to_string))
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
                .take_while(|d| batch(d).as_deref() == Some(b.as_str()))
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
        let redo: Vec<i64> = s.next_redo(&log).iter().map(|d| d.id).collect();
        assert_eq!(redo, vec![5, 4]);
        log.push(row(6, "redo", Some(5), None));
        let s = UndoStack::from_log(&log);
        assert_eq!(s.undo.iter().map(|d| d.id).collect::<Vec<_>>(), vec![1, 2]);
        log.push(row(7, "reject", None, None));
        let s = UndoStack::from_log(&log);
        assert!(s.redo.is_empty(), "a new decision clears the redo stack");
    }
}
