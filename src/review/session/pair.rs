//! The pair view: two documents side by side (or their word diff) with the evidence of each
//! detector, read, sanitized, compared and wrapped off the UI thread; each pane keeps its
//! lines wrapped for the last few widths.

use std::ops::Range;

use anyhow::Result;

use super::{Mode, Session, SYNC_WRAP_BYTES, WRAPS_KEPT};
use crate::review::background::{Explain, Job, Pane, PreparedText};
use crate::review::evidence::Highlight;
use crate::review::sanitize::sanitize_line;
use crate::review::wrap::wrap;
use crate::store::{PairEvidence, TextKind};

/// Lines of text kept above the evidence the pair view scrolls to, so it reads in context.
const EVIDENCE_CONTEXT: usize = 1;

/// One document in the pair view: sanitized text, its highlights, its lines wrapped for the
/// last few widths, and the width whose lines are shown.
#[derive(Debug, Clone)]
pub struct DocPane {
    pub doc_id: i64,
    pub url: String,
    pub title: String,
    /// The document's identified language (`text::lang`), shown in the pane's header; empty
    /// for a pane that is not one document (the word diff).
    pub lang: String,
    pub text: String,
    pub highlights: Vec<Highlight>,
    /// Newest first.
    wraps: Vec<(usize, Vec<Range<usize>>)>,
    shown: Option<usize>,
}

impl DocPane {
    pub(super) fn new(doc_id: i64, url: &str, title: &str, text: String) -> DocPane {
        DocPane {
            doc_id,
            url: sanitize_line(url),
            title: sanitize_line(title),
            lang: String::new(),
            text,
            highlights: Vec::new(),
            wraps: Vec::new(),
            shown: None,
        }
    }

    /// Shows the lines wrapped for `width` if they are cached; false if they are not.
    pub fn show(&mut self, width: usize) -> bool {
        if self.wraps.iter().any(|(w, _)| *w == width) {
            self.shown = Some(width);
            true
        } else {
            false
        }
    }

    /// The width whose lines are shown.
    pub fn shown_width(&self) -> Option<usize> {
        self.shown
    }

    /// Caches lines wrapped for `width` (without showing them).
    pub(super) fn keep(&mut self, width: usize, lines: Vec<Range<usize>>) {
        self.wraps.retain(|(w, _)| *w != width);
        self.wraps.insert(0, (width, lines));
        // Never drop the lines shown.
        let shown = self.shown;
        let mut kept = 0;
        self.wraps.retain(|(w, _)| {
            kept += 1;
            kept <= WRAPS_KEPT || Some(*w) == shown
        });
    }

    /// Wraps the text for `width` (here, on the calling thread) unless it is cached, and
    /// shows it.
    pub fn ensure_wrapped(&mut self, width: usize) {
        if !self.show(width) {
            self.keep(width, wrap(&self.text, width));
            self.shown = Some(width);
        }
    }

    /// Takes the text, spans and wrapped lines the background worker prepared.
    pub(super) fn fill(&mut self, p: PreparedText) {
        self.text = p.text;
        self.highlights = p.highlights;
        self.wraps = vec![(p.width, p.lines)];
        self.shown = Some(p.width);
    }

    /// The lines shown (empty until the text is wrapped).
    pub fn lines(&self) -> &[Range<usize>] {
        self.wraps
            .iter()
            .find(|(w, _)| Some(*w) == self.shown)
            .map_or(&[], |(_, l)| l.as_slice())
    }

    /// The index of the shown line holding byte `at` (the line after it when `at` falls
    /// between lines, e.g. on a newline).
    pub fn line_of(&self, at: usize) -> usize {
        self.lines().partition_point(|r| r.end <= at)
    }

    /// The highlights overlapping `range`, found by binary search (spans are sorted).
    pub fn highlights_in(&self, range: &Range<usize>) -> &[Highlight] {
        let first = self.highlights.partition_point(|h| h.end <= range.start);
        let last = self.highlights.partition_point(|h| h.start < range.end);
        &self.highlights[first..last.max(first)]
    }
}

/// The pair view's state. The documents are read, compared and wrapped off the UI thread:
/// until that is done the panes are empty and `job` names the pending work.
#[derive(Debug, Clone)]
pub struct PairView {
    pub left: DocPane,
    pub right: DocPane,
    pub diff: Option<DocPane>,
    pub show_diff: bool,
    pub text: TextKind,
    pub scroll: usize,
    /// Whether the coder has scrolled this pair: then the texts arriving do not move the
    /// view to the first evidence.
    pub scrolled: bool,
    /// What each detector's latest run says about the pair (read with the documents: empty
    /// while they are).
    pub evidence: Vec<PairEvidence>,
    /// The background job preparing both documents, while it runs.
    pub job: Option<u64>,
    /// The background job computing the word diff, while it runs.
    pub diff_job: Option<u64>,
    /// The job that opened this view (wrap results name it, so a late one for another
    /// pair is dropped).
    pub generation: u64,
    /// The background job wrapping long documents for a new width, while it runs, with
    /// the pane and diff widths it wraps for.
    pub wrap_job: Option<(u64, usize, usize)>,
}

impl PairView {
    /// Whether the documents are still being prepared.
    pub fn loading(&self) -> bool {
        self.job.is_some()
    }

    /// Whether the word diff is wanted but not computed yet.
    pub fn diff_loading(&self) -> bool {
        self.show_diff && self.diff.is_none()
    }

    /// The scroll that shows the highlight starting at byte `start` of the left document
    /// near the top: its line with `EVIDENCE_CONTEXT` lines above it.
    fn scroll_to(&self, start: usize) -> usize {
        self.left.line_of(start).saturating_sub(EVIDENCE_CONTEXT)
    }

    /// Scrolls to the first highlight of the left document, unless the coder has already
    /// scrolled (the texts arrive after the view opens, and a scroll then is the coder's).
    pub(super) fn scroll_to_first_evidence(&mut self) {
        if self.scrolled || self.show_diff {
            return;
        }
        if let Some(h) = self.left.highlights.first() {
            self.scroll = self.scroll_to(h.start);
        }
    }

    /// The scroll of the next (`forward`) or previous highlight of the left document
    /// whose scroll differs from the current one, at most `max_scroll` (a highlight
    /// already on screen below the last page is not "next"). None if there is none.
    pub(super) fn evidence_scroll(&self, forward: bool, max_scroll: usize) -> Option<usize> {
        let mut targets = self
            .left
            .highlights
            .iter()
            .map(|h| self.scroll_to(h.start).min(max_scroll));
        if forward {
            targets.find(|&t| t > self.scroll)
        } else {
            targets.rfind(|&t| t < self.scroll)
        }
    }

    pub(super) fn pane_mut(&mut self, pane: Pane) -> Option<&mut DocPane> {
        match pane {
            Pane::Left => Some(&mut self.left),
            Pane::Right => Some(&mut self.right),
            Pane::Diff => self.diff.as_mut(),
        }
    }

    /// Shows each pane wrapped for its width: from the cache, wrapped here when short, or
    /// else handed to the worker (the returned texts; the old lines are drawn meanwhile).
    pub(super) fn rewrap(
        &mut self,
        pane_width: usize,
        diff_width: usize,
    ) -> Vec<(Pane, String, usize)> {
        let mut texts = Vec::new();
        for (pane, width) in [
            (Pane::Left, pane_width),
            (Pane::Right, pane_width),
            (Pane::Diff, diff_width),
        ] {
            let Some(d) = self.pane_mut(pane) else {
                continue;
            };
            if d.show(width) {
                continue;
            }
            if d.text.len() <= SYNC_WRAP_BYTES || d.shown.is_none() {
                d.ensure_wrapped(width);
            } else {
                texts.push((pane, d.text.clone(), width));
            }
        }
        texts
    }
}

/// The evidence line of a pair, as the pair view shows it.
pub fn evidence_summary(evidence: &[PairEvidence]) -> String {
    if evidence.is_empty() {
        return "no detector run".into();
    }
    evidence
        .iter()
        .map(|e| match (&e.score, &e.detail) {
            (None, _) => format!("{}: not paired", e.method),
            (Some(s), Some(d)) if e.method == "andd" => {
                format!("andd: {s:.2}, {}", sanitize_line(d))
            }
            (Some(s), Some(d)) => format!("{}: {s:.2} ({})", e.method, sanitize_line(d)),
            (Some(s), None) if e.method == "spotsigs" => format!("spotsigs: Jaccard {s:.2}"),
            (Some(s), None) => format!("{}: {s:.2}", e.method),
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

impl Session {
    /// Opens the pair view on the anchor and the current member at once: the documents
    /// (read, sanitized, compared, wrapped) and what each detector's run says about them
    /// (the evidence line) come from the background worker.
    pub(super) fn open_pair(&mut self, kind: TextKind) -> Result<()> {
        let Some(c) = &self.cluster else {
            return Ok(());
        };
        let (Some(ma), Some(mb)) = (c.members.get(c.anchor), c.members.get(c.cursor)) else {
            self.message = super::cluster::STILL_LOADING.into();
            return Ok(());
        };
        let mut left = DocPane::new(ma.id, &ma.url, &ma.title, String::new());
        let mut right = DocPane::new(mb.id, &mb.url, &mb.title, String::new());
        left.lang = sanitize_line(&ma.lang);
        right.lang = sanitize_line(&mb.lang);
        let (a, b) = (ma.id, mb.id);
        let explain = match (&self.background.evidence, self.blind) {
            (_, true) => Explain::Blind,
            (Some(custom), false) => Explain::Custom(custom.clone()),
            (None, false) => Explain::Detectors,
        };
        let show_diff = self.pair.as_ref().is_some_and(|p| p.show_diff);
        let job = self.background.worker.submit(Job::Pair {
            a,
            b,
            kind,
            width: self.viewport.pane_width.max(1),
            explain,
        });
        self.pair = Some(PairView {
            left,
            right,
            diff: None,
            show_diff,
            text: kind,
            scroll: 0,
            scrolled: false,
            evidence: Vec::new(),
            job: Some(job),
            diff_job: None,
            generation: job,
            wrap_job: None,
        });
        self.push(Mode::Pair);
        Ok(())
    }

    /// Jumps the scroll to the next (`forward`) or previous highlighted span of the left
    /// document; a message says when there is none.
    pub fn jump_evidence(&mut self, forward: bool) {
        let height = self.viewport.pane_height.max(1);
        let Some(p) = &mut self.pair else {
            return;
        };
        let message = if self.blind {
            Some("blind mode: no evidence is shown")
        } else if p.loading() {
            Some("the documents are still being read")
        } else if p.show_diff {
            Some("evidence jumps work on the documents (d: back to them)")
        } else if p.left.highlights.is_empty() {
            Some("no highlighted evidence in the left document")
        } else {
            let max_scroll = p
                .left
                .lines()
                .len()
                .max(p.right.lines().len())
                .saturating_sub(height);
            match p.evidence_scroll(forward, max_scroll) {
                Some(t) => {
                    p.scroll = t;
                    p.scrolled = true;
                    None
                }
                None if forward => Some("no more evidence below"),
                None => Some("no evidence above"),
            }
        };
        if let Some(m) = message {
            self.message = m.into();
        }
    }

    /// Shows or hides the word diff (computed in the background once the documents are).
    pub fn toggle_diff(&mut self) {
        if let Some(p) = &mut self.pair {
            p.show_diff = !p.show_diff;
            p.scroll = 0;
            if p.show_diff && p.diff.is_none() && p.job.is_none() && p.diff_job.is_none() {
                p.diff_job = Some(self.background.worker.submit(Job::Diff {
                    left: p.left.text.clone(),
                    right: p.right.text.clone(),
                    width: self.viewport.diff_width.max(1),
                }));
            }
        }
    }

    pub fn toggle_text(&mut self) -> Result<()> {
        let Some(p) = &self.pair else {
            return Ok(());
        };
        let mut next = match p.text {
            TextKind::Visible => TextKind::Content,
            TextKind::Content => TextKind::Main,
            TextKind::Main => TextKind::Visible,
        };
        // Without `ingest --main` there is no main text to show: the cycle skips it and
        // says why, instead of showing the visible text under the main text's name.
        // Read once by the start's job: the key reads nothing.
        let skipped_main = next == TextKind::Main && !self.has_main_texts;
        if skipped_main {
            next = TextKind::Visible;
        }
        self.open_pair(next)?;
        self.message = match next {
            TextKind::Main => "showing main-content text".into(),
            TextKind::Visible if skipped_main => {
                "showing visible text (no main-content text: ingest extracts it only with --main)"
                    .into()
            }
            TextKind::Visible => "showing visible text".into(),
            TextKind::Content => "showing content text (site template removed)".into(),
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_summary_names_each_method() {
        let e = vec![
            PairEvidence {
                method: "imatch".into(),
                run_id: 2,
                score: Some(1.0),
                detail: Some("7 of 11 lexicons agree".into()),
            },
            PairEvidence {
                method: "spotsigs".into(),
                run_id: 1,
                score: Some(0.912),
                detail: None,
            },
            PairEvidence {
                method: "cooper".into(),
                run_id: 3,
                score: None,
                detail: None,
            },
            PairEvidence {
                method: "andd".into(),
                run_id: 4,
                score: Some(0.973),
                detail: Some("top k-grams: ecam, pci host".into()),
            },
        ];
        assert_eq!(
            evidence_summary(&e),
            "imatch: 1.00 (7 of 11 lexicons agree) · spotsigs: Jaccard 0.91 · cooper: not paired \
             · andd: 0.97, top k-grams: ecam, pci host"
        );
    }
}
