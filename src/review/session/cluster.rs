//! The cluster screen: opening a cluster from the queue, the anchor and the member it is
//! compared with, and the groups of a split being prepared (nothing is recorded until the
//! split is committed, see `decisions`). Opening an entry reads nothing on the UI thread:
//! the screen shows at once what the queue row knows (number, agreement, size, status,
//! scores), and the members, their previews and the weakest link arrive from the
//! background worker (`work`); a result for an entry no longer open is dropped.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::Result;

use super::{Mode, Session};
use crate::model::QueueRow;
use crate::review::background::{EntryLoaded, Job};
use crate::store::{ClusterMember, TextKind};

/// The cluster screen's state.
#[derive(Debug, Clone)]
pub struct ClusterView {
    pub row: QueueRow,
    pub members: Vec<ClusterMember>,
    pub cursor: usize,
    pub top: usize,
    pub anchor: usize,
    pub selected: BTreeSet<i64>,
    /// Members put into groups 1..=9 for a split into several groups (the others form one
    /// more group, "the rest"); nothing is recorded until the split is committed.
    pub groups: BTreeMap<i64, u8>,
    pub bridge: Option<(i64, i64, f64)>,
    pub note: Option<String>,
    /// The start of each member's text, for the side-by-side preview (loaded on demand).
    pub previews: HashMap<i64, String>,
    /// The members as a group table, once the group view was opened.
    pub table: Option<crate::review::group::GroupTable>,
    /// Each member's replay URL (sanitized), when the review has a `--replay-url`.
    pub replay: HashMap<i64, String>,
    /// The background job reading the entry's members, while it runs: until it lands the
    /// members are empty and the screen says so.
    pub loading: Option<u64>,
    /// The background job reading previews the screen lacks, and their ids.
    pub preview_job: Option<(u64, Vec<i64>)>,
    /// Whether the status and note were read again after a decision while the members
    /// were loading (the loaded note is then older and not taken).
    pub(super) refreshed: bool,
    /// `Enter` was pressed while the members were read: the pair opens when they land.
    pub(super) open_when_loaded: bool,
}

impl ClusterView {
    /// Whether the members are still being read.
    pub fn is_loading(&self) -> bool {
        self.loading.is_some()
    }
}

/// What a key that needs the members says while they are being read.
pub(super) const STILL_LOADING: &str = "still reading the entry's members…";

impl Session {
    /// Opens the current cluster (queue) or the pair anchor/current member (cluster).
    pub fn open(&mut self) -> Result<()> {
        match self.mode() {
            Mode::Queue => {
                let Some(row) = self.current_row() else {
                    return Ok(());
                };
                self.open_cluster(row)
            }
            Mode::Cluster | Mode::Group => {
                let Some(c) = &self.cluster else {
                    return Ok(());
                };
                if c.is_loading() {
                    // Typed ahead (Enter Enter): the pair opens when the members land.
                    if let Some(c) = &mut self.cluster {
                        c.open_when_loaded = true;
                    }
                    self.message = "the pair opens when the entry's members are read…".into();
                    return Ok(());
                }
                let mut other = c.cursor;
                if other == c.anchor {
                    other = (c.anchor + 1) % c.members.len().max(1);
                }
                if other == c.anchor {
                    self.message = "a cluster of one document has no pair".into();
                    return Ok(());
                }
                if let Some(c) = &mut self.cluster {
                    c.cursor = other;
                }
                self.open_pair(self.proposing_text())
            }
            _ => Ok(()),
        }
    }

    /// The text a pair view opens on: the one the open entry's detectors read (the first
    /// of them whose latest run names its text), so their evidence is where the coder
    /// looks — on news the content text, not two sites' menus; the visible text when no
    /// run says.
    pub(super) fn proposing_text(&self) -> TextKind {
        let Some(c) = &self.cluster else {
            return TextKind::Visible;
        };
        c.row
            .detectors
            .iter()
            .find_map(|m| self.run_texts.get(m).copied().flatten())
            .unwrap_or(TextKind::Visible)
    }

    /// Opens entry `row` at once: the screen draws what the queue row knows, the members
    /// and the rest come from the background worker (see [`Session::apply_entry`]).
    pub(super) fn open_cluster(&mut self, row: QueueRow) -> Result<()> {
        self.cancel_entry_jobs();
        let job = self.background.worker.submit(Job::Entry {
            entry: row.cluster,
            run_id: row.run_id,
            coder: self.coder.clone(),
            replay_base: self.replay_base.clone(),
        });
        self.cluster = Some(ClusterView {
            row,
            members: Vec::new(),
            cursor: 1,
            top: 0,
            anchor: 0,
            selected: BTreeSet::new(),
            groups: BTreeMap::new(),
            bridge: None,
            note: None,
            previews: HashMap::new(),
            table: None,
            replay: HashMap::new(),
            loading: Some(job),
            preview_job: None,
            refreshed: false,
            open_when_loaded: false,
        });
        self.pair = None;
        self.push(Mode::Cluster);
        Ok(())
    }

    /// Drops the open entry's queued work (the coder left it or opened another).
    pub(super) fn cancel_entry_jobs(&mut self) {
        if let Some(c) = &self.cluster {
            let ids = c
                .loading
                .into_iter()
                .chain(c.preview_job.as_ref().map(|p| p.0));
            for id in ids {
                self.background.worker.cancel(id);
            }
        }
    }

    /// Takes the members the worker read for job `id`, if its entry is still the open one
    /// (true: the screen changed).
    pub(super) fn apply_entry(&mut self, id: u64, loaded: EntryLoaded) -> bool {
        let Some(c) = &mut self.cluster else {
            return false;
        };
        if c.loading != Some(id) || c.row.cluster != loaded.entry {
            return false;
        }
        c.loading = None;
        c.members = loaded.members;
        c.replay = loaded.replay;
        c.bridge = loaded.bridge;
        if !c.refreshed {
            c.note = loaded.note;
            if let Some(o) = self
                .saves
                .optimistic
                .get(&crate::model::set_key(&c.row.members))
            {
                if o.before.note != o.after.note {
                    c.note = o.after.note.clone();
                }
            }
        }
        c.previews.extend(loaded.previews);
        c.cursor = c.cursor.min(c.members.len().saturating_sub(1));
        let many = c.members.len() > 2;
        let open_pair = std::mem::take(&mut c.open_when_loaded);
        let wants_table = self.stack.contains(&Mode::Group);
        if many && self.mode() == Mode::Cluster {
            self.message =
                "split into several groups: 1-9 put members into a group, S splits".into();
        }
        if wants_table {
            // `w` was pressed while the members were read: the table can be asked for now.
            self.build_group_table();
        }
        if open_pair && matches!(self.mode(), Mode::Cluster | Mode::Group) {
            if let Err(e) = self.open() {
                self.message = format!("cannot open the pair: {e:#}");
            }
        }
        true
    }

    /// Takes previews the worker read for the open entry.
    pub(super) fn apply_previews(
        &mut self,
        id: u64,
        entry: i64,
        previews: Vec<(i64, String)>,
    ) -> bool {
        let Some(c) = &mut self.cluster else {
            return false;
        };
        if c.preview_job.as_ref().is_some_and(|(j, _)| *j == id) {
            c.preview_job = None;
        }
        if c.row.cluster != entry {
            return false;
        }
        c.previews.extend(previews);
        true
    }

    /// Compares the anchor with the next (or previous) member.
    pub fn step_member(&mut self, delta: i64) -> Result<()> {
        let Some(c) = &mut self.cluster else {
            return Ok(());
        };
        let n = c.members.len() as i64;
        if n < 2 {
            return Ok(());
        }
        let mut i = c.cursor as i64;
        loop {
            i = (i + delta).rem_euclid(n);
            if i as usize != c.anchor {
                break;
            }
        }
        c.cursor = i as usize;
        let kind = self.pair.as_ref().map_or(TextKind::Visible, |p| p.text);
        self.open_pair(kind)
    }

    /// Asks for the current member's replay URL on the clipboard (needs `--replay-url`).
    pub fn copy_replay(&mut self) {
        let Some(c) = &self.cluster else {
            return;
        };
        if self.replay_base.is_none() {
            self.message = "no replay links: start the review with --replay-url BASE".into();
            return;
        }
        let url = c
            .members
            .get(c.cursor)
            .and_then(|m| c.replay.get(&m.id))
            .cloned();
        match url {
            Some(u) => {
                self.message = format!("copied (OSC 52): {u}");
                self.clipboard = Some(u);
            }
            None => self.message = "no member under the cursor".into(),
        }
    }

    pub fn set_anchor(&mut self) {
        if let Some(c) = &mut self.cluster {
            let Some(m) = c.members.get(c.cursor) else {
                self.message = STILL_LOADING.into();
                return;
            };
            self.message = format!("anchor: document {}", m.id);
            c.anchor = c.cursor;
        }
    }

    /// The members an action on the open cluster applies to: the selected members (cluster
    /// screen), else the current member (the compared one in the pair view).
    pub(super) fn acted_members(&self) -> Vec<i64> {
        let Some(c) = &self.cluster else {
            return Vec::new();
        };
        if self.mode() == Mode::Cluster && !c.selected.is_empty() {
            return c.selected.iter().copied().collect();
        }
        c.members.get(c.cursor).map(|m| m.id).into_iter().collect()
    }

    /// Puts the current (or the selected) members into group `group` (1..=9) of the split
    /// being prepared; 0 takes them back to the rest. Records nothing until
    /// [`Session::split_groups`].
    pub fn assign_group(&mut self, group: u8) -> Result<()> {
        let ids = self.acted_members();
        let Some(c) = &mut self.cluster else {
            return Ok(());
        };
        if c.is_loading() {
            self.message = STILL_LOADING.into();
            return Ok(());
        }
        for id in &ids {
            if group == 0 {
                c.groups.remove(id);
            } else {
                c.groups.insert(*id, group);
            }
        }
        c.selected.clear();
        let what = match ids.as_slice() {
            [one] => format!("document {one}"),
            many => format!("{} documents", many.len()),
        };
        self.message = if group == 0 {
            format!("{what} back to the rest · {}", self.groups_summary())
        } else {
            format!("{what} → group {group} · {}", self.groups_summary())
        };
        Ok(())
    }

    /// Puts the current (or the selected) members into the lowest group number not in use.
    pub fn assign_new_group(&mut self) -> Result<()> {
        let Some(c) = &self.cluster else {
            return Ok(());
        };
        let used: BTreeSet<u8> = c.groups.values().copied().collect();
        match (1..=9).find(|g| !used.contains(g)) {
            Some(g) => self.assign_group(g),
            None => {
                self.message = "all nine groups are in use".into();
                Ok(())
            }
        }
    }

    /// The split being prepared: groups 1..=9 in order, then the members in no group.
    pub fn prepared_groups(&self) -> Vec<Vec<i64>> {
        let Some(c) = &self.cluster else {
            return Vec::new();
        };
        let mut by_group: BTreeMap<u8, Vec<i64>> = BTreeMap::new();
        let mut rest = Vec::new();
        for m in &c.members {
            match c.groups.get(&m.id) {
                Some(g) => by_group.entry(*g).or_default().push(m.id),
                None => rest.push(m.id),
            }
        }
        let mut out: Vec<Vec<i64>> = by_group.into_values().collect();
        if !rest.is_empty() {
            out.push(rest);
        }
        out
    }

    /// The prepared groups in words: "1: 2 · 2: 1 · rest: 4".
    pub fn groups_summary(&self) -> String {
        let Some(c) = &self.cluster else {
            return String::new();
        };
        let mut counts: BTreeMap<u8, usize> = BTreeMap::new();
        for g in c.groups.values() {
            *counts.entry(*g).or_default() += 1;
        }
        let mut parts: Vec<String> = counts.iter().map(|(g, n)| format!("{g}: {n}")).collect();
        let rest = c.members.len() - c.groups.len().min(c.members.len());
        if rest > 0 {
            parts.push(format!("rest: {rest}"));
        }
        format!("groups {}", parts.join(" · "))
    }
}
