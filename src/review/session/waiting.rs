//! Keys whose effect needs a read of the store: the read runs on the background worker and
//! the key finishes when its result lands (a verdict asks what it would change first; the
//! frame drawn at the key says what is being read). Keys pressed before it lands are typed
//! ahead: the terminal UI keeps them in order and replays them once it has, so a sequence
//! of keys does what it did when every key read on the UI thread. The same holds for the
//! queue read anew (a filter, a search, the order, the session's start: `navigation`) and
//! for a key acting on a queue row whose page is still being read (after a jump).

use std::collections::VecDeque;

use anyhow::Result;

use super::{Input, PendingDecision, Session};
use crate::model::{Decision, PairLabel, QueueRow};
use crate::review::background::{Job, Output};
use crate::review::sanitize::sanitize_line;

/// A key waiting for its read.
pub(super) enum KeyWait {
    /// A verdict on `target`, waiting for the coder's stored labels among its members:
    /// recorded when they land (then `done` is the message and the screen moves on), or
    /// shown with its consequence first (see [`consequence`]).
    Verdict {
        decision: Decision,
        target: Vec<i64>,
        done: String,
    },
    /// The tag prompt (or the tag filter's), waiting for the tags in use to complete from.
    Tags,
    /// A cut of entry `row`, waiting for its weakest link and merged pairs.
    Cut { row: QueueRow },
    /// The adjudication screen, waiting for the pairs coders disagree on.
    Disagreements,
    /// An adjudicator's final label of pair (a, b), waiting for its entries to be checked.
    Adjudge { a: i64, b: i64, label: PairLabel },
    /// A key acting on the queue's current row, waiting for the read of queue pages
    /// `pages` (its row's among them; the message before it is put back when it lands).
    Row {
        pages: std::ops::RangeInclusive<u64>,
        then: AfterRow,
        message: String,
    },
    /// Select-all, waiting for every entry of the filter.
    SelectAll,
}

/// What runs once the current row's page has landed.
pub(super) enum AfterRow {
    /// The action of this name (of the action table).
    Action(&'static str),
    /// The prompt's text, submitted (a tag or note on the current row).
    Submit(Input),
}

/// Why the queue is being read anew (what the frame says when it lands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum QueueRead {
    /// A filter or the order changed: "N entries · the filters".
    Filter,
    /// A search: "N clusters match".
    Search,
    /// The session's start: the cursor goes to the first entry not fully reviewed.
    Resume,
}

/// Keys typed while a key waits, by keymap name (oldest first).
#[derive(Default)]
pub(super) struct TypedAhead {
    pub(super) keys: VecDeque<String>,
}

impl Session {
    /// Whether a key is waiting for its read (or the queue is being read anew): keys
    /// pressed now are typed ahead.
    pub fn awaiting(&self) -> bool {
        self.key_wait.is_some() || self.jobs.queue_read.is_some() || self.jobs.start.is_some()
    }

    /// Whether the queue is being read anew (a filter, a search, the order, the start):
    /// the queue screen says so instead of rows.
    pub fn queue_reading(&self) -> bool {
        self.jobs.queue_read.is_some() || self.jobs.start.is_some()
    }

    /// Keeps a key (its keymap name) pressed while another waits for its read.
    pub fn type_ahead(&mut self, key: String) {
        self.typed.keys.push_back(key);
    }

    /// The oldest key typed ahead, once no key waits any more.
    pub fn next_typed_ahead(&mut self) -> Option<String> {
        if self.awaiting() {
            return None;
        }
        self.typed.keys.pop_front()
    }

    /// Whether keys typed ahead are still to be replayed.
    pub fn has_typed_ahead(&self) -> bool {
        !self.typed.keys.is_empty()
    }

    /// Waits until no key waits for its read (the label writer is not waited for): tests
    /// that look at the frame right after a key, with the label writer held.
    #[doc(hidden)]
    pub fn wait_key(&mut self) {
        while self.awaiting() {
            match self.background.worker.wait_result() {
                Some(done) => {
                    self.apply_result(done);
                }
                None => {
                    self.key_wait = None;
                    self.jobs.queue_read = None;
                    self.jobs.start = None;
                    self.message = "the background worker stopped".into();
                }
            }
        }
    }

    /// A verdict on `target`: the coder's stored labels among its members are read on the
    /// worker, and the verdict is recorded (or its consequence asked about) when they land.
    pub(super) fn verdict(&mut self, decision: Decision, target: Vec<i64>, done: String) {
        let job = self.background.worker.submit(Job::StoredLabels {
            coder: self.coder.clone(),
            members: target.clone(),
        });
        self.message = format!(
            "{}: reading what it changes among {} pages…",
            decision.action(),
            target.len()
        );
        self.key_wait = Some((
            job,
            KeyWait::Verdict {
                decision,
                target,
                done,
            },
        ));
    }

    /// Finishes the waiting key with its job's result, if `id` is its job (true).
    pub(super) fn apply_key_result(&mut self, id: u64, result: Result<Output>) -> bool {
        if self.key_wait.as_ref().is_none_or(|(j, _)| *j != id) {
            return false;
        }
        let Some((_, wait)) = self.key_wait.take() else {
            return false;
        };
        let finished = match (wait, result) {
            (
                KeyWait::Verdict {
                    decision,
                    target,
                    done,
                },
                Ok(Output::StoredLabels(stored)),
            ) => self.finish_verdict(decision, target, done, &stored),
            (KeyWait::Verdict { decision, .. }, Err(e)) => {
                self.message = format!(
                    "not recorded: cannot read what the {} would change: {e:#}",
                    decision.action()
                );
                Ok(())
            }
            (KeyWait::Tags, Ok(Output::Tags(tags))) => {
                self.prompt_tags = Some(tags);
                self.update_completions();
                Ok(())
            }
            (KeyWait::Tags, Err(e)) => {
                // The prompt stays open, without completion.
                self.prompt_tags = Some(Vec::new());
                self.message = format!("cannot read the tags in use: {e:#}");
                Ok(())
            }
            (KeyWait::Cut { row }, Ok(Output::CutEdges { bridge, edges })) => {
                self.finish_cut(&row, bridge, &edges)
            }
            (KeyWait::Cut { .. }, Err(e)) => {
                self.message = format!("not cut: cannot read the entry's links: {e:#}");
                Ok(())
            }
            (KeyWait::Disagreements, Ok(Output::Disagreements(items))) => {
                self.show_disagreements(items);
                Ok(())
            }
            (KeyWait::Disagreements, Err(e)) => {
                self.disagreements_failed(e);
                Ok(())
            }
            (KeyWait::Adjudge { a, b, label }, Ok(Output::Adjudge { coder, entries })) => {
                self.finish_adjudication(a, b, label, coder, entries)
            }
            (KeyWait::Adjudge { a, b, .. }, Err(e)) => {
                self.message = format!("not recorded: pair {a} / {b}: {e:#}");
                Ok(())
            }
            (
                KeyWait::Row {
                    pages,
                    then,
                    message,
                },
                result,
            ) => self.finish_row(pages, then, message, result),
            (KeyWait::SelectAll, Ok(Output::Selection(selection))) => {
                self.selection = selection;
                self.message = format!("{} clusters selected", self.selection.len());
                Ok(())
            }
            (KeyWait::SelectAll, Err(e)) => {
                self.message = format!("nothing selected: cannot read the queue: {e:#}");
                Ok(())
            }
            (_, Ok(_)) => Ok(()),
        };
        if let Err(e) = finished {
            self.message = format!("error: {e:#}");
        }
        true
    }

    fn finish_verdict(
        &mut self,
        decision: Decision,
        target: Vec<i64>,
        done: String,
        stored: &[((i64, i64), String)],
    ) -> Result<()> {
        if let Some(c) = consequence(
            &decision,
            &target,
            stored,
            self.prompt_above_pairs,
            &self.coder,
        ) {
            self.message = format!("{c}. y: go ahead · any other key: cancel");
            self.pending = Some(PendingDecision {
                decision,
                target,
                consequence: c,
            });
            return Ok(());
        }
        self.record(&decision, vec![target])?;
        self.message = done;
        self.advance_after_verdict();
        Ok(())
    }
}

/// What a verdict on `target` would do, when it is worth asking first: more pairs than
/// `prompt_above_pairs`, or any of the coder's `stored` pair labels it would change. None
/// when the verdict can go ahead.
pub(super) fn consequence(
    decision: &Decision,
    target: &[i64],
    stored: &[((i64, i64), String)],
    prompt_above_pairs: u64,
    coder: &str,
) -> Option<String> {
    let new = decision.pair_labels(target);
    // Looked up, not searched: an entry of 100 members has 4,950 pairs, and as many
    // stored labels when it was decided before (a search each: 12 M comparisons).
    let mut by_pair: std::collections::HashMap<(i64, i64), &str> = Default::default();
    for (a, b, l) in &new {
        by_pair.entry((*a, *b)).or_insert(l.as_str());
    }
    let mut overrides: std::collections::BTreeMap<&str, u64> = Default::default();
    for (old, label) in stored {
        let now = by_pair.get(old).copied();
        if now.is_some_and(|n| n != label) {
            *overrides.entry(label.as_str()).or_default() += 1;
        }
    }
    let pairs = new.len() as u64;
    if pairs <= prompt_above_pairs && overrides.is_empty() {
        return None;
    }
    let verb = match decision.action() {
        "confirm" => "confirms",
        "reject" => "rejects",
        "unsure" => "marks unsure",
        other => other,
    };
    let mut consequence = format!("{verb} {pairs} pairs among {} pages", target.len());
    for (label, n) in &overrides {
        consequence.push_str(&format!(
            "; overrides {n} earlier '{label}' label{} by {}",
            if *n == 1 { "" } else { "s" },
            sanitize_line(coder)
        ));
    }
    Some(consequence)
}
