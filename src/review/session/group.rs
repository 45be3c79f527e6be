//! The group view of the open entry: its members as a table (see `review::group`), opened
//! from the queue or the cluster screen. Its cursor is the cluster screen's current member,
//! so a verdict, a split or a pair opened from it acts as in the cluster screen.

use anyhow::Result;

use super::{Mode, Session};
use crate::review::group::{GroupMember, GroupTable};
use crate::review::sanitize::sanitize_line;

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
                let Some(row) = self.current_row()? else {
                    return Ok(());
                };
                self.open_cluster(row)?;
            }
            Mode::Cluster => {}
            _ => return Ok(()),
        }
        self.build_group_table()?;
        self.push(Mode::Group);
        Ok(())
    }

    /// Reads the members' texts (the one the entry's detectors read) and capture dates and
    /// builds the table; the anchor becomes the likely source, the cursor the first copy.
    fn build_group_table(&mut self) -> Result<()> {
        let kind = self.proposing_text();
        let Some(c) = &self.cluster else {
            return Ok(());
        };
        let ids: Vec<i64> = c.members.iter().map(|m| m.id).collect();
        let dates = self.store.capture_dates(&ids)?;
        let mut members = Vec::with_capacity(ids.len());
        for m in &c.members {
            members.push(GroupMember {
                id: m.id,
                url: m.url.clone(),
                captured: dates.get(&m.id).map(|d| sanitize_line(d)),
                text: self.store.doc_text(m.id, kind)?.unwrap_or_default(),
            });
        }
        let fallback = c.members.get(c.anchor).map_or(0, |m| m.id);
        let table = GroupTable::build(&members, fallback);
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
        Ok(())
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
