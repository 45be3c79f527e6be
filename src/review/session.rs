//! A review session: everything the workbench shows and does, without a terminal. The
//! queue (paged from the store by rank), the cursor and selection, the open cluster with its
//! anchor, comparison member and the groups of a split being prepared, the pair view
//! (sanitized texts, highlight spans, wrap cache — prepared by the background worker), the
//! text prompt, and the decisions with undo/redo. The terminal UI only maps keys to
//! actions and draws this state.
//!
//! A decision is committed as its log row at the key press; its derived labels are written
//! by the label writer thread (`review::writer`). Until they are, the session shows the
//! decision anyway (the label of each decided set, laid over the rows read from the store)
//! and counts the decisions still being saved; when the writer has caught up it reads the
//! queue again.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use anyhow::Result;
use serde_json::{json, Value};

use super::background::{Done, Job, Output, Pane, PreparedText, SharedEvidence, Worker};
use super::evidence::{DetectorEvidence, EvidenceProvider, Highlight};
use super::sanitize::{sanitize, sanitize_line};
use super::undo::UndoStack;
use super::wrap::wrap;
use super::writer::{LabelWriter, Saved};
use crate::store::{
    ClusterMember, DecisionRow, Label, LabelStatus, LogEntry, PageAt, PairEvidence, Progress,
    QueueFilter, QueueRow, QueueSort, Store, TextKind,
};

/// Queue rows fetched per query.
pub const PAGE_ROWS: u64 = 100;

/// Characters of each member shown in the cluster screen's preview.
pub const PREVIEW_CHARS: usize = 3000;

/// A text up to this long is wrapped for a new width on the UI thread (well under a
/// millisecond); a longer one on the background worker, the old lines drawn meanwhile.
pub const SYNC_WRAP_BYTES: usize = 64 * 1024;

/// Wrapped widths kept per document (a resize back and forth draws from the cache).
const WRAPS_KEPT: usize = 3;

/// The screens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Queue,
    Cluster,
    Pair,
    Help,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Queue => "queue",
            Mode::Cluster => "cluster",
            Mode::Pair => "pair",
            Mode::Help => "help",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        [Mode::Queue, Mode::Cluster, Mode::Pair, Mode::Help]
            .into_iter()
            .find(|m| m.name() == s)
    }
}

/// What the one-line prompt is asking for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Tag,
    Note,
    Search,
    /// Show only clusters with this tag.
    TagFilter,
}

impl InputKind {
    pub fn label(self) -> &'static str {
        match self {
            InputKind::Tag => "tag",
            InputKind::Note => "note",
            InputKind::Search => "search",
            InputKind::TagFilter => "only tag",
        }
    }
}

/// The open prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub kind: InputKind,
    pub text: String,
    /// Existing tags that start with the text (tag prompt only).
    pub completions: Vec<String>,
}

/// How much room the terminal gives each view (set by the UI before keys and drawing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Viewport {
    pub queue_rows: usize,
    pub member_rows: usize,
    pub pane_width: usize,
    pub pane_height: usize,
    pub diff_width: usize,
}

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
}

/// One document in the pair view: sanitized text, its highlights, its lines wrapped for the
/// last few widths, and the width whose lines are shown.
#[derive(Debug, Clone)]
pub struct DocPane {
    pub doc_id: i64,
    pub url: String,
    pub title: String,
    pub text: String,
    pub highlights: Vec<Highlight>,
    /// Newest first.
    wraps: Vec<(usize, Vec<Range<usize>>)>,
    shown: Option<usize>,
}

impl DocPane {
    fn new(doc_id: i64, url: &str, title: &str, text: String) -> DocPane {
        DocPane {
            doc_id,
            url: sanitize_line(url),
            title: sanitize_line(title),
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
    fn keep(&mut self, width: usize, lines: Vec<Range<usize>>) {
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
    fn fill(&mut self, p: PreparedText) {
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

    fn pane_mut(&mut self, pane: Pane) -> Option<&mut DocPane> {
        match pane {
            Pane::Left => Some(&mut self.left),
            Pane::Right => Some(&mut self.right),
            Pane::Diff => self.diff.as_mut(),
        }
    }

    /// Shows each pane wrapped for its width: from the cache, wrapped here when short, or
    /// else handed to the worker (the returned texts; the old lines are drawn meanwhile).
    fn rewrap(&mut self, pane_width: usize, diff_width: usize) -> Vec<(Pane, String, usize)> {
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

/// The sorted ids of a document set as one key (the store's form of a decision target).
fn set_key(sorted_ids: &[i64]) -> String {
    sorted_ids
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn clean_label(l: Label) -> Label {
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
struct Optimistic {
    before: Label,
    after: Label,
}

impl Optimistic {
    fn apply(&self, r: &mut QueueRow) {
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

/// A review session of one coder.
pub struct Session {
    store: Store,
    pub coder: String,
    pub blind: bool,
    /// A provider set by `set_evidence_provider` instead of the detectors' explanations.
    evidence: Option<SharedEvidence>,
    worker: Worker,
    pub filter: QueueFilter,
    pub sort: QueueSort,
    pub queue_len: u64,
    pub cursor: u64,
    pub top: u64,
    pages: HashMap<u64, Vec<QueueRow>>,
    /// Selected clusters: (run, cluster) → members.
    pub selection: BTreeMap<(i64, i64), Vec<i64>>,
    pub stack: Vec<Mode>,
    pub cluster: Option<ClusterView>,
    pub pair: Option<PairView>,
    pub input: Option<Input>,
    pub message: String,
    pub progress: Vec<Progress>,
    pub viewport: Viewport,
    pub quit: bool,
    /// First line shown on the help screen.
    pub help_scroll: usize,
    methods: Vec<String>,
    undo: UndoStack,
    batch_counter: u64,
    writer: LabelWriter,
    /// Log rows appended whose derived labels are not written yet.
    saving: BTreeSet<i64>,
    /// What the session shows of the sets decided while their labels are written.
    optimistic: HashMap<String, Optimistic>,
    /// Quit once every decision's labels are written (`q` while saving).
    quit_when_saved: bool,
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

fn clean_row(mut r: QueueRow) -> QueueRow {
    r.title = sanitize_line(&r.title);
    r.tags = r.tags.iter().map(|t| sanitize_line(t)).collect();
    r.method = sanitize_line(&r.method);
    r
}

impl Session {
    /// Opens a session: brings the queue up to date with the runs, rebuilds undo/redo from
    /// the log and puts the cursor on the first unreviewed cluster.
    pub fn new(mut store: Store, coder: &str, blind: bool) -> Result<Session> {
        // Labels a killed session left unwritten (`Store::open` writes them too).
        store.materialize_pending()?;
        store.refresh_review_queue()?;
        // The label writer's commits copy the log back; a key's never does.
        store.set_wal_autocheckpoint(0)?;
        let mut methods: Vec<String> = store.runs()?.into_iter().map(|r| r.method).collect();
        methods.sort();
        methods.dedup();
        let undo = UndoStack::from_log(&store.decision_log(coder)?);
        let worker = Worker::new(store.path().to_path_buf());
        let writer = LabelWriter::new(store.path().to_path_buf());
        let mut s = Session {
            store,
            coder: coder.to_string(),
            blind,
            evidence: None,
            worker,
            filter: QueueFilter::default(),
            sort: QueueSort::default(),
            queue_len: 0,
            cursor: 0,
            top: 0,
            pages: HashMap::new(),
            selection: BTreeMap::new(),
            stack: vec![Mode::Queue],
            cluster: None,
            pair: None,
            input: None,
            message: String::new(),
            progress: Vec::new(),
            viewport: Viewport {
                queue_rows: 20,
                member_rows: 10,
                pane_width: 40,
                pane_height: 20,
                diff_width: 80,
            },
            quit: false,
            help_scroll: 0,
            methods,
            undo,
            batch_counter: 0,
            writer,
            saving: BTreeSet::new(),
            optimistic: HashMap::new(),
            quit_when_saved: false,
        };
        s.reload_queue()?;
        s.cursor = s
            .store
            .first_unreviewed(&s.coder, &s.filter, s.sort)?
            .unwrap_or(0);
        s.message = if s.queue_len == 0 {
            "no clusters to review: run `spotcheck detect` first".into()
        } else {
            format!("resumed at the first unreviewed cluster ({})", s.cursor + 1)
        };
        Ok(s)
    }

    /// Replaces the detectors' explanations with another provider (it runs on the
    /// background worker, hence `Send + Sync`).
    pub fn set_evidence_provider(&mut self, p: Box<dyn EvidenceProvider + Send + Sync>) {
        self.evidence = Some(std::sync::Arc::from(p));
    }

    /// What explains the pair: each method under the parameters of its run that shows the
    /// pair (the open cluster's run for its method, the latest run for the others), so the
    /// highlights are the evidence those runs used, not the defaults'.
    fn pair_explanation(&self, evidence: &[PairEvidence]) -> Result<SharedEvidence> {
        if let Some(custom) = &self.evidence {
            return Ok(custom.clone());
        }
        let open_run = self.cluster.as_ref().map(|c| (&c.row.method, c.row.run_id));
        let mut runs = Vec::new();
        for e in evidence {
            let (run, detail) = match open_run {
                Some((m, id)) if *m == e.method && id != e.run_id => (id, None),
                _ => (e.run_id, e.detail.clone()),
            };
            let params = self.store.resolve_run(&e.method, Some(run))?.params;
            runs.push((e.method.clone(), params, detail));
        }
        Ok(std::sync::Arc::new(DetectorEvidence::for_runs(runs)))
    }

    // ---------------------------------------------------------------- background work

    /// Takes the results the background worker has finished; true if the screen changed.
    pub fn poll_background(&mut self) -> bool {
        let mut changed = false;
        while let Some(done) = self.worker.try_result() {
            changed |= self.apply_result(done);
        }
        let mut saved = Vec::new();
        while let Some(s) = self.writer.try_result() {
            saved.push(s);
        }
        if !saved.is_empty() {
            self.apply_saved(saved);
            changed = true;
        }
        changed
    }

    /// Takes the label writer's reports: forgets the rows written, and once none is left,
    /// reads the queue and the open cluster again from the store (and quits if asked to).
    fn apply_saved(&mut self, reports: Vec<Saved>) {
        let mut failed = None;
        for r in reports {
            match r {
                Saved::Through(id) | Saved::Idle(id) => {
                    self.saving = self.saving.split_off(&(id + 1));
                }
                Saved::Failed(e) => failed = Some(e),
            }
        }
        if let Some(e) = failed {
            // The log rows are committed: the next start writes their labels.
            self.saving.clear();
            self.message = format!(
                "cannot write the labels ({e}); the decisions are saved and their labels \
                 are written at the next start"
            );
            if self.quit_when_saved {
                self.quit = true;
            }
            return;
        }
        if !self.saving.is_empty() || self.optimistic.is_empty() {
            return;
        }
        self.optimistic.clear();
        if let Err(e) = self
            .reload_queue()
            .and_then(|_| self.refresh_open_cluster())
        {
            self.message = format!("error: {e:#}");
        }
        if self.quit_when_saved {
            self.quit = true;
        }
    }

    /// How many decisions are committed whose labels are still being written.
    pub fn saving(&self) -> usize {
        self.saving.len()
    }

    /// Quits, once the labels being written are written (a second quit does not wait: the
    /// next start writes them).
    pub fn request_quit(&mut self) {
        if self.saving.is_empty() || self.quit_when_saved {
            self.quit = true;
        } else {
            self.quit_when_saved = true;
            self.message = format!(
                "saving the labels of {} decision(s), then quitting (q: quit now; the next \
                 start finishes them)",
                self.saving.len()
            );
        }
    }

    /// Whether work for the screen is still running off the UI thread (the UI polls for it
    /// and redraws when it lands).
    pub fn busy(&self) -> bool {
        !self.saving.is_empty()
            || self
                .pair
                .as_ref()
                .is_some_and(|p| p.job.is_some() || p.diff_job.is_some() || p.wrap_job.is_some())
    }

    /// Holds the background work back (true) or releases it (false), so a test can look at
    /// the frames drawn while it is pending. Waiting while held would never return.
    #[doc(hidden)]
    pub fn hold_background(&mut self, held: bool) {
        self.worker.hold(held);
    }

    /// Holds the label writer back (true) or releases it (false), so a test can look at the
    /// frames drawn while decisions are being saved. Waiting while held would never return.
    #[doc(hidden)]
    pub fn hold_saving(&mut self, held: bool) {
        self.writer.hold(held);
    }

    /// Waits until the background work for the screen is done and applied (tests,
    /// benchmarks and scripts that need the finished frame).
    pub fn wait_background(&mut self) {
        while !self.saving.is_empty() {
            match self.writer.wait_result() {
                Some(s) => self.apply_saved(vec![s]),
                None => {
                    self.saving.clear();
                    self.message = "the label writer stopped".into();
                }
            }
        }
        while self.busy() {
            match self.worker.wait_result() {
                Some(done) => {
                    self.apply_result(done);
                }
                None => {
                    if let Some(p) = &mut self.pair {
                        p.job = None;
                        p.diff_job = None;
                        p.wrap_job = None;
                    }
                    self.message = "the background worker stopped".into();
                }
            }
        }
    }

    /// Applies one result if it belongs to the open pair view (a result for a pair the
    /// coder has left is dropped). Returns whether it was applied.
    fn apply_result(&mut self, (id, result): Done) -> bool {
        let Some(p) = &mut self.pair else {
            return false;
        };
        if p.job == Some(id) {
            p.job = None;
            match result {
                Ok(Output::Pair { left, right }) => {
                    p.left.fill(left);
                    p.right.fill(right);
                }
                Ok(Output::Diff(_) | Output::Wrapped { .. }) => {}
                Err(e) => self.message = format!("cannot show the pair: {e:#}"),
            }
            if p.show_diff && p.diff.is_none() {
                p.diff_job = Some(self.worker.submit(Job::Diff {
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
                Ok(Output::Pair { .. } | Output::Wrapped { .. }) => {}
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

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn mode(&self) -> Mode {
        *self.stack.last().unwrap_or(&Mode::Queue)
    }

    pub fn push(&mut self, m: Mode) {
        if m == Mode::Help {
            self.help_scroll = 0;
        }
        if self.mode() != m {
            self.stack.push(m);
        }
    }

    pub fn back(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
        match self.mode() {
            Mode::Queue => {
                self.cluster = None;
                self.pair = None;
            }
            Mode::Cluster => self.pair = None,
            _ => {}
        }
    }

    pub fn undo_depth(&self) -> (usize, usize) {
        (self.undo.undo.len(), self.undo.redo.len())
    }

    // ---------------------------------------------------------------- queue paging

    fn reload_queue(&mut self) -> Result<()> {
        self.pages.clear();
        self.queue_len = self.store.queue_len(&self.coder, &self.filter)?;
        self.progress = self.store.review_progress(&self.coder)?;
        if self.cursor >= self.queue_len {
            self.cursor = self.queue_len.saturating_sub(1);
        }
        Ok(())
    }

    /// Loads queue page `page` unless it is loaded: next to a loaded page it continues from
    /// that page's first or last rank (an index walk of one page); a jump reads from the
    /// nearer end of the queue.
    fn ensure_page(&mut self, page: u64) -> Result<()> {
        if self.pages.contains_key(&page) {
            return Ok(());
        }
        let start = page * PAGE_ROWS;
        let end = (start + PAGE_ROWS).min(self.queue_len);
        let after = page
            .checked_sub(1)
            .and_then(|p| self.pages.get(&p))
            .filter(|rows| rows.len() as u64 == PAGE_ROWS)
            .and_then(|rows| rows.last());
        let before = self.pages.get(&(page + 1)).and_then(|rows| rows.first());
        let at = match (after, before) {
            (Some(r), _) => PageAt::After(r.rank),
            (None, Some(r)) => PageAt::Before(r.rank),
            _ if start > self.queue_len / 2 => PageAt::FromEnd(self.queue_len - end),
            _ => PageAt::Offset(start),
        };
        let rows = if start < end {
            self.store
                .queue_rows(&self.coder, &self.filter, self.sort, at, end - start)?
        } else {
            Vec::new()
        };
        self.pages
            .insert(page, rows.into_iter().map(clean_row).collect());
        Ok(())
    }

    /// How many queue pages are loaded (the queue is virtualized: only pages with visible
    /// rows are read).
    pub fn loaded_pages(&self) -> usize {
        self.pages.len()
    }

    /// The queue row at `pos`, if its page is loaded (with the decisions still being saved
    /// shown).
    pub fn row_at(&self, pos: u64) -> Option<Cow<'_, QueueRow>> {
        let r = self
            .pages
            .get(&(pos / PAGE_ROWS))
            .and_then(|p| p.get((pos % PAGE_ROWS) as usize))?;
        if self.optimistic.is_empty() {
            return Some(Cow::Borrowed(r));
        }
        match self.optimistic.get(&set_key(&r.members)) {
            None => Some(Cow::Borrowed(r)),
            Some(o) => {
                let mut r = r.clone();
                o.apply(&mut r);
                Some(Cow::Owned(r))
            }
        }
    }

    fn current_row(&mut self) -> Result<Option<QueueRow>> {
        if self.queue_len == 0 {
            return Ok(None);
        }
        self.ensure_page(self.cursor / PAGE_ROWS)?;
        Ok(self.row_at(self.cursor).map(Cow::into_owned))
    }

    /// Positions of the visible queue rows.
    pub fn visible_range(&self) -> Range<u64> {
        self.top..(self.top + self.viewport.queue_rows as u64).min(self.queue_len)
    }

    /// Scrolls so the cursors are visible, then loads only the pages the visible rows need
    /// and wraps the pair view's documents for the pane width. Call before drawing.
    pub fn prepare(&mut self, viewport: Viewport) -> Result<()> {
        self.viewport = viewport;
        self.poll_background();
        let h = viewport.queue_rows.max(1) as u64;
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + h {
            self.top = self.cursor + 1 - h;
        }
        if self.top + h > self.queue_len {
            self.top = self.queue_len.saturating_sub(h);
        }
        let r = self.visible_range();
        if !r.is_empty() {
            for page in r.start / PAGE_ROWS..=(r.end - 1) / PAGE_ROWS {
                self.ensure_page(page)?;
            }
        }
        if let Some(c) = &mut self.cluster {
            for i in [c.anchor, c.cursor] {
                if let Some(m) = c.members.get(i) {
                    if let std::collections::hash_map::Entry::Vacant(e) = c.previews.entry(m.id) {
                        let text = self.store.document_preview(m.id, PREVIEW_CHARS)?;
                        e.insert(sanitize(&text));
                    }
                }
            }
            let h = viewport.member_rows.max(1);
            if c.cursor < c.top {
                c.top = c.cursor;
            } else if c.cursor >= c.top + h {
                c.top = c.cursor + 1 - h;
            }
        }
        if let Some(p) = &mut self.pair {
            let (pw, dw) = (viewport.pane_width.max(1), viewport.diff_width.max(1));
            if p.job.is_none() {
                let texts = p.rewrap(pw, dw);
                let pending = p.wrap_job.is_some_and(|(_, a, b)| (a, b) == (pw, dw));
                if !texts.is_empty() && !pending {
                    let id = self.worker.submit(Job::Wrap {
                        generation: p.generation,
                        texts,
                    });
                    p.wrap_job = Some((id, pw, dw));
                }
            }
            let lines = if p.show_diff {
                p.diff.as_ref().map_or(0, |d| d.lines().len())
            } else {
                p.left.lines().len().max(p.right.lines().len())
            };
            p.scroll = p
                .scroll
                .min(lines.saturating_sub(viewport.pane_height.max(1)));
        }
        Ok(())
    }

    pub fn page_len(&self) -> usize {
        match self.mode() {
            Mode::Cluster => self.viewport.member_rows,
            Mode::Pair => self.viewport.pane_height,
            _ => self.viewport.queue_rows,
        }
        .max(1)
    }

    /// Moves the cursor of the current screen (scrolls in the pair view).
    pub fn move_by(&mut self, delta: i64) -> Result<()> {
        let clamp = |v: i64, len: i64| v.clamp(0, (len - 1).max(0));
        match self.mode() {
            Mode::Help => {
                self.help_scroll = (self.help_scroll as i64 + delta.clamp(-(1 << 40), 1 << 40))
                    .clamp(0, super::actions::ACTIONS.len() as i64 - 1)
                    as usize;
            }
            Mode::Queue => {
                self.cursor = clamp(
                    self.cursor as i64 + delta.clamp(-(1 << 40), 1 << 40),
                    self.queue_len as i64,
                ) as u64;
            }
            Mode::Cluster => {
                if let Some(c) = &mut self.cluster {
                    c.cursor = clamp(
                        c.cursor as i64 + delta.clamp(-(1 << 40), 1 << 40),
                        c.members.len() as i64,
                    ) as usize;
                }
            }
            Mode::Pair => {
                if let Some(p) = &mut self.pair {
                    // Clamped to the document length in `prepare`.
                    p.scroll = (p.scroll as i64 + delta.clamp(-(1 << 40), 1 << 40)).max(0) as usize;
                }
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- cluster and pair

    /// Opens the current cluster (queue) or the pair anchor/current member (cluster).
    pub fn open(&mut self) -> Result<()> {
        match self.mode() {
            Mode::Queue => {
                let Some(row) = self.current_row()? else {
                    return Ok(());
                };
                self.open_cluster(row)
            }
            Mode::Cluster => {
                let Some(c) = &self.cluster else {
                    return Ok(());
                };
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
                self.open_pair(TextKind::Visible)
            }
            _ => Ok(()),
        }
    }

    fn open_cluster(&mut self, row: QueueRow) -> Result<()> {
        let members: Vec<ClusterMember> = self
            .store
            .cluster_members(row.run_id, row.cluster)?
            .into_iter()
            .map(|mut m| {
                m.url = sanitize_line(&m.url);
                m.title = sanitize_line(&m.title);
                m
            })
            .collect();
        let bridge = self.store.cluster_bridge(row.run_id, row.cluster)?;
        self.cluster = Some(ClusterView {
            row,
            members,
            cursor: 1,
            top: 0,
            anchor: 0,
            selected: BTreeSet::new(),
            groups: BTreeMap::new(),
            bridge,
            note: None,
            previews: HashMap::new(),
        });
        // Only the open cluster's own status: the queue is unchanged.
        self.refresh_open_cluster()?;
        if let Some(c) = &mut self.cluster {
            c.cursor = c.cursor.min(c.members.len().saturating_sub(1));
        }
        self.pair = None;
        self.push(Mode::Cluster);
        if self.cluster.as_ref().is_some_and(|c| c.members.len() > 2) {
            self.message =
                "split into several groups: 1-9 put members into a group, S splits".into();
        }
        Ok(())
    }

    /// Opens the pair view on the anchor and the current member: the evidence line at once,
    /// the documents (read, sanitized, compared, wrapped) from the background worker.
    fn open_pair(&mut self, kind: TextKind) -> Result<()> {
        let Some(c) = &self.cluster else {
            return Ok(());
        };
        let (ma, mb) = (&c.members[c.anchor], &c.members[c.cursor]);
        let left = DocPane::new(ma.id, &ma.url, &ma.title, String::new());
        let right = DocPane::new(mb.id, &mb.url, &mb.title, String::new());
        let (a, b) = (ma.id, mb.id);
        let evidence = if self.blind {
            Vec::new()
        } else {
            self.store.pair_evidence(a, b)?
        };
        let explanation = if self.blind {
            None
        } else {
            Some(self.pair_explanation(&evidence)?)
        };
        let show_diff = self.pair.as_ref().is_some_and(|p| p.show_diff);
        let job = self.worker.submit(Job::Pair {
            a,
            b,
            kind,
            width: self.viewport.pane_width.max(1),
            evidence: explanation,
        });
        self.pair = Some(PairView {
            left,
            right,
            diff: None,
            show_diff,
            text: kind,
            scroll: 0,
            evidence,
            job: Some(job),
            diff_job: None,
            generation: job,
            wrap_job: None,
        });
        self.push(Mode::Pair);
        Ok(())
    }

    /// Shows or hides the word diff (computed in the background once the documents are).
    pub fn toggle_diff(&mut self) {
        if let Some(p) = &mut self.pair {
            p.show_diff = !p.show_diff;
            p.scroll = 0;
            if p.show_diff && p.diff.is_none() && p.job.is_none() && p.diff_job.is_none() {
                p.diff_job = Some(self.worker.submit(Job::Diff {
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
        let next = match p.text {
            TextKind::Visible => TextKind::Content,
            TextKind::Content => TextKind::Main,
            TextKind::Main => TextKind::Visible,
        };
        self.open_pair(next)?;
        self.message = match next {
            TextKind::Main => "showing main-content text".into(),
            TextKind::Visible => "showing visible text".into(),
            TextKind::Content => "showing content text (site template removed)".into(),
        };
        Ok(())
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

    pub fn set_anchor(&mut self) {
        if let Some(c) = &mut self.cluster {
            c.anchor = c.cursor;
            self.message = format!("anchor: document {}", c.members[c.anchor].id);
        }
    }

    // ---------------------------------------------------------------- selection

    pub fn toggle_select(&mut self) {
        match self.mode() {
            Mode::Queue => {
                if let Some(r) = self.row_at(self.cursor).map(Cow::into_owned) {
                    let k = (r.run_id, r.cluster);
                    if self.selection.remove(&k).is_none() {
                        self.selection.insert(k, r.members);
                    }
                    let _ = self.move_by(1);
                }
            }
            Mode::Cluster => {
                if let Some(c) = &mut self.cluster {
                    let id = c.members[c.cursor].id;
                    if !c.selected.remove(&id) {
                        c.selected.insert(id);
                    }
                }
            }
            _ => {}
        }
    }

    /// Selects every cluster the filter keeps (or every member of the open cluster); a
    /// second press clears the selection.
    pub fn select_all(&mut self) -> Result<()> {
        match self.mode() {
            Mode::Queue => {
                if !self.selection.is_empty() {
                    self.selection.clear();
                    self.message = "selection cleared".into();
                    return Ok(());
                }
                let mut at = PageAt::Offset(0);
                loop {
                    let rows =
                        self.store
                            .queue_rows(&self.coder, &self.filter, self.sort, at, 1000)?;
                    let Some(last) = rows.last() else {
                        break;
                    };
                    at = PageAt::After(last.rank);
                    for r in rows {
                        self.selection.insert((r.run_id, r.cluster), r.members);
                    }
                }
                self.message = format!("{} clusters selected", self.selection.len());
            }
            Mode::Cluster => {
                if let Some(c) = &mut self.cluster {
                    if c.selected.len() == c.members.len() {
                        c.selected.clear();
                    } else {
                        c.selected = c.members.iter().map(|m| m.id).collect();
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    // ---------------------------------------------------------------- decisions

    fn new_batch(&mut self) -> String {
        self.batch_counter += 1;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{nanos:x}-{}", self.batch_counter)
    }

    /// Records one decision on each target (one undo step for all).
    fn record(&mut self, action: &str, targets: Vec<Vec<i64>>, payload: Value) -> Result<usize> {
        let batch = (targets.len() > 1).then(|| self.new_batch());
        let entries: Vec<LogEntry> = targets
            .iter()
            .map(|t| {
                let mut p = payload.clone();
                if let (Some(b), Some(obj)) = (&batch, p.as_object_mut()) {
                    obj.insert("batch".into(), json!(b));
                }
                LogEntry::decision(action, t, p)
            })
            .collect();
        Ok(self.append(entries)?.len())
    }

    /// Commits `entries` to the log (durable when this returns), shows them at once and
    /// hands their derived labels to the writer thread.
    fn append(&mut self, entries: Vec<LogEntry>) -> Result<Vec<DecisionRow>> {
        let appended = {
            // Ahead of the writer's next step: a key waits at most for one step of it.
            let _gate = self.writer.gate().urgent();
            self.store.append_to_log(&self.coder, entries)?
        };
        let mut rows = Vec::with_capacity(appended.len());
        for a in appended {
            self.saving.insert(a.row.id);
            let after = clean_label(a.label);
            self.optimistic
                .entry(set_key(&a.row.target))
                .and_modify(|o| o.after = after.clone())
                .or_insert_with(|| Optimistic {
                    before: clean_label(Label::from_json(&a.row.previous)),
                    after,
                });
            rows.push(a.row);
        }
        self.undo.push_rows(&rows);
        if self.writer.poke().is_err() {
            // No thread: write the labels here rather than never.
            self.store.materialize_pending()?;
            if let Some(last) = rows.last() {
                self.apply_saved(vec![Saved::Idle(last.id)]);
            }
        }
        self.refresh_open_cluster()?;
        Ok(rows)
    }

    /// Reads the open cluster's status, tags and note again (with the decisions still being
    /// saved shown).
    fn refresh_open_cluster(&mut self) -> Result<()> {
        if let Some(c) = &mut self.cluster {
            // The open cluster's row shows the new status.
            let r = self
                .store
                .cluster_review(&self.coder, c.row.run_id, c.row.cluster)?;
            c.row.status = r.status;
            c.row.labeled = r.labeled;
            c.row.pairs = r.pairs;
            c.row.tags = r.tags.iter().map(|t| sanitize_line(t)).collect();
            c.note = r.note.as_deref().map(sanitize_line);
            if let Some(o) = self.optimistic.get(&set_key(&c.row.members)) {
                o.apply(&mut c.row);
                if o.before.note != o.after.note {
                    c.note = o.after.note.clone();
                }
            }
        }
        Ok(())
    }

    /// After a verdict on a whole cluster, go back to the queue, on the next cluster.
    fn advance_after_verdict(&mut self) {
        while self.mode() != Mode::Queue {
            self.back();
        }
        if self.filter.status.is_none() {
            self.cursor = (self.cursor + 1).min(self.queue_len.saturating_sub(1));
        }
    }

    /// confirm / reject / unsure on what the current screen points at.
    pub fn decide(&mut self, action: &str) -> Result<()> {
        match self.mode() {
            Mode::Queue => {
                if !self.selection.is_empty() {
                    let targets: Vec<Vec<i64>> = self.selection.values().cloned().collect();
                    let n = self.record(action, targets, json!({}))?;
                    self.selection.clear();
                    self.message = format!("{action}: {n} selected clusters");
                    return Ok(());
                }
                let Some(row) = self.current_row()? else {
                    return Ok(());
                };
                self.record(action, vec![row.members.clone()], json!({}))?;
                self.message = format!("{action}: cluster {} of {}", row.cluster, row.method);
                self.advance_after_verdict();
            }
            Mode::Cluster => {
                let Some(c) = &self.cluster else {
                    return Ok(());
                };
                let (members, no) = (c.row.members.clone(), c.row.cluster);
                self.record(action, vec![members], json!({}))?;
                self.message = format!("{action}: cluster {no}");
                self.advance_after_verdict();
            }
            Mode::Pair => {
                let Some(p) = &self.pair else {
                    return Ok(());
                };
                let pair = vec![p.left.doc_id, p.right.doc_id];
                self.record(action, vec![pair.clone()], json!({}))?;
                self.message = format!("{action}: pair {} / {}", pair[0], pair[1]);
            }
            Mode::Help => {}
        }
        Ok(())
    }

    /// Splits the open cluster: the selected members (or the current one) form one group,
    /// the rest another.
    pub fn split(&mut self) -> Result<()> {
        let Some(c) = &self.cluster else {
            return Ok(());
        };
        let out: BTreeSet<i64> = if c.selected.is_empty() {
            std::iter::once(c.members[c.cursor].id).collect()
        } else {
            c.selected.clone()
        };
        let rest: Vec<i64> = c
            .members
            .iter()
            .map(|m| m.id)
            .filter(|id| !out.contains(id))
            .collect();
        if rest.is_empty() {
            self.message = "split needs members on both sides".into();
            return Ok(());
        }
        let groups = vec![out.into_iter().collect::<Vec<_>>(), rest];
        let members = c.row.members.clone();
        self.record("split", vec![members], json!({ "groups": groups }))?;
        self.message = format!("split into {} + {}", groups[0].len(), groups[1].len());
        self.advance_after_verdict();
        Ok(())
    }

    /// The members an action on the open cluster applies to: the selected members (cluster
    /// screen), else the current member (the compared one in the pair view).
    fn acted_members(&self) -> Vec<i64> {
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

    /// Commits the prepared groups as one split decision on the cluster (one undo step).
    pub fn split_groups(&mut self) -> Result<()> {
        let Some(c) = &self.cluster else {
            return Ok(());
        };
        let groups = self.prepared_groups();
        if groups.len() < 2 {
            self.message =
                "a split needs two groups: put members in groups with 1-9 (0: back to the rest)"
                    .into();
            return Ok(());
        }
        let members = c.row.members.clone();
        let sizes: Vec<String> = groups.iter().map(|g| g.len().to_string()).collect();
        self.record("split", vec![members], json!({ "groups": groups }))?;
        self.message = format!("split into {} groups ({})", groups.len(), sizes.join(" + "));
        self.advance_after_verdict();
        Ok(())
    }

    /// Cuts the cluster at its weakest bridge: the connected components of the run's pairs
    /// inside the cluster without the bridge edge become the groups of a split.
    pub fn cut(&mut self) -> Result<()> {
        let row = match self.mode() {
            Mode::Cluster => self.cluster.as_ref().map(|c| c.row.clone()),
            _ => self.current_row()?,
        };
        let Some(row) = row else {
            return Ok(());
        };
        let Some((ba, bb, _)) = self.store.cluster_bridge(row.run_id, row.cluster)? else {
            self.message = "this cluster has no weakest bridge stored".into();
            return Ok(());
        };
        let edges = self.store.run_pairs_within(row.run_id, &row.members)?;
        let groups = components_without(&row.members, &edges, (ba.min(bb), ba.max(bb)));
        if groups.len() < 2 {
            self.message = "the bridge does not split this cluster".into();
            return Ok(());
        }
        self.record(
            "split",
            vec![row.members.clone()],
            json!({ "groups": groups, "cut": [ba, bb] }),
        )?;
        self.message = format!("cut at {ba}–{bb} into {} groups", groups.len());
        self.advance_after_verdict();
        Ok(())
    }

    // ---------------------------------------------------------------- prompt

    pub fn start_input(&mut self, kind: InputKind) {
        let text = match kind {
            InputKind::Search => self.filter.search.clone().unwrap_or_default(),
            InputKind::TagFilter => self.filter.tag.clone().unwrap_or_default(),
            _ => String::new(),
        };
        self.input = Some(Input {
            kind,
            text,
            completions: Vec::new(),
        });
        self.update_completions();
    }

    fn update_completions(&mut self) {
        let tags = match &self.input {
            Some(i) if matches!(i.kind, InputKind::Tag | InputKind::TagFilter) => {
                let mut tags: BTreeSet<String> = self
                    .store
                    .all_tags()
                    .unwrap_or_default()
                    .into_iter()
                    .collect();
                // Tags still being saved complete too.
                for o in self.optimistic.values() {
                    tags.extend(o.after.tags.iter().cloned());
                }
                tags.into_iter().collect::<Vec<_>>()
            }
            _ => return,
        };
        if let Some(i) = &mut self.input {
            i.completions = tags
                .into_iter()
                .map(|t| sanitize_line(&t))
                .filter(|t| t.starts_with(&i.text) && *t != i.text)
                .collect();
        }
    }

    pub fn input_char(&mut self, c: char) {
        if let Some(i) = &mut self.input {
            if !c.is_control() {
                i.text.push(c);
            }
        }
        self.update_completions();
    }

    pub fn input_backspace(&mut self) {
        if let Some(i) = &mut self.input {
            i.text.pop();
        }
        self.update_completions();
    }

    /// Completes the tag to the first existing tag that extends it.
    pub fn input_complete(&mut self) {
        if let Some(i) = &mut self.input {
            if let Some(first) = i.completions.first() {
                i.text = first.clone();
            }
        }
        self.update_completions();
    }

    pub fn input_cancel(&mut self) {
        self.input = None;
    }

    pub fn input_submit(&mut self) -> Result<()> {
        let Some(input) = self.input.take() else {
            return Ok(());
        };
        let text = input.text.trim().to_string();
        match input.kind {
            InputKind::Search => {
                self.filter.search = (!text.is_empty()).then_some(text);
                self.cursor = 0;
                self.reload_queue()?;
                self.message = format!("{} clusters match", self.queue_len);
            }
            InputKind::TagFilter => {
                self.filter.tag = (!text.is_empty()).then_some(text);
                self.after_filter_change()?;
            }
            InputKind::Tag if text.is_empty() => {}
            InputKind::Tag => {
                let targets = self.targets_for_label()?;
                let n = self.record("tag", targets, json!({ "tag": text }))?;
                if self.mode() == Mode::Queue {
                    self.selection.clear();
                }
                self.message = format!("tagged {n} cluster(s) \"{text}\"");
            }
            InputKind::Note => {
                let targets = self.targets_for_label()?;
                self.record("note", targets, json!({ "note": text }))?;
                self.message = "note saved".into();
            }
        }
        Ok(())
    }

    /// What a tag or note applies to: the queue selection, else the current cluster.
    fn targets_for_label(&mut self) -> Result<Vec<Vec<i64>>> {
        if self.mode() == Mode::Queue {
            if !self.selection.is_empty() {
                return Ok(self.selection.values().cloned().collect());
            }
            return Ok(self.current_row()?.map(|r| r.members).into_iter().collect());
        }
        Ok(self
            .cluster
            .as_ref()
            .map(|c| c.row.members.clone())
            .into_iter()
            .collect())
    }

    // ---------------------------------------------------------------- filters

    pub fn cycle_method(&mut self) -> Result<()> {
        let next = match &self.filter.method {
            None => self.methods.first().cloned(),
            Some(m) => {
                let i = self.methods.iter().position(|x| x == m);
                i.and_then(|i| self.methods.get(i + 1).cloned())
            }
        };
        self.filter.method = next;
        self.after_filter_change()
    }

    pub fn cycle_status(&mut self) -> Result<()> {
        self.filter.status = match self.filter.status {
            None => Some(LabelStatus::ALL[0]),
            Some(s) => {
                let i = LabelStatus::ALL.iter().position(|x| *x == s).unwrap_or(0);
                LabelStatus::ALL.get(i + 1).copied()
            }
        };
        self.after_filter_change()
    }

    /// Cycles the smallest cluster size shown: any, 3, 5, 10, 50.
    pub fn cycle_min_size(&mut self) -> Result<()> {
        const STEPS: [Option<i64>; 5] = [None, Some(3), Some(5), Some(10), Some(50)];
        let i = STEPS
            .iter()
            .position(|x| *x == self.filter.min_size)
            .unwrap_or(0);
        self.filter.min_size = STEPS[(i + 1) % STEPS.len()];
        self.after_filter_change()
    }

    pub fn toggle_disagree(&mut self) -> Result<()> {
        self.filter.disagree_only = !self.filter.disagree_only;
        self.after_filter_change()
    }

    pub fn cycle_sort(&mut self) -> Result<()> {
        let i = QueueSort::ALL
            .iter()
            .position(|x| *x == self.sort)
            .unwrap_or(0);
        self.sort = QueueSort::ALL[(i + 1) % QueueSort::ALL.len()];
        self.after_filter_change()
    }

    pub fn clear_filter(&mut self) -> Result<()> {
        self.filter = QueueFilter::default();
        self.after_filter_change()
    }

    fn after_filter_change(&mut self) -> Result<()> {
        self.cursor = 0;
        self.top = 0;
        self.reload_queue()?;
        self.message = format!("{} clusters · {}", self.queue_len, self.filter_summary());
        Ok(())
    }

    /// The active filters and order, in words.
    pub fn filter_summary(&self) -> String {
        let f = &self.filter;
        let mut parts = Vec::new();
        if let Some(m) = &f.method {
            parts.push(format!("method={m}"));
        }
        if let Some(s) = f.status {
            parts.push(format!("status={}", s.as_str()));
        }
        if let Some(n) = f.min_size {
            parts.push(format!("size>={n}"));
        }
        if let Some(t) = &f.tag {
            parts.push(format!("tag={}", sanitize_line(t)));
        }
        if let Some(s) = &f.search {
            parts.push(format!("search=\"{}\"", sanitize_line(s)));
        }
        if f.disagree_only {
            parts.push("detectors disagree".into());
        }
        parts.push(format!("sort: {}", self.sort.name()));
        parts.join(", ")
    }

    // ---------------------------------------------------------------- undo / redo

    pub fn undo(&mut self) -> Result<()> {
        let ids: Vec<i64> = self.undo.next_undo().iter().map(|d| d.id).collect();
        if ids.is_empty() {
            self.message = "nothing to undo".into();
            return Ok(());
        }
        self.append(ids.iter().map(|id| LogEntry::Undo(*id)).collect())?;
        self.message = format!("undid {} decision(s)", ids.len());
        Ok(())
    }

    pub fn redo(&mut self) -> Result<()> {
        let ids: Vec<i64> = self.undo.next_redo().iter().map(|d| d.id).collect();
        if ids.is_empty() {
            self.message = "nothing to redo".into();
            return Ok(());
        }
        self.append(ids.iter().rev().map(|id| LogEntry::Redo(*id)).collect())?;
        self.message = format!("redid {} decision(s)", ids.len());
        Ok(())
    }

    /// Runs a named action of the action table.
    pub fn run_action(&mut self, name: &str) -> Result<()> {
        match super::actions::action(name) {
            Some(a) if a.modes.contains(&self.mode()) => (a.run)(self),
            Some(_) => Ok(()),
            None => {
                self.message = format!("unknown action {name}");
                Ok(())
            }
        }
    }
}

/// Connected components of `members` under `edges` minus `removed`; singletons included.
fn components_without(
    members: &[i64],
    edges: &[(i64, i64, f64)],
    removed: (i64, i64),
) -> Vec<Vec<i64>> {
    let index: HashMap<i64, usize> = members.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut parent: Vec<usize> = (0..members.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &(a, b, _) in edges {
        if (a.min(b), a.max(b)) == removed {
            continue;
        }
        if let (Some(&i), Some(&j)) = (index.get(&a), index.get(&b)) {
            let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
            parent[ri] = rj;
        }
    }
    let mut groups: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    for (i, m) in members.iter().enumerate() {
        let r = find(&mut parent, i);
        groups.entry(r).or_default().push(*m);
    }
    let mut out: Vec<Vec<i64>> = groups.into_values().collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_a_bridge_gives_the_two_sides() {
        let edges = [(1, 2, 0.9), (2, 3, 0.4), (3, 4, 0.9)];
        assert_eq!(
            components_without(&[1, 2, 3, 4], &edges, (2, 3)),
            vec![vec![1, 2], vec![3, 4]]
        );
        assert_eq!(
            components_without(&[1, 2], &[], (1, 2)),
            vec![vec![1], vec![2]]
        );
    }

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
