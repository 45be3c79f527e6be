//! The adjudication screen's state: the pairs coders disagree on (`Store::disagreements`,
//! the adjudicated ones too, marked), the current one's two documents side by side (both
//! read on the background worker, the screen open at once saying so), and
//! the adjudicator's final label — logged as coder `adjudicator:CODER` (the session's
//! coder in the adjudicator role, `model::adjudication`) and written by the label writer
//! like every decision of the workbench.

use std::collections::HashMap;

use anyhow::Result;

use super::waiting::KeyWait;
use super::{Mode, Session};
use crate::model::adjudication::{adjudicator_key, CoderVerdict, Disagreement};
use crate::model::PairLabel;
use crate::review::background::{Job, Output};
use crate::review::sanitize::sanitize_line;

/// Characters of each document the adjudication screen shows.
pub const ADJUDICATION_CHARS: usize = 20_000;

/// One document of the current pair, sanitized.
#[derive(Debug, Clone, PartialEq)]
pub struct AdjudicationDoc {
    pub id: i64,
    pub url: String,
    pub text: String,
}

/// The adjudication screen.
#[derive(Debug, Clone)]
pub struct AdjudicationView {
    /// Every disputed pair, by (a, b).
    pub items: Vec<Disagreement>,
    pub cursor: usize,
    /// First line of the documents shown.
    pub scroll: usize,
    /// The documents read so far, by id.
    docs: HashMap<i64, AdjudicationDoc>,
    /// Whether the pairs are still being read (the screen says so).
    pub loading: bool,
    /// The background job reading the current pair's documents, and their ids.
    pub(super) doc_job: Option<(u64, Vec<i64>)>,
}

impl AdjudicationView {
    /// The current pair.
    pub fn current(&self) -> Option<&Disagreement> {
        self.items.get(self.cursor)
    }

    /// A document read for the screen (None until read).
    pub fn doc(&self, id: i64) -> Option<&AdjudicationDoc> {
        self.docs.get(&id)
    }

    /// Pairs no adjudicator has settled.
    pub fn open(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.adjudicated().is_none())
            .count()
    }
}

/// One verdict as the list and the adjudication screen show it.
pub fn verdict_text(v: &CoderVerdict) -> String {
    let whence = if v.set_size == 2 {
        format!("{} of the pair", v.action)
    } else {
        format!("{} of {} documents", v.action, v.set_size)
    };
    let note = v
        .note
        .as_deref()
        .map_or(String::new(), |n| format!(" · note: {}", sanitize_line(n)));
    format!(
        "{:<12} {:<9} ({whence}){note}",
        sanitize_line(&v.coder),
        v.label.as_str()
    )
}

impl Session {
    /// Opens the adjudication screen at once; the pairs coders disagree on are read on the
    /// worker (keys typed meanwhile wait for them), then the cursor goes to the first pair
    /// not yet adjudicated and its documents are read on the worker too.
    pub fn open_adjudication(&mut self) -> Result<()> {
        let job = self.background.worker.submit(Job::Disagreements);
        self.key_wait = Some((job, KeyWait::Disagreements));
        self.adjudication = Some(AdjudicationView {
            items: Vec::new(),
            cursor: 0,
            scroll: 0,
            docs: HashMap::new(),
            loading: true,
            doc_job: None,
        });
        self.message = "reading the pairs coders disagree on…".into();
        self.push(Mode::Adjudicate);
        Ok(())
    }

    /// Shows the pairs the worker read, on the first one not yet adjudicated.
    pub(super) fn show_disagreements(&mut self, items: Vec<Disagreement>) {
        let Some(view) = &mut self.adjudication else {
            return;
        };
        view.cursor = items
            .iter()
            .position(|d| d.adjudicated().is_none())
            .unwrap_or(0);
        view.items = items;
        view.loading = false;
        self.message = if view.items.is_empty() {
            "no pairs the coders disagree on".into()
        } else {
            format!(
                "{} pairs the coders disagree on, {} open · y: same · x: different (as {})",
                view.items.len(),
                view.open(),
                sanitize_line(&adjudicator_key(&self.coder))
            )
        };
        self.read_adjudication_docs();
    }

    /// The pairs could not be read: the screen says so and shows none.
    pub(super) fn disagreements_failed(&mut self, e: anyhow::Error) {
        if let Some(view) = &mut self.adjudication {
            view.loading = false;
        }
        self.message = format!("cannot read the pairs coders disagree on: {e:#}");
    }

    /// Asks the worker for the current pair's documents not read yet (once each).
    fn read_adjudication_docs(&mut self) {
        let Some(view) = &mut self.adjudication else {
            return;
        };
        let Some(d) = view.current() else {
            return;
        };
        let ids: Vec<i64> = [d.a, d.b]
            .into_iter()
            .filter(|id| !view.docs.contains_key(id))
            .collect();
        if ids.is_empty()
            || view
                .doc_job
                .as_ref()
                .is_some_and(|(_, asked)| *asked == ids)
        {
            return;
        }
        let job = self
            .background
            .worker
            .submit(Job::AdjudicationDocs { ids: ids.clone() });
        view.doc_job = Some((job, ids));
    }

    /// Takes documents the worker read for job `id`, if it is the screen's (true).
    pub(super) fn apply_adjudication_docs(&mut self, id: u64, result: Result<Output>) -> bool {
        let Some(view) = &mut self.adjudication else {
            return false;
        };
        if view.doc_job.as_ref().is_none_or(|(j, _)| *j != id) {
            return false;
        }
        let Some((_, ids)) = view.doc_job.take() else {
            return false;
        };
        match result {
            Ok(Output::AdjudicationDocs(docs)) => {
                view.docs.extend(docs.into_iter().map(|d| (d.id, d)));
            }
            Ok(_) => {}
            Err(e) => {
                // Shown empty rather than asked for again.
                for id in ids {
                    view.docs.insert(
                        id,
                        AdjudicationDoc {
                            id,
                            url: String::new(),
                            text: String::new(),
                        },
                    );
                }
                self.message = format!("cannot read the pair's documents: {e:#}");
            }
        }
        true
    }

    /// Moves to another disputed pair (`delta` rows, clamped).
    pub(super) fn move_adjudication(&mut self, delta: i64) -> Result<()> {
        let Some(view) = &mut self.adjudication else {
            return Ok(());
        };
        let last = view.items.len().saturating_sub(1) as i64;
        let to = (view.cursor as i64).saturating_add(delta).clamp(0, last) as usize;
        if to != view.cursor {
            view.cursor = to;
            view.scroll = 0;
        }
        self.read_adjudication_docs();
        Ok(())
    }

    /// Scrolls the two documents by `lines`.
    pub fn scroll_adjudication(&mut self, lines: i64) {
        if let Some(v) = &mut self.adjudication {
            v.scroll = (v.scroll as i64).saturating_add(lines).max(0) as usize;
        }
    }

    /// Records the final label of the current pair as `adjudicator:CODER` and moves on to
    /// the next pair still open; the entries are checked on the worker (both documents in
    /// the database) and committed when they land.
    pub fn adjudicate(&mut self, label: PairLabel) -> Result<()> {
        let Some(d) = self.adjudication.as_ref().and_then(|v| v.current()) else {
            return Ok(());
        };
        let (a, b) = (d.a, d.b);
        let job = self.background.worker.submit(Job::Adjudge {
            name: self.coder.clone(),
            a,
            b,
            label,
        });
        self.key_wait = Some((job, KeyWait::Adjudge { a, b, label }));
        Ok(())
    }

    /// Commits adjudicator `coder`'s checked `entries` on pair (a, b) and moves on.
    pub(super) fn finish_adjudication(
        &mut self,
        a: i64,
        b: i64,
        label: PairLabel,
        coder: String,
        entries: Vec<crate::model::LogEntry>,
    ) -> Result<()> {
        let appended = {
            // Ahead of the writer's next step, as every key's decision.
            let _gate = self.saves.writer.gate().urgent();
            self.store.append_to_log(&coder, entries)?
        };
        if self.saves.writer.poke().is_err() {
            // No writer thread: write the labels here rather than never.
            self.store.materialize_pending()?;
        }
        let decision = appended.first().map_or(0, |x| x.row.id);
        let Some(view) = &mut self.adjudication else {
            return Ok(());
        };
        let Some(at) = view.items.iter().position(|d| (d.a, d.b) == (a, b)) else {
            return Ok(());
        };
        view.cursor = at;
        if let Some(d) = view.items.get_mut(at) {
            // Shown at once; the label writer writes the same verdict to the labels.
            d.adjudications.retain(|v| v.coder != coder);
            d.adjudications.push(CoderVerdict {
                coder: coder.clone(),
                label,
                action: if label == PairLabel::Same {
                    "confirm".into()
                } else {
                    "reject".into()
                },
                set_size: 2,
                note: None,
                decision,
            });
            d.adjudications.sort_by(|x, y| x.coder.cmp(&y.coder));
        }
        let next = (view.cursor + 1..view.items.len())
            .chain(0..view.cursor)
            .find(|&i| view.items[i].adjudicated().is_none());
        let open = view.open();
        self.message = format!(
            "{}: {a} / {b} are {} · {open} open",
            sanitize_line(&coder),
            label.as_str()
        );
        if let Some(i) = next {
            let delta = i as i64 - view.cursor as i64;
            self.move_adjudication(delta)?;
        }
        Ok(())
    }
}
