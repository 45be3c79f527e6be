//! Background work: results of the worker that prepares the pair view's documents, the
//! group view's table and the chart screen's figures, and the label writer's reports
//! (`saving`) — polled before each frame, or waited for by tests and scripts that need the
//! finished frame.

use anyhow::Result;

use super::{DocPane, Session};
use crate::review::background::{Done, Job, Output};

impl Session {
    /// Takes the results the background worker has finished; true if the screen changed.
    pub fn poll_background(&mut self) -> bool {
        let mut changed = false;
        while let Some(done) = self.background.worker.try_result() {
            changed |= self.apply_result(done);
        }
        let mut saved = Vec::new();
        while let Some(s) = self.saves.writer.try_result() {
            saved.push(s);
        }
        if !saved.is_empty() {
            self.apply_saved(saved);
            changed = true;
        }
        changed
    }

    /// Whether work for the screen is still running off the UI thread (the UI polls for it
    /// and redraws when it lands).
    pub fn busy(&self) -> bool {
        !self.saves.pending.is_empty()
            || self.jobs.queue.is_some()
            || self.jobs.group.is_some()
            || self.jobs.charts.is_some()
            || self.jobs.what_if.is_some()
            || self
                .pair
                .as_ref()
                .is_some_and(|p| p.job.is_some() || p.diff_job.is_some() || p.wrap_job.is_some())
    }

    /// Holds the background work back (true) or releases it (false), so a test can look at
    /// the frames drawn while it is pending. Waiting while held would never return.
    #[doc(hidden)]
    pub fn hold_background(&mut self, held: bool) {
        self.background.worker.hold(held);
    }

    /// Waits until the background work for the screen is done and applied (tests,
    /// benchmarks and scripts that need the finished frame).
    pub fn wait_background(&mut self) {
        while !self.saves.pending.is_empty() {
            match self.saves.writer.wait_result() {
                Some(s) => self.apply_saved(vec![s]),
                None => {
                    self.saves.pending.clear();
                    self.message = "the label writer stopped".into();
                }
            }
        }
        while self.busy() {
            match self.background.worker.wait_result() {
                Some(done) => {
                    self.apply_result(done);
                }
                None => {
                    if let Some(p) = &mut self.pair {
                        p.job = None;
                        p.diff_job = None;
                        p.wrap_job = None;
                    }
                    self.jobs = super::Jobs::default();
                    self.message = "the background worker stopped".into();
                }
            }
        }
    }

    /// Applies one result if it belongs to the open pair view (a result for a pair the
    /// coder has left is dropped). Returns whether it was applied.
    pub(super) fn apply_result(&mut self, (id, result): Done) -> bool {
        if matches!(result, Ok(Output::Discarded)) {
            return false;
        }
        if self.jobs.queue == Some(id) {
            self.jobs.queue = None;
            let shown = match result {
                Ok(_) => self.show_built_queue(),
                Err(e) => Err(e),
            };
            if let Err(e) = shown {
                self.message = format!("cannot build the review queue: {e:#}");
            }
            return true;
        }
        if self.jobs.group.as_ref().is_some_and(|(j, _)| *j == id) {
            return self.apply_group_result(result);
        }
        if self.jobs.charts == Some(id) {
            self.jobs.charts = None;
            match result {
                Ok(Output::Charts(view)) => {
                    self.message = view.summary();
                    self.discard_charts();
                    self.charts = Some(*view);
                }
                Ok(_) => {}
                Err(e) => self.message = format!("cannot draw the charts: {e:#}"),
            }
            return true;
        }
        if self.jobs.what_if.as_ref().is_some_and(|(j, _)| *j == id) {
            let Some((_, asked)) = self.jobs.what_if.take() else {
                return false;
            };
            match result {
                Ok(Output::WhatIf { run, points }) => {
                    if let Some(v) = &mut self.charts {
                        v.set_points(run, &asked.thresholds, points);
                        self.message = v.summary();
                    }
                }
                Ok(_) => {}
                Err(e) => self.message = format!("cannot compute the what-if: {e:#}"),
            }
            return true;
        }
        let Some(p) = &mut self.pair else {
            return false;
        };
        if p.job == Some(id) {
            p.job = None;
            match result {
                Ok(Output::Pair { left, right }) => {
                    p.left.fill(left);
                    p.right.fill(right);
                    p.scroll_to_first_evidence();
                }
                Ok(_) => {}
                Err(e) => self.message = format!("cannot show the pair: {e:#}"),
            }
            if p.show_diff && p.diff.is_none() {
                p.diff_job = Some(self.background.worker.submit(Job::Diff {
                    left: p.left.text.clone(),
                    right: p.right.text.clone(),
                    width: self.viewport.diff_width.max(1),
                }));
            }
            true
        } else if p.diff_job == Some(id) {
            p.diff_job = None;
            match result {
                Ok(Output::Diff(text)) => {
                    let mut d = DocPane::new(p.right.doc_id, "", "word diff", String::new());
                    d.fill(text);
                    p.diff = Some(d);
                }
                Ok(_) => {}
                Err(e) => self.message = format!("cannot compute the diff: {e:#}"),
            }
            true
        } else {
            let ours = p.wrap_job.is_some_and(|(w, _, _)| w == id);
            if ours {
                p.wrap_job = None;
            }
            match result {
                // An older wrap of this view still fills the cache.
                Ok(Output::Wrapped { generation, lines }) if generation == p.generation => {
                    for (pane, width, l) in lines {
                        if let Some(d) = p.pane_mut(pane) {
                            d.keep(width, l);
                        }
                    }
                    true
                }
                Err(e) if ours => {
                    self.message = format!("cannot wrap the documents: {e:#}");
                    true
                }
                _ => ours,
            }
        }
    }
}

impl Session {
    /// Opens the chart screen at once, its figures read off the UI thread (every run's
    /// pairs, the coder's labels, the what-if of the first run); the screen says
    /// "computing…" until they arrive.
    pub fn open_charts(&mut self) -> Result<()> {
        self.discard_charts();
        self.jobs.what_if = None;
        self.jobs.charts = Some(self.background.worker.submit(Job::Charts {
            coder: self.coder.clone(),
        }));
        self.message = "reading every run's pair scores…".into();
        self.push(super::Mode::Chart);
        Ok(())
    }

    /// Moves the what-if threshold (`steps` of 0.05) and says what it changes.
    pub fn move_threshold(&mut self, steps: i64) {
        if let Some(v) = &mut self.charts {
            v.move_threshold(steps);
            self.message = v.summary();
        }
    }

    /// Shows the next detector run's histogram at once; its what-if is computed off the UI
    /// thread the first time the run is shown.
    pub fn next_chart_run(&mut self) {
        let Some(v) = &mut self.charts else {
            return;
        };
        let pending = v.select_run(v.run + 1);
        self.message = v.summary();
        // A what-if still queued for the run left is of no use any more.
        if let Some((old, _)) = self.jobs.what_if.take() {
            self.background.worker.cancel(old);
        }
        self.jobs.what_if = match pending {
            None => None,
            Some(asked) => {
                let Some(r) = v.figures.runs.get(asked.run) else {
                    return;
                };
                let job = Job::WhatIf {
                    run: asked.run,
                    pairs: r.pairs.clone(),
                    labels: v.figures.labels.clone(),
                    thresholds: asked.thresholds.clone(),
                };
                Some((self.background.worker.submit(job), asked))
            }
        };
    }
}
