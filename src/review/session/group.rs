//! The group view of the open entry: its members as a table (see `review::group`), opened
//! from the queue or the cluster screen. Its cursor is the cluster screen's current member,
//! so a verdict, a split or a pair opened from it acts as in the cluster screen. The table
//! (every member's text read and diffed) is built by the background worker: the view opens
//! at once, says "computing…" until it arrives, and keeps the tables it built. Opened from
//! the queue, the entry's members are read first (`cluster`), then the table asked for.

use anyhow::Result;

use super::{Mode, Session};
use crate::review::background::{Job, Output};
use crate::review::group::GroupTable;

/// Which table a group job builds: the entry and its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct GroupKey {
    entry: i64,
    members: Vec<i64>,
}

/// Group tables kept per session (each a few hundred bytes per member).
const GROUP_TABLES_KEPT: usize = 32;

impl Session {
    /// Shows the current entry (queue) or the open one (cluster screen) as a group table;
    /// from the group view, goes back to the cluster screen.
    pub fn toggle_group_view(&mut self) -> Result<()> {
        match self.mode() {
            Mode::Group => {
                self.back();
                if self.mode() != Mode::Cluster && self.cluster.is_some() {
                    self.push(Mode::Cluster);
                }
                return Ok(());
            }
            Mode::Queue => {
                let Some(row) = self.current_row() else {
                    return Ok(());
                };
                self.open_cluster(row)?;
            }
            Mode::Cluster => {}
            _ => return Ok(()),
        }
        self.push(Mode::Group);
        self.build_group_table();
        Ok(())
    }

    /// The open entry's group table: from the tables built before, else built by the
    /// background worker (the members' texts, the one the entry's detectors read, and
    /// capture dates), the view showing "computing…" meanwhile.
    pub(super) fn build_group_table(&mut self) {
        let kind = self.proposing_text();
        let Some(c) = &self.cluster else {
            return;
        };
        if c.is_loading() {
            // Asked for when the members arrive (`Session::apply_entry`).
            self.message = format!(
                "reading the {} members, then computing how each differs from the earliest capture…",
                c.row.size
            );
            return;
        }
        let key = GroupKey {
            entry: c.row.cluster,
            members: c.members.iter().map(|m| m.id).collect(),
        };
        let fallback = c.members.get(c.anchor).map_or(0, |m| m.id);
        // A kept table fits unless it had no dates and was compared with another anchor.
        let kept = self
            .group_tables
            .iter()
            .find(|(k, t)| *k == key && (t.source.is_some() || t.anchor == fallback));
        if let Some((_, table)) = kept {
            let table = table.clone();
            self.show_group_table(table);
            return;
        }
        if self.jobs.group.as_ref().is_some_and(|(_, k)| *k == key) {
            return;
        }
        let job = Job::Group {
            members: c.members.iter().map(|m| (m.id, m.url.clone())).collect(),
            kind,
            fallback_anchor: fallback,
        };
        self.message = format!(
            "computing how each of the {} members differs from the earliest capture…",
            key.members.len()
        );
        self.jobs.group = Some((self.background.worker.submit(job), key));
    }

    /// Takes the group table the worker built: kept, and shown if its entry is still open
    /// in the group view.
    pub(super) fn apply_group_result(&mut self, result: Result<Output>) -> bool {
        let Some((_, key)) = self.jobs.group.take() else {
            return false;
        };
        let table = match result {
            Ok(Output::Group(table)) => table,
            Ok(_) => return false,
            Err(e) => {
                self.message = format!("cannot build the group table: {e:#}");
                return true;
            }
        };
        let open = self.cluster.as_ref().is_some_and(|c| {
            c.row.cluster == key.entry
                && c.members.len() == key.members.len()
                && c.members
                    .iter()
                    .zip(&key.members)
                    .all(|(m, id)| m.id == *id)
        });
        self.group_tables.retain(|(k, _)| *k != key);
        if self.group_tables.len() >= GROUP_TABLES_KEPT {
            self.group_tables.remove(0);
        }
        self.group_tables.push((key, table.clone()));
        // A table arriving after the coder left the view only waits in the kept tables.
        let shown = open && self.mode() == Mode::Group;
        if shown {
            self.show_group_table(table);
        }
        shown
    }

    /// Puts `table` on the open entry: the anchor becomes the likely source, the cursor the
    /// first copy.
    fn show_group_table(&mut self, table: GroupTable) {
        if let Some(c) = &mut self.cluster {
            if let Some(a) = c.members.iter().position(|m| m.id == table.anchor) {
                c.anchor = a;
            }
            // The first row that is not the anchor.
            let first = table.rows.iter().find(|r| r.id != table.anchor);
            if let Some(i) = first.and_then(|r| c.members.iter().position(|m| m.id == r.id)) {
                c.cursor = i;
            }
            self.message = match table.source {
                Some(id) => format!(
                    "document {id} is the earliest capture (the likely source): copies are compared with it · y confirms the story · s splits the current copy off"
                ),
                None => "no capture dates: copies are compared with the anchor".to_string(),
            };
            c.table = Some(table);
        }
    }

    /// Cycles the group table's order (date, site, length); the cursor stays on its member.
    pub fn cycle_group_sort(&mut self) {
        if let Some(t) = self.cluster.as_mut().and_then(|c| c.table.as_mut()) {
            let next = t.sort.next();
            t.sort_by(next);
            self.message = format!("sorted by {}", next.name());
        }
    }

    /// Moves the group view's cursor by `delta` rows of the table.
    pub(super) fn move_group_cursor(&mut self, delta: i64) {
        let Some(c) = &mut self.cluster else {
            return;
        };
        let Some(t) = &c.table else {
            return;
        };
        let current = c.members.get(c.cursor).map_or(0, |m| m.id);
        let at = t.position(current).unwrap_or(0) as i64;
        let to = (at + delta).clamp(0, (t.rows.len() as i64 - 1).max(0)) as usize;
        if let Some(id) = t.rows.get(to).map(|r| r.id) {
            if let Some(i) = c.members.iter().position(|m| m.id == id) {
                c.cursor = i;
            }
        }
    }
}
