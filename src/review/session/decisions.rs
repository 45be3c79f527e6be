//! Decisions: confirm, reject, unsure, split (by selection, by prepared groups, or cut at
//! the weakest bridge), tags and notes, undo and redo — each built as a typed
//! [`Decision`], committed to the log at the key press and shown at once while its labels
//! are written (see `saving`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::{Context, Result};

use super::saving::{clean_label, Optimistic};
use super::waiting::KeyWait;
use super::{Mode, Session};
use crate::model::{set_key, Decision, DecisionRow, Label, LogEntry, QueueRow};
use crate::review::background::Job;
use crate::review::sanitize::sanitize_line;
use crate::review::writer::Saved;
use crate::store::ClusterReview;

impl Session {
    /// Turns auto-advance after verdicts on or off (the header shows it when off).
    pub fn toggle_auto_advance(&mut self) {
        self.auto_advance = !self.auto_advance;
        self.message = if self.auto_advance {
            "auto-advance on: a verdict moves on to the next entry".into()
        } else {
            "auto-advance off: a verdict stays on the entry".into()
        };
    }

    pub fn undo_depth(&self) -> (usize, usize) {
        (self.undo.undo.len(), self.undo.redo.len())
    }

    pub(super) fn new_batch(&mut self) -> String {
        self.batch_counter += 1;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{nanos:x}-{}", self.batch_counter)
    }

    /// Records `decision` on each target (one undo step for all: several targets share a
    /// batch token).
    pub(super) fn record(&mut self, decision: &Decision, targets: Vec<Vec<i64>>) -> Result<usize> {
        let batch = (targets.len() > 1).then(|| self.new_batch());
        let entries: Vec<LogEntry> = targets
            .iter()
            .map(|t| LogEntry::decide(decision, t, batch.as_deref()))
            .collect();
        Ok(self.append(entries)?.len())
    }

    /// Commits `entries` to the log (durable when this returns), shows them at once and
    /// hands their derived labels to the writer thread.
    pub(super) fn append(&mut self, entries: Vec<LogEntry>) -> Result<Vec<DecisionRow>> {
        let appended = {
            // Ahead of the writer's next step: a key waits at most for one step of it.
            let _gate = self.saves.writer.gate().urgent();
            // A failure here (a full disk, a lock held past the busy timeout) loses only
            // this key press: the coder is told it was not saved, and where.
            let n = entries.len();
            self.store
                .append_to_log(&self.coder, entries)
                .with_context(|| {
                    format!(
                        "not saved ({n} decision(s) not recorded, earlier ones are): cannot write to {}",
                        self.store.path().display()
                    )
                })?
        };
        let mut rows = Vec::with_capacity(appended.len());
        for a in appended {
            self.saves.pending.insert(a.row.id);
            let after = clean_label(a.label);
            self.saves
                .optimistic
                .entry(set_key(&a.row.target))
                .and_modify(|o| o.after = after.clone())
                .or_insert_with(|| Optimistic {
                    before: clean_label(Label::from_json(&a.row.previous)),
                    after,
                });
            rows.push(a.row);
        }
        self.undo.push_rows(&rows);
        if self.saves.writer.poke().is_err() {
            // No thread: write the labels here rather than never.
            self.store.materialize_pending()?;
            if let Some(last) = rows.last() {
                self.apply_saved(vec![Saved::Idle(last.id)]);
            }
        }
        self.refresh_open_cluster();
        Ok(rows)
    }

    /// Shows the decisions still being saved on the open entry at once, and asks the
    /// worker for its status, tags and note as the store has them (laid under the same
    /// decisions when they land, see [`Session::apply_cluster_status`]).
    pub(super) fn refresh_open_cluster(&mut self) {
        let Some(c) = &mut self.cluster else {
            return;
        };
        if let Some(o) = self.saves.optimistic.get(&set_key(&c.row.members)) {
            o.apply(&mut c.row);
            if o.before.note != o.after.note {
                c.note = o.after.note.clone();
            }
        }
        c.refreshed = true;
        let job = Job::ClusterStatus {
            coder: self.coder.clone(),
            run_id: c.row.run_id,
            cluster: c.row.cluster,
        };
        self.jobs.status = Some(self.background.worker.submit(job));
    }

    /// The open entry's status, tags and note as the worker read them (with the decisions
    /// still being saved shown); false if another entry is open now.
    pub(super) fn apply_cluster_status(&mut self, cluster: i64, r: ClusterReview) -> bool {
        let Some(c) = &mut self.cluster else {
            return false;
        };
        if c.row.cluster != cluster {
            return false;
        }
        c.row.status = r.status;
        c.row.labeled = r.labeled;
        c.row.pairs = r.pairs;
        c.row.tags = r.tags.iter().map(|t| sanitize_line(t)).collect();
        c.note = r.note.as_deref().map(sanitize_line);
        c.refreshed = true;
        if let Some(o) = self.saves.optimistic.get(&set_key(&c.row.members)) {
            o.apply(&mut c.row);
            if o.before.note != o.after.note {
                c.note = o.after.note.clone();
            }
        }
        true
    }

    /// After a verdict on a whole cluster, go back to the queue, on the next cluster — or,
    /// with auto-advance off, stay where the verdict was given.
    pub(super) fn advance_after_verdict(&mut self) {
        if !self.auto_advance {
            return;
        }
        while self.mode() != Mode::Queue {
            self.back();
        }
        if self.filter.status.is_none() {
            self.cursor = (self.cursor + 1).min(self.queue_len.saturating_sub(1));
        }
    }

    /// The coder's answer to the consequence prompt: `yes` records the pending decision
    /// (and moves on, as a verdict does); anything else drops it.
    pub fn answer_pending(&mut self, yes: bool) -> Result<()> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        if !yes {
            self.message = format!("cancelled: {}", p.consequence);
            return Ok(());
        }
        self.record(&p.decision, vec![p.target])?;
        self.message = format!("{}: done", p.consequence);
        self.advance_after_verdict();
        Ok(())
    }

    /// A verdict on the whole of what the current screen points at (confirm, reject or
    /// unsure; a split needs the groups, see [`Session::split`]). On an entry it is
    /// recorded once the worker has read what it would change, and asked about first when
    /// it labels many pairs or changes stored labels (`waiting`).
    pub fn decide(&mut self, decision: Decision) -> Result<()> {
        let action = decision.action();
        match self.mode() {
            Mode::Queue => {
                if !self.selection.is_empty() {
                    let targets: Vec<Vec<i64>> = self.selection.values().cloned().collect();
                    let n = self.record(&decision, targets)?;
                    self.clear_selection();
                    self.message = format!("{action}: {n} selected clusters");
                    return Ok(());
                }
                let Some(row) = self.current_row() else {
                    return Ok(());
                };
                let done = format!("{action}: entry {} ({})", row.cluster, row.method);
                self.verdict(decision, row.members, done);
            }
            Mode::Cluster | Mode::Group => {
                let Some(c) = &self.cluster else {
                    return Ok(());
                };
                let (members, no) = (c.row.members.clone(), c.row.cluster);
                self.verdict(decision, members, format!("{action}: cluster {no}"));
            }
            Mode::Pair => {
                let Some(p) = &self.pair else {
                    return Ok(());
                };
                let pair = vec![p.left.doc_id, p.right.doc_id];
                self.record(&decision, vec![pair.clone()])?;
                self.message = format!("{action}: pair {} / {}", pair[0], pair[1]);
            }
            // The adjudication screen records final labels with its own keys.
            Mode::Help | Mode::Chart | Mode::Adjudicate => {}
        }
        Ok(())
    }

    /// Splits the open cluster: the selected members (or the current one) form one group,
    /// the rest another.
    pub fn split(&mut self) -> Result<()> {
        let Some(c) = &self.cluster else {
            return Ok(());
        };
        let out: BTreeSet<i64> = if c.selected.is_empty() {
            let Some(m) = c.members.get(c.cursor) else {
                self.message = super::cluster::STILL_LOADING.into();
                return Ok(());
            };
            std::iter::once(m.id).collect()
        } else {
            c.selected.clone()
        };
        let rest: Vec<i64> = c
            .members
            .iter()
            .map(|m| m.id)
            .filter(|id| !out.contains(id))
            .collect();
        if rest.is_empty() {
            self.message = "split needs members on both sides".into();
            return Ok(());
        }
        let groups = vec![out.into_iter().collect::<Vec<_>>(), rest];
        let members = c.row.members.clone();
        let message = format!("split into {} + {}", groups[0].len(), groups[1].len());
        self.record(&Decision::Split { groups }, vec![members])?;
        self.message = message;
        self.advance_after_verdict();
        Ok(())
    }

    /// Commits the prepared groups as one split decision on the cluster (one undo step).
    pub fn split_groups(&mut self) -> Result<()> {
        let Some(c) = &self.cluster else {
            return Ok(());
        };
        let groups = self.prepared_groups();
        if groups.len() < 2 {
            self.message =
                "a split needs two groups: put members in groups with 1-9 (0: back to the rest)"
                    .into();
            return Ok(());
        }
        let members = c.row.members.clone();
        let sizes: Vec<String> = groups.iter().map(|g| g.len().to_string()).collect();
        let message = format!("split into {} groups ({})", groups.len(), sizes.join(" + "));
        self.record(&Decision::Split { groups }, vec![members])?;
        self.message = message;
        self.advance_after_verdict();
        Ok(())
    }

    /// Cuts the cluster at its weakest bridge: the connected components of the run's pairs
    /// inside the cluster without the bridge edge become the groups of a split. The link
    /// and the pairs are read on the worker; the cut is recorded when they land.
    pub fn cut(&mut self) -> Result<()> {
        let row = match self.mode() {
            Mode::Cluster | Mode::Group => self.cluster.as_ref().map(|c| c.row.clone()),
            _ => self.current_row(),
        };
        let Some(row) = row else {
            return Ok(());
        };
        let job = self
            .background
            .worker
            .submit(Job::CutEdges { entry: row.cluster });
        self.message = format!("cut: reading entry {}'s links…", row.cluster);
        self.key_wait = Some((job, KeyWait::Cut { row }));
        Ok(())
    }

    /// Records the cut of entry `row` at `bridge`, given its merged pairs `edges`.
    pub(super) fn finish_cut(
        &mut self,
        row: &QueueRow,
        bridge: Option<(i64, i64, f64)>,
        edges: &[(i64, i64, f64)],
    ) -> Result<()> {
        let Some((ba, bb, _)) = bridge else {
            self.message = "this entry has no weakest link: every pair of it is on a cycle".into();
            return Ok(());
        };
        let groups = components_without(&row.members, edges, (ba.min(bb), ba.max(bb)));
        if groups.len() < 2 {
            self.message = "the bridge does not split this cluster".into();
            return Ok(());
        }
        let message = format!("cut at {ba}–{bb} into {} groups", groups.len());
        let cut = Decision::Cut {
            groups,
            bridge: (ba, bb),
        };
        self.record(&cut, vec![row.members.clone()])?;
        self.message = message;
        self.advance_after_verdict();
        Ok(())
    }

    /// What a tag or note applies to: the queue selection, else the current cluster.
    pub(super) fn targets_for_label(&mut self) -> Result<Vec<Vec<i64>>> {
        if self.mode() == Mode::Queue {
            if !self.selection.is_empty() {
                return Ok(self.selection.values().cloned().collect());
            }
            return Ok(self.current_row().map(|r| r.members).into_iter().collect());
        }
        Ok(self
            .cluster
            .as_ref()
            .map(|c| c.row.members.clone())
            .into_iter()
            .collect())
    }

    pub fn undo(&mut self) -> Result<()> {
        let ids: Vec<i64> = self.undo.next_undo().iter().map(|d| d.id).collect();
        if ids.is_empty() {
            self.message = "nothing to undo".into();
            return Ok(());
        }
        self.append(ids.iter().map(|id| LogEntry::Undo(*id)).collect())?;
        self.message = format!("undid {} decision(s)", ids.len());
        Ok(())
    }

    pub fn redo(&mut self) -> Result<()> {
        let ids: Vec<i64> = self.undo.next_redo().iter().map(|d| d.id).collect();
        if ids.is_empty() {
            self.message = "nothing to redo".into();
            return Ok(());
        }
        self.append(ids.iter().rev().map(|id| LogEntry::Redo(*id)).collect())?;
        self.message = format!("redid {} decision(s)", ids.len());
        Ok(())
    }
}

/// Connected components of `members` under `edges` minus `removed`; singletons included.
fn components_without(
    members: &[i64],
    edges: &[(i64, i64, f64)],
    removed: (i64, i64),
) -> Vec<Vec<i64>> {
    let index: HashMap<i64, usize> = members.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut parent: Vec<usize> = (0..members.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &(a, b, _) in edges {
        if (a.min(b), a.max(b)) == removed {
            continue;
        }
        if let (Some(&i), Some(&j)) = (index.get(&a), index.get(&b)) {
            let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
            parent[ri] = rj;
        }
    }
    let mut groups: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    for (i, m) in members.iter().enumerate() {
        let r = find(&mut parent, i);
        groups.entry(r).or_default().push(*m);
    }
    let mut out: Vec<Vec<i64>> = groups.into_values().collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_a_bridge_gives_the_two_sides() {
        let edges = [(1, 2, 0.9), (2, 3, 0.4), (3, 4, 0.9)];
        assert_eq!(
            components_without(&[1, 2, 3, 4], &edges, (2, 3)),
            vec![vec![1, 2], vec![3, 4]]
        );
        assert_eq!(
            components_without(&[1, 2], &[], (1, 2)),
            vec![vec![1], vec![2]]
        );
    }
}
