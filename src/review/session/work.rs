//! Background work: results of the worker that reads an opened entry's members and
//! previews, prepares the pair view's documents, the group view's table and the chart
//! screen's figures, and the label writer's reports
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
            || self.key_wait.is_some()
            || !self.page_jobs.is_empty()
            || self
                .adjudication
                .as_ref()
                .is_some_and(|a| a.doc_job.is_some())
            || self.jobs.start.is_some()
            || self.jobs.queue.is_some()
            || self.jobs.status.is_some()
            || self.jobs.reload.is_some()
            || self.jobs.queue_read.is_some()
            || self.jobs.group.is_some()
            || self.jobs.charts.is_some()
            || self.jobs.what_if.is_some()
            || self
                .cluster
                .as_ref()
                .is_some_and(|c| c.loading.is_some() || c.preview_job.is_some())
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

    /// Lets the held worker run its next job, and waits for that result and applies it:
    /// a test steps through work that starts more work (the start, then the queue's
    /// build) and looks at the frame between.
    #[doc(hidden)]
    pub fn step_background(&mut self) {
        self.background.worker.step();
        match self.background.worker.wait_result() {
            Some(done) => {
                self.apply_result(done);
            }
            None => self.message = "the background worker stopped".into(),
        }
    }

    /// Waits until the background work for the screen is done and applied (tests,
    /// benchmarks and scripts that need the finished frame).
    pub fn wait_background(&mut self) {
        loop {
            // A worker's result can record a decision (a verdict whose read landed): its
            // labels are waited for too.
            while !self.saves.pending.is_empty() {
                match self.saves.writer.wait_result() {
                    Some(s) => self.apply_saved(vec![s]),
                    None => {
                        self.saves.pending.clear();
                        self.message = "the label writer stopped".into();
                    }
                }
            }
            if !self.busy() {
                return;
            }
            match self.background.worker.wait_result() {
                Some(done) => {
                    self.apply_result(done);
                }
                None => {
                    if let Some(c) = &mut self.cluster {
                        c.loading = None;
                        c.preview_job = None;
                    }
                    if let Some(p) = &mut self.pair {
                        p.job = None;
                        p.diff_job = None;
                        p.wrap_job = None;
                    }
                    self.jobs = super::Jobs::default();
                    self.key_wait = None;
                    self.page_jobs.clear();
                    if let Some(a) = &mut self.adjudication {
                        a.doc_job = None;
                    }
                    self.message = "the background worker stopped".into();
                }
            }
        }
    }

    /// Applies one result if it belongs to what is open (a result for an entry or a pair
    /// the coder has left is dropped). Returns whether it was applied.
    pub(super) fn apply_result(&mut self, (id, result): Done) -> bool {
        if matches!(result, Ok(Output::Discarded)) {
            return false;
        }
        if self.jobs.start == Some(id) {
            self.jobs.start = None;
            self.apply_start(result);
            return true;
        }
        if self.key_wait.as_ref().is_some_and(|(j, _)| *j == id) {
            return self.apply_key_result(id, result);
        }
        if self.jobs.queue_read.as_ref().is_some_and(|(j, _)| *j == id) {
            if let Some((_, why)) = self.jobs.queue_read.take() {
                self.apply_queue_read(why, result);
            }
            return true;
        }
        if self
            .adjudication
            .as_ref()
            .is_some_and(|a| a.doc_job.as_ref().is_some_and(|(j, _)| *j == id))
        {
            return self.apply_adjudication_docs(id, result);
        }
        if self.page_jobs.values().any(|j| *j == id) {
            return self.apply_page(id, result);
        }
        if self.jobs.reload == Some(id) {
            self.jobs.reload = None;
            match result {
                Ok(Output::Reloaded(r)) => self.apply_reload(*r),
                Ok(_) => {}
                Err(e) => self.message = format!("cannot read the queue again: {e:#}"),
            }
            return true;
        }
        if self.jobs.status == Some(id) {
            self.jobs.status = None;
            return match result {
                Ok(Output::ClusterStatus { cluster, review }) => {
                    self.apply_cluster_status(cluster, review)
                }
                Ok(_) => false,
                Err(e) => {
                    self.message = format!("cannot read the entry's status: {e:#}");
                    true
                }
            };
        }
        if self.cluster.as_ref().is_some_and(|c| c.loading == Some(id)) {
            return match result {
                Ok(Output::Entry(loaded)) => self.apply_entry(id, *loaded),
                Ok(_) => false,
                Err(e) => {
                    if let Some(c) = &mut self.cluster {
                        c.loading = None;
                    }
                    self.message = format!("cannot read the entry's members: {e:#}");
                    true
                }
            };
        }
        if let Ok(Output::Previews { entry, previews }) = result {
            return self.apply_previews(id, entry, previews);
        }
        if let Some(c) = &mut self.cluster {
            if c.preview_job.as_ref().is_some_and(|(j, _)| *j == id) {
                if let (Some((_, ids)), Err(e)) = (c.preview_job.take(), result) {
                    // Shown empty rather than asked for again at every frame.
                    c.previews
                        .extend(ids.into_iter().map(|id| (id, String::new())));
                    self.message = format!("cannot read the previews: {e:#}");
                }
                return true;
            }
        }
        if self.jobs.queue == Some(id) {
            self.jobs.queue = None;
            match result {
                Ok(_) => self.show_built_queue(),
                Err(e) => {
                    self.message = format!("cannot build the review queue: {e:#}");
                    self.failed_opening = Some(e);
                }
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
                Ok(Output::Pair {
                    left,
                    right,
                    evidence,
                }) => {
                    p.left.fill(left);
                    p.right.fill(right);
                    p.evidence = evidence;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::background::EntryLoaded;
    use crate::store::{ClusterMember, ClusterRow, Store};

    /// A session on two entries of two pages each, its worker held (nothing it is asked
    /// runs until the test says so).
    /// [`held_session`]'s database opened again by a session whose start's job is held
    /// (queued, not run): the first frame before anything is read.
    fn started_again_held() -> (tempfile::TempDir, Session) {
        let (dir, s) = held_session();
        drop(s);
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let s = Session::start_held(store, "ann", false).unwrap();
        (dir, s)
    }

    fn held_session() -> (tempfile::TempDir, Session) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.db")).unwrap();
        let ids: Vec<i64> = (0..4)
            .map(|i| {
                store
                    .insert_test_document(
                        &format!("http://example.org/{i}"),
                        "Page",
                        &format!("text of page {i}: long enough not to be triaged as a near-empty page, which takes a hundred characters"),
                        None,
                    )
                    .unwrap()
            })
            .collect();
        let run = store
            .create_run("spotsigs", &serde_json::json!({}))
            .unwrap();
        let entry = |members: Vec<i64>| ClusterRow {
            members,
            min_score: Some(0.9),
            max_score: Some(0.9),
            weakest_bridge: None,
        };
        store
            .write_run_clusters(run, &[entry(ids[..2].to_vec()), entry(ids[2..].to_vec())])
            .unwrap();
        store.finish_run(run, &serde_json::json!({})).unwrap();
        let mut s = Session::new(store, "ann", false).unwrap();
        s.hold_background(true);
        (dir, s)
    }

    /// What the worker would have read for the open entry (one made-up member).
    fn loaded_for(s: &Session) -> Box<EntryLoaded> {
        let c = s.cluster.as_ref().unwrap();
        Box::new(EntryLoaded {
            entry: c.row.cluster,
            members: vec![ClusterMember {
                id: 99,
                url: "stale".into(),
                title: "stale".into(),
                bytes: 1,
                dup_group: None,
                captures: 1,
                lang: "und".into(),
            }],
            ..Default::default()
        })
    }

    #[test]
    fn a_stale_entry_result_is_dropped() {
        let (_dir, mut s) = held_session();
        s.open().unwrap();
        let first = s.cluster.as_ref().unwrap().loading.unwrap();
        let stale = loaded_for(&s);
        // The coder leaves and opens the next entry before the first read lands.
        s.back();
        s.move_by(1).unwrap();
        s.open().unwrap();
        assert!(!s.apply_result((first, Ok(Output::Entry(stale)))));
        let c = s.cluster.as_ref().unwrap();
        assert!(c.is_loading() && c.members.is_empty());
        // Same entry, opened again: the earlier job's result is dropped too.
        let second = c.loading.unwrap();
        let again = loaded_for(&s);
        s.back();
        s.open().unwrap();
        assert!(!s.apply_result((second, Ok(Output::Entry(again)))));
        assert!(s.cluster.as_ref().unwrap().members.is_empty());
        // The open entry's own read fills it.
        s.hold_background(false);
        s.wait_background();
        let c = s.cluster.as_ref().unwrap();
        assert!(!c.is_loading());
        let ids: Vec<i64> = c.members.iter().map(|m| m.id).collect();
        assert_eq!(ids, c.row.members);
    }

    /// The job of the key waiting for its read.
    fn key_job(s: &Session) -> u64 {
        s.key_wait.as_ref().map(|(j, _)| *j).unwrap()
    }

    /// `s` after a failed read: `message` said, nothing waiting or running, nothing
    /// recorded.
    fn nothing_pending(s: &mut Session, message: &str) {
        assert!(s.message.contains(message), "{}", s.message);
        assert!(!s.awaiting() && s.pending.is_none() && !s.busy());
        assert!(s.store().decision_log("ann").unwrap().is_empty());
        s.hold_background(false);
    }

    #[test]
    fn a_failed_verdict_read_records_nothing_and_leaves_nothing_pending() {
        let (_dir, mut s) = held_session();
        s.decide(crate::model::Decision::Confirm).unwrap();
        assert!(s.awaiting());
        let job = key_job(&s);
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert_eq!(s.cursor, 0, "no verdict, no advance");
        nothing_pending(
            &mut s,
            "not recorded: cannot read what the confirm would change: disk gone",
        );
        // The job's own result, landing later, is dropped.
        assert!(!s.apply_result((job, Ok(Output::StoredLabels(Vec::new())))));
        assert!(s.store().decision_log("ann").unwrap().is_empty());
    }

    #[test]
    fn a_failed_cut_read_cuts_nothing_and_leaves_nothing_pending() {
        let (_dir, mut s) = held_session();
        s.cut().unwrap();
        let job = key_job(&s);
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        nothing_pending(&mut s, "not cut: cannot read the entry's links: disk gone");
    }

    #[test]
    fn a_failed_tag_read_leaves_the_prompt_without_completion() {
        let (_dir, mut s) = held_session();
        s.start_input(super::super::InputKind::Tag);
        let job = key_job(&s);
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert!(s.input.is_some());
        s.input_char('w');
        assert!(s.input.as_ref().unwrap().completions.is_empty());
        nothing_pending(&mut s, "cannot read the tags in use: disk gone");
    }

    #[test]
    fn failed_adjudication_reads_say_so_and_leave_nothing_pending() {
        let (_dir, mut s) = held_session();
        s.open_adjudication().unwrap();
        let job = key_job(&s);
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert!(!s.adjudication.as_ref().unwrap().loading);
        nothing_pending(
            &mut s,
            "cannot read the pairs coders disagree on: disk gone",
        );
        // A final label whose check fails is not recorded.
        s.hold_background(true);
        let d = crate::model::adjudication::Disagreement {
            a: 1,
            b: 2,
            coders: Vec::new(),
            adjudications: Vec::new(),
        };
        s.show_disagreements(vec![d]);
        let docs = s.adjudication.as_ref().unwrap().doc_job.as_ref().unwrap().0;
        assert!(s.apply_result((docs, Err(anyhow::anyhow!("no text")))));
        assert!(s
            .message
            .contains("cannot read the pair's documents: no text"));
        assert!(s.adjudication.as_ref().unwrap().doc(1).is_some());
        s.adjudicate(crate::model::PairLabel::Same).unwrap();
        let job = key_job(&s);
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert!(s
            .store()
            .decision_log("adjudicator:ann")
            .unwrap()
            .is_empty());
        nothing_pending(&mut s, "not recorded: pair 1 / 2: disk gone");
    }

    #[test]
    fn a_failed_queue_page_read_says_so_and_leaves_nothing_pending() {
        let (_dir, mut s) = held_session();
        // The session's start read the first page; a page read ahead fails.
        s.pages.clear();
        s.request_page(0);
        let job = *s.page_jobs.get(&0).unwrap();
        assert!(s.busy());
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert_eq!(s.loaded_pages(), 0);
        nothing_pending(&mut s, "cannot read the queue: disk gone");
    }

    /// A verdict recorded and its labels written, the worker held again: the queue's
    /// read after the writer caught up is queued (the session's `reload` job).
    fn confirmed_and_written(s: &mut Session) -> u64 {
        s.decide(crate::model::Decision::Confirm).unwrap();
        // Nothing else is queued: the worker runs only the verdict's read.
        s.hold_background(false);
        s.wait_key();
        s.hold_background(true);
        while s.saving() > 0 {
            let r = s.saves.writer.wait_result().unwrap();
            s.apply_saved(vec![r]);
        }
        s.jobs.reload.unwrap()
    }

    #[test]
    fn the_queue_is_read_again_on_the_worker_once_the_labels_are_written() {
        let (_dir, mut s) = held_session();
        assert_eq!(s.loaded_pages(), 1, "the start read the first page");
        confirmed_and_written(&mut s);
        // Meanwhile the rows read before show the verdict laid over them.
        let status = |s: &Session| s.row_at(0).unwrap().status;
        assert_eq!(status(&s), crate::model::LabelStatus::Confirmed);
        assert!(!s.saves.optimistic.is_empty() && s.busy());
        s.hold_background(false);
        s.wait_background();
        // Read again: the store's rows, nothing laid over them any more.
        assert!(s.saves.optimistic.is_empty() && !s.busy());
        assert_eq!(status(&s), crate::model::LabelStatus::Confirmed);
        assert_eq!(s.progress.iter().map(|p| p.reviewed).sum::<u64>(), 1);
    }

    #[test]
    fn a_failed_queue_reload_says_so_and_leaves_nothing_pending() {
        let (_dir, mut s) = held_session();
        let job = confirmed_and_written(&mut s);
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert!(s.message.contains("cannot read the queue again: disk gone"));
        assert!(!s.busy());
        // The rows read before still show the verdict.
        assert_eq!(
            s.row_at(0).unwrap().status,
            crate::model::LabelStatus::Confirmed
        );
        s.hold_background(false);
    }

    #[test]
    fn a_failed_queue_read_for_a_filter_shows_no_queue_and_leaves_nothing_pending() {
        let (_dir, mut s) = held_session();
        s.cycle_sort().unwrap();
        assert!(s.awaiting() && s.queue_reading() && s.loaded_pages() == 0);
        assert!(s.message.contains("reading the queue…"), "{}", s.message);
        let job = s.jobs.queue_read.as_ref().map(|(j, _)| *j).unwrap();
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert_eq!((s.queue_len, s.cursor), (0, 0));
        nothing_pending(&mut s, "cannot read the queue: disk gone");
        // The job's own result, landing later, is dropped.
        assert!(!s.apply_result((job, Ok(Output::Reloaded(Default::default())))));
        assert_eq!(s.queue_len, 0);
    }

    #[test]
    fn a_key_on_a_row_still_being_read_waits_for_it_and_a_failed_read_drops_it() {
        let (_dir, mut s) = held_session();
        s.pages.clear();
        s.run_action("confirm").unwrap();
        assert!(s.awaiting() && s.message.contains("reading entry 1 of the queue"));
        // Nothing else reads the page meanwhile.
        s.request_page(0);
        assert!(s.page_jobs.is_empty());
        let job = key_job(&s);
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        nothing_pending(&mut s, "cannot read the queue: disk gone");
        // Landing, the page lets the key run: a verdict, which asks for its labels.
        let (_dir, mut s) = held_session();
        s.pages.clear();
        s.message = "before".into();
        s.run_action("confirm").unwrap();
        s.hold_background(false);
        s.wait_key();
        assert_eq!(s.loaded_pages(), 1);
        assert!(s.message.starts_with("confirm: entry 1"), "{}", s.message);
        assert_eq!(s.store().decision_log("ann").unwrap().len(), 1);
    }

    #[test]
    fn a_failed_select_all_read_selects_nothing_and_leaves_nothing_pending() {
        let (_dir, mut s) = held_session();
        s.select_all().unwrap();
        assert!(s.awaiting() && s.selection.is_empty());
        let job = key_job(&s);
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert!(s.selection.is_empty());
        nothing_pending(&mut s, "nothing selected: cannot read the queue: disk gone");
    }

    #[test]
    fn a_jumps_visible_pages_are_one_read_and_their_neighbours_follow_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("long.db")).unwrap();
        let ids: Vec<i64> = (0..700)
            .map(|i| {
                store
                    .insert_test_document(
                        &format!("http://site{}.example/{i}", i % 7),
                        "Page",
                        &format!("text of page {i}: long enough not to be triaged as a near-empty page, which takes a hundred characters"),
                        None,
                    )
                    .unwrap()
            })
            .collect();
        let run = store
            .create_run("spotsigs", &serde_json::json!({}))
            .unwrap();
        let rows: Vec<ClusterRow> = ids
            .chunks(2)
            .enumerate()
            .map(|(i, m)| ClusterRow {
                members: m.to_vec(),
                min_score: Some(0.5 + (i % 40) as f64 / 100.0),
                max_score: Some(0.9),
                weakest_bridge: None,
            })
            .collect();
        store.write_run_clusters(run, &rows).unwrap();
        store.finish_run(run, &serde_json::json!({})).unwrap();
        let mut s = Session::new(store, "ann", false).unwrap();
        assert_eq!((s.queue_len, s.loaded_pages()), (350, 1));
        s.hold_background(true);
        // 150 rows on screen: the last ones fill pages 2 and 3.
        let viewport = crate::review::Viewport {
            queue_rows: 150,
            ..s.viewport
        };
        s.move_by(1 << 40).unwrap();
        s.prepare(viewport).unwrap();
        let (two, three) = (s.page_jobs[&2], s.page_jobs[&3]);
        assert_eq!(two, three, "one read for both");
        assert_eq!(s.page_jobs.len(), 2, "no neighbour yet: {:?}", s.page_jobs);
        s.hold_background(false);
        s.wait_background();
        s.prepare(viewport).unwrap();
        // Page 1 follows, read back from page 2's first rank.
        assert!(s.page_jobs.contains_key(&1));
        s.wait_background();
        let all = s
            .store()
            .queue_page("ann", &s.filter, s.sort, 0, 1000)
            .unwrap();
        for (pos, row) in all.iter().enumerate() {
            assert_eq!(s.row_at(pos as u64).map(|r| r.cluster), Some(row.cluster));
        }
    }

    #[test]
    fn a_failed_start_says_so_and_leaves_nothing_pending() {
        let (_dir, mut s) = started_again_held();
        // The first frame is drawn before anything is read: the start's job is queued.
        assert!(s.awaiting() && s.queue_reading() && s.busy());
        assert!(s.methods.is_empty() && s.run_texts.is_empty());
        let job = s.jobs.start.unwrap();
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert!(s.failed_opening.is_some());
        assert_eq!(s.queue_len, 0);
        nothing_pending(&mut s, "cannot open the review: disk gone");
    }

    #[test]
    fn the_start_reads_the_runs_the_log_and_whether_main_texts_exist() {
        let (_dir, mut s) = started_again_held();
        s.hold_background(false);
        s.wait_key();
        assert_eq!(s.methods, vec!["spotsigs".to_string()]);
        assert!(s.run_texts.contains_key("spotsigs"));
        // `insert_test_document` stores no main text.
        assert!(!s.has_main_texts);
        assert_eq!(s.queue_len, 2);
    }

    #[test]
    fn an_order_set_while_the_start_runs_is_read_in_place_of_the_resume() {
        let (_dir, mut s) = started_again_held();
        // As `review --order` does right after the start.
        s.set_sort(crate::model::QueueSort::ScoreAsc).unwrap();
        assert!(
            s.jobs.queue_read.is_none(),
            "nothing read before the start lands"
        );
        s.hold_background(false);
        s.wait_key();
        assert_eq!(s.sort, crate::model::QueueSort::ScoreAsc);
        assert_eq!(s.queue_len, 2);
        assert!(s.message.starts_with("2 entries · "), "{}", s.message);
    }

    #[test]
    fn a_failed_entry_read_says_so_and_leaves_nothing_pending() {
        let (_dir, mut s) = held_session();
        s.open().unwrap();
        let job = s.cluster.as_ref().unwrap().loading.unwrap();
        assert!(s.apply_result((job, Err(anyhow::anyhow!("disk gone")))));
        assert!(s
            .message
            .contains("cannot read the entry's members: disk gone"));
        assert!(!s.cluster.as_ref().unwrap().is_loading());
        s.hold_background(false);
    }
}
