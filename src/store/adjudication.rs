//! Adjudication on disk: the pairs coders disagree on with every coder's verdict and note,
//! an adjudicator's final decision (an ordinary decision on the two-document set, logged
//! under the coder key `adjudicator:NAME`, see `model::adjudication`), and the coders'
//! agreement before and after adjudication. Adjudicators are never coders of the
//! agreement tables.

use std::collections::HashMap;

use anyhow::{bail, Result};
use rusqlite::params;
use serde_json::json;

use super::Store;
use crate::model::adjudication::{
    adjudicator_key, agreement_before_after, consensus, is_adjudicator, AdjudicatedAgreement,
    CoderVerdict, Consensus, Disagreement, ADJUDICATOR_PREFIX,
};
use crate::model::{LogEntry, PairLabel};

/// SQL true for a coder key that is not an adjudicator's (`c`: the column).
fn not_adjudicator(c: &str) -> String {
    format!(
        "substr({c}, 1, {}) != '{ADJUDICATOR_PREFIX}'",
        ADJUDICATOR_PREFIX.len()
    )
}

impl Store {
    /// The pairs (a < b) that one coder labels same and another different (adjudicators
    /// aside), adjudicated or not, by (a, b).
    pub fn disputed_pairs(&self) -> Result<Vec<(i64, i64)>> {
        let sql = format!(
            "SELECT x.a, x.b FROM pair_labels x JOIN pair_labels y ON y.a = x.a AND y.b = x.b
             WHERE x.label = 'same' AND y.label = 'different' AND {} AND {}
             GROUP BY x.a, x.b ORDER BY x.a, x.b",
            not_adjudicator("x.coder"),
            not_adjudicator("y.coder")
        );
        let mut st = self.conn().prepare(&sql)?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every coder's and adjudicator's verdict on pair (a, b), by coder key: the label, the
    /// decision that set it, and the note on that decision's document set.
    pub fn pair_verdicts(&self, a: i64, b: i64) -> Result<Vec<CoderVerdict>> {
        let (a, b) = (a.min(b), a.max(b));
        let mut st = self.conn().prepare_cached(
            "SELECT p.coder, p.label, p.decision_id, d.action, d.target, l.note
             FROM pair_labels p JOIN decisions d ON d.id = p.decision_id
             LEFT JOIN labels l ON l.coder = p.coder AND l.target = d.target
             WHERE p.a = ?1 AND p.b = ?2 ORDER BY p.coder",
        )?;
        let rows = st.query_map(params![a, b], |r| {
            let target: String = r.get(4)?;
            Ok(CoderVerdict {
                coder: r.get(0)?,
                label: PairLabel::parse(&r.get::<_, String>(1)?),
                decision: r.get(2)?,
                action: r.get(3)?,
                set_size: target.split(',').count(),
                note: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The disputed pairs with every verdict (see [`Store::disputed_pairs`]); with
    /// `open_only`, only those no adjudicator has settled.
    pub fn disagreements(&self, open_only: bool) -> Result<Vec<Disagreement>> {
        let mut out = Vec::new();
        for (a, b) in self.disputed_pairs()? {
            let (adjudications, coders) = self
                .pair_verdicts(a, b)?
                .into_iter()
                .partition(|v| is_adjudicator(&v.coder));
            let d = Disagreement {
                a,
                b,
                coders,
                adjudications,
            };
            if !(open_only && d.adjudicated().is_some()) {
                out.push(d);
            }
        }
        Ok(out)
    }

    /// Records adjudicator `name`'s final label of pair (a, b) (same or different), with an
    /// optional note, as decisions of `adjudicator:NAME` on the two-document set, and
    /// writes their labels. Returns the verdict's log id.
    pub fn adjudicate(
        &mut self,
        name: &str,
        a: i64,
        b: i64,
        label: PairLabel,
        note: Option<&str>,
    ) -> Result<i64> {
        let (coder, entries) = self.adjudication_entries(name, a, b, label, note)?;
        let rows = self.append_to_log(&coder, entries)?;
        self.materialize_pending()?;
        match rows.first() {
            Some(r) => Ok(r.row.id),
            None => bail!("nothing was appended"),
        }
    }

    /// The log entries (and the coder key) of an adjudication, checked: a name, two
    /// different documents of the database, same or different. The workbench appends
    /// them behind its label writer; [`Store::adjudicate`] writes them at once.
    pub fn adjudication_entries(
        &self,
        name: &str,
        a: i64,
        b: i64,
        label: PairLabel,
        note: Option<&str>,
    ) -> Result<(String, Vec<LogEntry>)> {
        if name.trim().is_empty() {
            bail!("the adjudicator needs a name");
        }
        if a == b {
            bail!("a pair needs two different documents, got {a} twice");
        }
        let known: i64 = self.conn().query_row(
            "SELECT count(*) FROM documents WHERE id IN (?1, ?2)",
            params![a, b],
            |r| r.get(0),
        )?;
        if known != 2 {
            bail!("no such pair: documents {a} and {b} are not both in the database");
        }
        let action = match label {
            PairLabel::Same => "confirm",
            PairLabel::Different => "reject",
            PairLabel::Unsure => bail!("an adjudication is same or different, not unsure"),
        };
        let target = [a.min(b), a.max(b)];
        let mut entries = vec![LogEntry::decision(action, &target, json!({}))];
        if let Some(n) = note.filter(|n| !n.trim().is_empty()) {
            entries.push(LogEntry::decision("note", &target, json!({ "note": n })));
        }
        Ok((adjudicator_key(name), entries))
    }

    /// The adjudicated label of every pair an adjudicator decided (adjudicators who
    /// disagree with each other settle nothing).
    fn adjudicated_labels(&self) -> Result<HashMap<(i64, i64), PairLabel>> {
        let sql = format!(
            "SELECT a, b, coder, label FROM pair_labels WHERE NOT ({}) ORDER BY a, b",
            not_adjudicator("coder")
        );
        let mut st = self.conn().prepare(&sql)?;
        let mut rows = st.query([])?;
        let mut by_pair: HashMap<(i64, i64), Vec<(String, PairLabel)>> = HashMap::new();
        while let Some(r) = rows.next()? {
            by_pair
                .entry((r.get(0)?, r.get(1)?))
                .or_default()
                .push((r.get(2)?, PairLabel::parse(&r.get::<_, String>(3)?)));
        }
        Ok(by_pair
            .into_iter()
            .filter_map(|(k, v)| match consensus(&v) {
                Consensus::Adjudicated(l) => Some((k, l)),
                _ => None,
            })
            .collect())
    }

    /// The coders (adjudicators aside), sorted.
    pub fn coders_only(&self) -> Result<Vec<String>> {
        Ok(self
            .coders()?
            .into_iter()
            .filter(|c| !is_adjudicator(c))
            .collect())
    }

    /// Kappa of every pair of coders (adjudicators aside) before and after adjudication.
    pub fn adjudicated_agreements(&self) -> Result<Vec<AdjudicatedAgreement>> {
        let adjudicated = self.adjudicated_labels()?;
        let coders = self.coders_only()?;
        let mut st = self.conn().prepare(
            "SELECT x.a, x.b, x.label, y.label FROM pair_labels x JOIN pair_labels y
               ON y.a = x.a AND y.b = x.b AND y.coder = ?2
             WHERE x.coder = ?1",
        )?;
        let mut out = Vec::new();
        for (i, ca) in coders.iter().enumerate() {
            for cb in &coders[i + 1..] {
                let mut shared = Vec::new();
                let mut rows = st.query(params![ca, cb])?;
                while let Some(r) = rows.next()? {
                    let key: (i64, i64) = (r.get(0)?, r.get(1)?);
                    shared.push((
                        PairLabel::parse(&r.get::<_, String>(2)?),
                        PairLabel::parse(&r.get::<_, String>(3)?),
                        adjudicated.get(&key).copied(),
                    ));
                }
                out.push(agreement_before_after(ca, cb, shared));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store, Vec<i64>) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("adj.db")).unwrap();
        let ids = (0..4)
            .map(|i| {
                s.insert_test_document(&format!("u{i}"), "", &format!("text {i}"), None)
                    .unwrap()
            })
            .collect();
        (dir, s, ids)
    }

    #[test]
    fn disagreements_list_every_verdict_and_an_adjudication_settles_them() {
        let (_d, mut s, ids) = store();
        // Ann confirms a three-document set with a note; Bob splits off the third and
        // rejects the first pair directly: pairs (0,1) and (0,2), (1,2) are disputed.
        s.record_decision("ann", "confirm", &ids[..3], json!({}))
            .unwrap();
        s.record_decision("ann", "note", &ids[..3], json!({"note": "one wire story"}))
            .unwrap();
        s.record_decision("bob", "reject", &ids[..2], json!({}))
            .unwrap();
        s.record_decision(
            "bob",
            "split",
            &ids[1..3],
            json!({"groups": [[ids[1]], [ids[2]]]}),
        )
        .unwrap();
        s.record_decision("bob", "confirm", &ids[2..4], json!({}))
            .unwrap();
        let open = s.disagreements(true).unwrap();
        assert_eq!(
            open.iter().map(|d| (d.a, d.b)).collect::<Vec<_>>(),
            vec![(ids[0], ids[1]), (ids[1], ids[2])]
        );
        let first = &open[0];
        assert_eq!(first.coders.len(), 2);
        assert_eq!(first.coders[0].coder, "ann");
        assert_eq!(first.coders[0].label, PairLabel::Same);
        assert_eq!(first.coders[0].set_size, 3);
        assert_eq!(first.coders[0].note.as_deref(), Some("one wire story"));
        assert_eq!(first.coders[1].action, "reject");
        assert!(first.adjudications.is_empty());

        let before = s.adjudicated_agreements().unwrap();
        assert_eq!(before.len(), 1);
        assert_eq!((before[0].disagreed, before[0].resolved), (2, 0));

        s.adjudicate(
            "lead",
            ids[1],
            ids[0],
            PairLabel::Different,
            Some("templates"),
        )
        .unwrap();
        let open = s.disagreements(true).unwrap();
        assert_eq!(open.len(), 1);
        let all = s.disagreements(false).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].adjudicated(), Some(PairLabel::Different));
        assert_eq!(all[0].adjudications[0].coder, "adjudicator:lead");
        assert_eq!(all[0].adjudications[0].note.as_deref(), Some("templates"));
        // The adjudicator is no coder of the agreement table.
        assert_eq!(s.coders_only().unwrap(), vec!["ann", "bob"]);
        let after = s.adjudicated_agreements().unwrap();
        assert_eq!(after.len(), 1);
        assert_eq!((after[0].disagreed, after[0].resolved), (2, 1));
        assert_eq!(after[0].after.agreed, after[0].before.agreed + 1);

        assert!(s
            .adjudicate("lead", ids[0], ids[0], PairLabel::Same, None)
            .is_err());
        assert!(s
            .adjudicate("lead", ids[0], 999, PairLabel::Same, None)
            .is_err());
        assert!(s
            .adjudicate("lead", ids[0], ids[1], PairLabel::Unsure, None)
            .is_err());
        assert!(s
            .adjudicate(" ", ids[0], ids[1], PairLabel::Same, None)
            .is_err());
    }
}
