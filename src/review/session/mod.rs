//! A review session: everything the workbench shows and does, without a terminal. The
//! terminal UI only maps keys to named actions (`review::actions`) and draws this state.
//! One concern per file, each a part of [`Session`]:
//! - `navigation`: the queue (paged from the store by rank), the cursor and scrolling of
//!   every screen, the selection, the queue's filters and order;
//! - `cluster`: the open cluster with its anchor, comparison member and the groups of a
//!   split being prepared;
//! - `pair`: the pair view (sanitized texts, highlight spans, wrap cache — prepared by the
//!   background worker) and the evidence line;
//! - `group`: the open entry as a table of sites, capture dates and differences;
//! - `decisions`: decisions as typed [`crate::model::Decision`]s, undo and redo;
//! - `prompt`: the one-line prompt for tags, notes, search and the tag filter;
//! - `saving`: decisions committed whose labels the writer thread is still writing;
//! - `work`: the background worker's results;
//! - `waiting`: keys whose effect needs a read, finished when the worker's result lands
//!   (keys pressed meanwhile typed ahead);
//! - `adjudicate`: the adjudication screen (pairs coders disagree on, a final label).

mod adjudicate;
mod cluster;
mod decisions;
mod group;
mod navigation;
mod pair;
mod prompt;
mod saving;
mod waiting;
mod work;

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;

pub use adjudicate::{verdict_text, AdjudicationDoc, AdjudicationView, ADJUDICATION_CHARS};
pub use cluster::ClusterView;
pub use pair::{evidence_summary, DocPane, PairView};

use super::background::{Job, Output, SharedEvidence, Started, Worker};
use super::evidence::EvidenceProvider;
use super::undo::UndoStack;
use super::writer::LabelWriter;
use crate::model::{Decision, Progress, QueueFilter, QueueRow, QueueSort, TriageCounts};
use crate::store::Store;
use saving::Saving;

/// Queue rows fetched per query.
pub const PAGE_ROWS: u64 = 100;

/// Characters of each member shown in the cluster screen's preview.
pub const PREVIEW_CHARS: usize = 3000;

/// A text up to this long is wrapped for a new width on the UI thread (well under a
/// millisecond); a longer one on the background worker, the old lines drawn meanwhile.
pub const SYNC_WRAP_BYTES: usize = 64 * 1024;

/// What the first frame says while the worker reads the start's data and the queue.
const START_MESSAGE: &str = "reading the queue, to resume at the first unreviewed entry…";

/// Wrapped widths kept per document (a resize back and forth draws from the cache).
const WRAPS_KEPT: usize = 3;

/// The screens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Queue,
    Cluster,
    Pair,
    /// The open entry as a table of its members (site, date, length, differences).
    Group,
    /// Pictures: score histogram with a what-if threshold, group sizes, progress.
    Chart,
    Help,
    /// The pairs coders disagree on, with every verdict, and the adjudicator's keys.
    Adjudicate,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Queue => "queue",
            Mode::Cluster => "cluster",
            Mode::Pair => "pair",
            Mode::Group => "group",
            Mode::Chart => "chart",
            Mode::Help => "help",
            Mode::Adjudicate => "adjudicate",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        [
            Mode::Queue,
            Mode::Cluster,
            Mode::Pair,
            Mode::Group,
            Mode::Chart,
            Mode::Help,
            Mode::Adjudicate,
        ]
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

/// Decisions labeling more pairs than this show their consequence and ask first.
pub const PROMPT_ABOVE_PAIRS: u64 = 1000;

/// A verdict shown with its consequence, recorded only after `y`.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingDecision {
    pub decision: Decision,
    pub target: Vec<i64>,
    /// "confirms 1,225 pairs among 50 pages; overrides 3 earlier 'different' labels by ann".
    pub consequence: String,
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

/// The work done off the UI thread for the pair view.
struct Background {
    worker: Worker,
    /// A provider set by `set_evidence_provider` instead of the detectors' explanations.
    evidence: Option<SharedEvidence>,
}

/// The group view's and the chart screen's work running off the UI thread: each job's
/// number, so a result the coder has moved past is dropped.
#[derive(Default)]
struct Jobs {
    /// The merged queue being built (the queue shows nothing until it is).
    queue: Option<u64>,
    /// The group table being built, and the entry it is for.
    group: Option<(u64, group::GroupKey)>,
    charts: Option<u64>,
    /// The what-if of a run being computed, and what was asked.
    what_if: Option<(u64, crate::review::charts::PendingWhatIf)>,
    /// The open entry's status read again after a decision.
    status: Option<u64>,
    /// The queue read again after the label writer caught up.
    reload: Option<u64>,
    /// The session's start ([`Job::Start`]): keys wait for it, then for the queue's read.
    start: Option<u64>,
    /// A read of the queue asked for while the start runs (`review --order`): made in
    /// place of the start's own once it lands.
    read_after_start: Option<waiting::QueueRead>,
    /// The queue read anew for a key that changed what it holds (a filter, a search, the
    /// order) or for the start, and what asked: keys wait for it (typed ahead).
    queue_read: Option<(u64, waiting::QueueRead)>,
}

/// A review session of one coder.
pub struct Session {
    store: Store,
    pub coder: String,
    pub blind: bool,
    background: Background,
    jobs: Jobs,
    /// Group tables built this session, newest last (reopening an entry's group view is
    /// free).
    group_tables: Vec<(group::GroupKey, crate::review::group::GroupTable)>,
    pub filter: QueueFilter,
    pub sort: QueueSort,
    pub queue_len: u64,
    pub cursor: u64,
    pub top: u64,
    /// The loaded queue pages, by page number.
    pages: HashMap<u64, Vec<QueueRow>>,
    /// Queue pages the background worker is reading: page number → job.
    page_jobs: HashMap<u64, u64>,
    /// Selected clusters: (run, cluster) → members.
    pub selection: BTreeMap<(i64, i64), Vec<i64>>,
    pub stack: Vec<Mode>,
    pub cluster: Option<ClusterView>,
    pub pair: Option<PairView>,
    pub input: Option<Input>,
    /// The chart screen, while it is open.
    pub charts: Option<crate::review::charts::ChartView>,
    /// The adjudication screen, while it is open.
    pub adjudication: Option<AdjudicationView>,
    /// A big or contradicting decision waiting for the coder's `y` (see
    /// [`Session::answer_pending`]).
    pub pending: Option<PendingDecision>,
    /// Decisions labeling more pairs than this ask first (`u64::MAX`: never for size).
    pub prompt_above_pairs: u64,
    /// After a verdict on a whole entry, go on to the next one (as Prodigy does); off, the
    /// screen stays on the entry just decided (`review --no-auto-advance`, toggled by a key).
    pub auto_advance: bool,
    pub message: String,
    pub progress: Vec<Progress>,
    /// What noise triage kept out of the default queue (documents per rule, copies).
    pub triage: TriageCounts,
    /// Entries made only of triaged noise (reachable with the noise filter).
    pub triaged_entries: u64,
    pub viewport: Viewport,
    pub quit: bool,
    /// First line shown on the help screen.
    pub help_scroll: usize,
    /// The methods with a run, for the method filter.
    pub(super) methods: Vec<String>,
    /// The text each method's latest finished run read (None: its parameters do not say),
    /// read once at the start so opening a pair or the group view reads no run.
    pub(super) run_texts: HashMap<String, Option<crate::store::TextKind>>,
    /// Whether any document has a main-content text (read once at the start, so `v`
    /// reads nothing).
    pub(super) has_main_texts: bool,
    undo: UndoStack,
    /// A key waiting for the worker's read to finish (see `waiting`).
    key_wait: Option<(u64, waiting::KeyWait)>,
    /// Keys pressed while `key_wait` is set, replayed in order when it lands.
    typed: waiting::TypedAhead,
    /// The tags in use (sanitized) the open tag prompt completes from, once read.
    prompt_tags: Option<Vec<String>>,
    batch_counter: u64,
    saves: Saving,
    /// `--replay-url`: the replay base members' replay links are made with.
    pub replay_base: Option<String>,
    /// Text an action asked to put on the clipboard; the terminal shell takes it (OSC 52).
    pub clipboard: Option<String>,
    /// Why the start (its reads or the queue's build) failed, for `Session::new`.
    failed_opening: Option<anyhow::Error>,
}

impl Session {
    /// Opens a session: brings the queue up to date with the runs, rebuilds undo/redo from
    /// the log and puts the cursor on the first unreviewed cluster — the start's reads and
    /// the queue done by the background worker and waited for (scripts and tests, which
    /// need it read at once).
    pub fn new(store: Store, coder: &str, blind: bool) -> Result<Session> {
        let mut s = Session::opened(store, coder, blind, false)?;
        s.wait_opened();
        match s.failed_opening.take() {
            Some(e) => Err(e),
            None => Ok(s),
        }
    }

    /// As [`Session::new`], but nothing is read here: the first frame is drawn at once,
    /// saying the queue is being read, while the background worker reads what every key
    /// needs ([`Job::Start`]: the labels a killed session left unwritten, the check that the
    /// queue is current, languages missing since an upgrade, the runs, the coder's log for
    /// undo, whether main texts exist), then builds a merged queue that must be rebuilt (new
    /// detector runs, new documents, an upgrade; the frame says so) and reads the queue (its
    /// length, counts, the first unreviewed entry and its rows). Keys typed before the
    /// queue is read wait for it (typed ahead); during a build they act on an empty queue
    /// (the terminal UI opens this way).
    pub fn start(store: Store, coder: &str, blind: bool) -> Result<Session> {
        Session::opened(store, coder, blind, false)
    }

    /// [`Session::start`] with the background worker held from the outset (nothing it is
    /// asked runs until [`Session::hold_background`] releases it), so a test sees the first
    /// frame whatever the timing.
    #[doc(hidden)]
    pub fn start_held(store: Store, coder: &str, blind: bool) -> Result<Session> {
        Session::opened(store, coder, blind, true)
    }

    fn opened(store: Store, coder: &str, blind: bool, held: bool) -> Result<Session> {
        // The label writer's commits copy the log back; a key's never does (a setting of
        // this connection: nothing is read).
        store.set_wal_autocheckpoint(0)?;
        let mut worker = Worker::new(store.path().to_path_buf());
        worker.hold(held);
        let start = worker.submit(Job::Start {
            coder: coder.to_string(),
        });
        let writer = LabelWriter::new(store.path().to_path_buf());
        let s = Session {
            store,
            coder: coder.to_string(),
            blind,
            background: Background {
                worker,
                evidence: None,
            },
            jobs: Jobs {
                start: Some(start),
                ..Jobs::default()
            },
            group_tables: Vec::new(),
            filter: QueueFilter::default(),
            sort: QueueSort::default(),
            queue_len: 0,
            cursor: 0,
            top: 0,
            pages: HashMap::new(),
            page_jobs: HashMap::new(),
            selection: BTreeMap::new(),
            stack: vec![Mode::Queue],
            cluster: None,
            pair: None,
            input: None,
            charts: None,
            adjudication: None,
            pending: None,
            prompt_above_pairs: PROMPT_ABOVE_PAIRS,
            auto_advance: true,
            message: START_MESSAGE.into(),
            progress: Vec::new(),
            triage: TriageCounts::default(),
            triaged_entries: 0,
            viewport: Viewport {
                queue_rows: 20,
                member_rows: 10,
                pane_width: 40,
                pane_height: 20,
                diff_width: 80,
            },
            quit: false,
            help_scroll: 0,
            methods: Vec::new(),
            run_texts: HashMap::new(),
            has_main_texts: false,
            undo: UndoStack::default(),
            key_wait: None,
            typed: waiting::TypedAhead::default(),
            prompt_tags: None,
            batch_counter: 0,
            saves: Saving::new(writer),
            replay_base: None,
            clipboard: None,
            failed_opening: None,
        };
        Ok(s)
    }

    /// Takes what the worker read at the start ([`Job::Start`]): the queue is built next if
    /// it must be, else read (with the filter and order set meanwhile, if any).
    fn apply_start(&mut self, result: Result<Output>) {
        match result {
            Ok(Output::Started(started)) => {
                let Started {
                    current,
                    methods,
                    run_texts,
                    undo,
                    has_main_texts,
                } = *started;
                self.methods = methods;
                self.run_texts = run_texts;
                self.undo = undo;
                self.has_main_texts = has_main_texts;
                let why = self.jobs.read_after_start.take();
                if current {
                    self.read_queue(why.unwrap_or(waiting::QueueRead::Resume));
                } else {
                    self.jobs.queue = Some(self.background.worker.submit(Job::BuildQueue));
                    self.message = "building the review queue from the detector runs (one entry per group of every detector's pairs)…".into();
                }
            }
            Ok(_) => {}
            Err(e) => {
                self.jobs.read_after_start = None;
                self.message = format!("cannot open the review: {e:#}");
                self.failed_opening = Some(e);
            }
        }
    }

    /// Waits until the start's reads, a build of the queue and its first read are done
    /// (`Session::new`).
    fn wait_opened(&mut self) {
        while self.jobs.start.is_some() || self.jobs.queue.is_some() || self.awaiting() {
            match self.background.worker.wait_result() {
                Some(done) => {
                    self.apply_result(done);
                }
                None => {
                    self.jobs = Jobs::default();
                    self.key_wait = None;
                    self.message = "the background worker stopped".into();
                    self.failed_opening = Some(anyhow::anyhow!("the background worker stopped"));
                }
            }
        }
    }

    /// Reads the queue just built on the worker, the cursor put on the first unreviewed
    /// entry when it lands.
    fn show_built_queue(&mut self) {
        self.read_queue(waiting::QueueRead::Resume);
    }

    /// Replaces the detectors' explanations with another provider (it runs on the
    /// background worker, hence `Send + Sync`).
    pub fn set_evidence_provider(&mut self, p: Box<dyn EvidenceProvider + Send + Sync>) {
        self.background.evidence = Some(std::sync::Arc::from(p));
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
                // The entry's members still being read are of no use any more.
                self.cancel_entry_jobs();
                self.cluster = None;
                self.pair = None;
            }
            Mode::Cluster => self.pair = None,
            _ => {}
        }
        if self.mode() != Mode::Chart {
            // The chart screen's work is of no use any more: its results are dropped.
            self.discard_charts();
            let charts = self.jobs.charts.take();
            let what_if = self.jobs.what_if.take().map(|(id, _)| id);
            for id in charts.into_iter().chain(what_if) {
                self.background.worker.cancel(id);
            }
        }
        if self.mode() != Mode::Adjudicate && !self.stack.contains(&Mode::Adjudicate) {
            if let Some((job, _)) = self.adjudication.take().and_then(|a| a.doc_job) {
                self.background.worker.cancel(job);
            }
        }
    }

    /// Closes the chart screen's figures; the worker frees them (every run's pairs).
    fn discard_charts(&mut self) {
        if let Some(v) = self.charts.take() {
            self.background.worker.submit(Job::Discard(Box::new(v)));
        }
    }

    /// Clears the queue's selection; a large one is freed by the worker (select-all keeps
    /// every entry of the filter with its members).
    pub(super) fn clear_selection(&mut self) {
        let old = std::mem::take(&mut self.selection);
        if old.len() > 1000 {
            self.background.worker.submit(Job::Discard(Box::new(old)));
        }
    }

    /// Runs a named action of the action table. An action on the queue's current row whose
    /// page is still being read (after a jump, or read ahead) waits for it: the worker
    /// reads it, keys meanwhile are typed ahead, and the action runs when it lands.
    pub fn run_action(&mut self, name: &str) -> Result<()> {
        match crate::review::actions::action(name) {
            Some(a) if a.modes.contains(&self.mode()) => {
                if a.row && !self.row_is_read() {
                    self.wait_for_row(waiting::AfterRow::Action(a.name));
                    return Ok(());
                }
                (a.run)(self)
            }
            Some(_) => Ok(()),
            None => {
                self.message = format!("unknown action {name}");
                Ok(())
            }
        }
    }
}
