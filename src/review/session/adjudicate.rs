//! The adjudication screen's state: the pairs coders disagree on (`Store::disagreements`,
//! the adjudicated ones too, marked), the current one's two documents side by side, and
//! the adjudicator's final label — logged as coder `adjudicator:CODER` (the session's
//! coder in the adjudicator role, `model::adjudication`) and written by the label writer
//! like every decision of the workbench.

use std::collections::HashMap;

use anyhow::Result;

use super::{Mode, Session};
use crate::model::adjudication::{adjudicator_key, CoderVerdict, Disagreement};
use crate::model::PairLabel;
use crate::review::sanitize::{sanitize, sanitize_line};

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
    /// Opens the adjudication screen on the first pair not yet adjudicated.
    pub fn open_adjudication(&mut self) -> Result<()> {
        let items = self.store.disagreements(false)?;
        let cursor = items
            .iter()
            .position(|d| d.adjudicated().is_none())
            .unwrap_or(0);
        let mut view = AdjudicationView {
            items,
            cursor,
            scroll: 0,
            docs: HashMap::new(),
        };
        self.read_adjudication_docs(&mut view)?;
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
        self.adjudication = Some(view);
        self.push(Mode::Adjudicate);
        Ok(())
    }

    /// Reads the current pair's documents (once each).
    fn read_adjudication_docs(&self, view: &mut AdjudicationView) -> Result<()> {
        let Some(d) = view.current() else {
            return Ok(());
        };
        let ids = [d.a, d.b];
        let briefs = self.store.doc_briefs(&ids)?;
        for id in ids {
            if view.docs.contains_key(&id) {
                continue;
            }
            let text = self.store.document_preview(id, ADJUDICATION_CHARS)?;
            let url = briefs.get(&id).map_or("", |b| b.url.as_str());
            view.docs.insert(
                id,
                AdjudicationDoc {
                    id,
                    url: sanitize_line(url),
                    text: sanitize(&text),
                },
            );
        }
        Ok(())
    }

    /// Moves to another disputed pair (`delta` rows, clamped).
    pub(super) fn move_adjudication(&mut self, delta: i64) -> Result<()> {
        let Some(mut view) = self.adjudication.take() else {
            return Ok(());
        };
        let last = view.items.len().saturating_sub(1) as i64;
        let to = (view.cursor as i64).saturating_add(delta).clamp(0, last) as usize;
        if to != view.cursor {
            view.cursor = to;
            view.scroll = 0;
        }
        let read = self.read_adjudication_docs(&mut view);
        self.adjudication = Some(view);
        read
    }

    /// Scrolls the two documents by `lines`.
    pub fn scroll_adjudication(&mut self, lines: i64) {
        if let Some(v) = &mut self.adjudication {
            v.scroll = (v.scroll as i64).saturating_add(lines).max(0) as usize;
        }
    }

    /// Records the final label of the current pair as `adjudicator:CODER` and moves on to
    /// the next pair still open.
    pub fn adjudicate(&mut self, label: PairLabel) -> Result<()> {
        let Some(d) = self.adjudication.as_ref().and_then(|v| v.current()) else {
            return Ok(());
        };
        let (a, b) = (d.a, d.b);
        let (coder, entries) = self
            .store
            .adjudication_entries(&self.coder, a, b, label, None)?;
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
        if let Some(d) = view.items.get_mut(view.cursor) {
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
