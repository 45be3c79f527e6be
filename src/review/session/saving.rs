//! Saving: a decision is committed as its log row at the key press; its derived labels are
//! written by the label writer thread (`review::writer`). Until they are, the session shows
//! the decision anyway (the label of each decided set, laid over the rows read from the
//! store) and counts the decisions still being saved; when the writer has caught up the
//! background worker reads the queue again (the visible pages, the counts) and the session
//! swaps it in at once.

use std::collections::{BTreeSet, HashMap};

use super::{Session, PAGE_ROWS};
use crate::model::{Label, LabelStatus, QueueRow};
use crate::review::background::{Job, Reloaded};
use crate::review::sanitize::sanitize_line;
use crate::review::writer::{LabelWriter, Saved};

/// The decisions whose labels are being written, and how the session shows them meanwhile.
pub(super) struct Saving {
    pub(super) writer: LabelWriter,
    /// Log rows appended whose derived labels are not written yet.
    pub(super) pending: BTreeSet<i64>,
    /// What the session shows of the sets decided while their labels are written, by set
    /// key.
    pub(super) optimistic: HashMap<String, Optimistic>,
    /// Quit once every decision's labels are written (`q` while saving).
    pub(super) quit_when_saved: bool,
}

impl Saving {
    pub(super) fn new(writer: LabelWriter) -> Saving {
        Saving {
            writer,
            pending: BTreeSet::new(),
            optimistic: HashMap::new(),
            quit_when_saved: false,
        }
    }
}

/// A label as the screen may show it (tags and note sanitized).
pub(super) fn clean_label(l: Label) -> Label {
    Label {
        status: l.status,
        tags: l.tags.iter().map(|t| sanitize_line(t)).collect(),
        note: l.note.as_deref().map(sanitize_line),
    }
}

/// A decided document set whose derived labels are still being written: its label before
/// the first of those decisions and after the last, laid over what the store says of a
/// cluster with exactly these members (the store's statuses follow once written).
#[derive(Debug, Clone)]
pub(super) struct Optimistic {
    pub(super) before: Label,
    pub(super) after: Label,
}

impl Optimistic {
    pub(super) fn apply(&self, r: &mut QueueRow) {
        if self.before.status != self.after.status {
            r.status = self.after.status;
            r.labeled = if r.status == LabelStatus::Unreviewed {
                0
            } else {
                r.pairs
            };
        }
        let mut tags: BTreeSet<String> = r
            .tags
            .iter()
            .filter(|t| !self.before.tags.contains(t))
            .cloned()
            .collect();
        tags.extend(self.after.tags.iter().cloned());
        r.tags = tags.into_iter().collect();
    }
}

impl Session {
    /// Takes the label writer's reports: forgets the rows written, and once none is left,
    /// reads the queue and the open cluster again from the store (and quits if asked to).
    pub(super) fn apply_saved(&mut self, reports: Vec<Saved>) {
        let mut failed = None;
        for r in reports {
            match r {
                Saved::Through(id) | Saved::Idle(id) => {
                    self.saves.pending = self.saves.pending.split_off(&(id + 1));
                }
                Saved::Failed(e) => failed = Some(e),
            }
        }
        if let Some(e) = failed {
            // The log rows are committed: the next start writes their labels.
            self.saves.pending.clear();
            self.message = format!(
                "cannot write the labels ({e}); the decisions are saved and their labels \
                 are written at the next start"
            );
            if self.saves.quit_when_saved {
                self.quit = true;
            }
            return;
        }
        if !self.saves.pending.is_empty() || self.saves.optimistic.is_empty() {
            return;
        }
        if self.saves.quit_when_saved {
            self.quit = true;
            return;
        }
        // The queue is read again on the worker; until it lands the rows read before are
        // shown with the decisions laid over them, as while they were being written.
        let r = self.visible_range();
        let pages: Vec<u64> = if r.is_empty() {
            Vec::new()
        } else {
            (r.start / PAGE_ROWS..=(r.end - 1) / PAGE_ROWS).collect()
        };
        let job = Job::Reload {
            coder: self.coder.clone(),
            filter: self.filter.clone(),
            sort: self.sort,
            pages,
            resume: None,
        };
        // A read still queued from an earlier report is of no use any more (this one is
        // newer; a key's read of the queue is never dropped for it).
        if let Some(old) = self.jobs.reload.take() {
            self.background.worker.cancel(old);
        }
        self.jobs.reload = Some(self.background.worker.submit(job));
    }

    /// Takes the queue the worker read again after the label writer caught up, unless more
    /// decisions were made since (their own reload follows).
    pub(super) fn apply_reload(&mut self, r: Reloaded) {
        if !self.saves.pending.is_empty() || self.jobs.queue.is_some() || self.queue_reading() {
            return;
        }
        self.saves.optimistic.clear();
        for (_, job) in self.page_jobs.drain() {
            self.background.worker.cancel(job);
        }
        self.pages = r.pages.into_iter().collect();
        self.queue_len = r.queue_len;
        self.progress = r.progress;
        self.triage = r.triage;
        self.triaged_entries = r.triaged_entries;
        if self.cursor >= self.queue_len {
            self.cursor = self.queue_len.saturating_sub(1);
        }
        self.refresh_open_cluster();
    }

    /// How many decisions are committed whose labels are still being written.
    pub fn saving(&self) -> usize {
        self.saves.pending.len()
    }

    /// Quits, once the labels being written are written (a second quit does not wait: the
    /// next start writes them).
    pub fn request_quit(&mut self) {
        if self.saves.pending.is_empty() || self.saves.quit_when_saved {
            self.quit = true;
        } else {
            self.saves.quit_when_saved = true;
            self.message = format!(
                "saving the labels of {} decision(s), then quitting (q: quit now; the next \
                 start finishes them)",
                self.saves.pending.len()
            );
        }
    }

    /// Holds the label writer back (true) or releases it (false), so a test can look at the
    /// frames drawn while decisions are being saved. Waiting while held would never return.
    #[doc(hidden)]
    pub fn hold_saving(&mut self, held: bool) {
        self.saves.writer.hold(held);
    }
}
