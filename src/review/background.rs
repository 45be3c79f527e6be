//! Work the session runs off the UI thread, so no key waits for it and no key reads the
//! store on the UI thread to draw its screen: an opened entry's members (their rows, weakest
//! link, note, replay dates and the first two previews) and later members' previews (the
//! cluster screen); two documents with what every detector's run says about them,
//! sanitized, their evidence found and wrapped for the pane (the pair view); the word diff;
//! long documents wrapped again for a new width (a resize); the group view's table (every
//! member's text read and diffed against the source); the chart screen's figures (every
//! run's pairs read and binned) and a run's what-if curve; the merged queue when a
//! session starts on new detector runs; every queue page (those next to the visible ones
//! read ahead, those a jump shows); and the reads a key's effect needs
//! (`session::waiting`): a verdict's stored labels among the entry's members, the tags in
//! use for the tag prompt, an entry's links for a cut, the pairs coders disagree on and the
//! check of a final label, the session's start (the runs, the coder's log, the check that
//! the queue is current, whether main texts exist), the queue read anew for a filter, a
//! search, a new order or the start, every entry of the filter for select-all — with the adjudication screen's
//! documents, the open entry's status after a decision and the queue read again once the
//! label writer has written the decisions. One worker thread with
//! its own read connection to the database; a new job replaces the queued jobs it makes
//! useless (a new pair the queued pair work, a new entry the queued entry and preview
//! reads, a chart, group, diff, wrap, status or document job the queued one of its kind;
//! a read of the queue is never dropped so, since a key may wait for it: the session
//! cancels the ones it no longer wants),
//! and every result carries its job's number, so the session drops a result the coder has
//! moved past.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use anyhow::Result;

use super::charts::ChartView;
use super::evidence::{word_diff, DetectorEvidence, EvidenceProvider, Highlight};
use super::group::{GroupMember, GroupTable};
use super::replay::replay_url;
use super::sanitize::{sanitize, sanitize_line};
use super::session::{AdjudicationDoc, ADJUDICATION_CHARS, PAGE_ROWS, PREVIEW_CHARS};
use super::undo::UndoStack;
use super::wrap::wrap;
use crate::chart::{what_if, FigureRequest, LabeledPair, WhatIfPoint};
use crate::model::adjudication::Disagreement;
use crate::model::{LogEntry, PairLabel, Progress, QueueFilter, QueueRow, QueueSort, TriageCounts};
use crate::store::{ClusterMember, ClusterReview, PageAt, PairEvidence, Store, TextKind};

/// Members whose previews an opened entry's job reads (the anchor and the first
/// comparison).
const FIRST_PREVIEWS: usize = 2;

/// The worker thread's name (the panic hook of the terminal UI leaves a panic on this
/// thread to the worker, which reports it as a failed job).
pub const WORKER_THREAD: &str = "spotcheck-review-worker";

/// The evidence provider as the worker shares it.
pub type SharedEvidence = Arc<dyn EvidenceProvider + Send + Sync>;

/// One document as the pair view draws it: sanitized text, highlight spans and its lines
/// wrapped for `width`.
#[derive(Debug, Clone, Default)]
pub struct PreparedText {
    pub text: String,
    pub highlights: Vec<Highlight>,
    pub width: usize,
    pub lines: Vec<Range<usize>>,
}

/// What explains a pair's shared text in the pair view.
pub enum Explain {
    /// Blind mode: no scores, no evidence.
    Blind,
    /// Each detector's latest run: its scores for the pair read here, the highlights under
    /// the parameters of the run that scored it.
    Detectors,
    /// A provider set by the session (tests, scripts) instead of the detectors'.
    Custom(SharedEvidence),
}

/// What to compute.
pub enum Job {
    /// The session's start for `coder`: the labels a killed session left unwritten, the
    /// check that the merged queue is current (a count of the documents), languages
    /// missing since an upgrade, the runs, the coder's log for undo and whether any main
    /// text is stored (see [`Started`]).
    Start { coder: String },
    /// Entry `entry` of the merged queue opened by `coder`: its members (sanitized), its
    /// weakest link, the coder's note on it, each member's replay URL when the review has
    /// a replay base, and the previews of its first two members (the cluster screen's
    /// anchor and comparison when it opens).
    Entry {
        entry: i64,
        run_id: i64,
        coder: String,
        replay_base: Option<String>,
    },
    /// The previews of members `ids` of the open entry `entry`.
    Previews { entry: i64, ids: Vec<i64> },
    /// Documents `a` (left) and `b` (right), explained by `explain`.
    Pair {
        a: i64,
        b: i64,
        kind: TextKind,
        width: usize,
        explain: Explain,
    },
    /// The word diff of two sanitized texts.
    Diff {
        left: String,
        right: String,
        width: usize,
    },
    /// Texts of the pair view opened by job `generation`, to wrap again for a new width.
    Wrap {
        generation: u64,
        texts: Vec<(Pane, String, usize)>,
    },
    /// The group table of an entry's members `(id, url)`: their `kind` text and capture
    /// dates read, each diffed against the earliest capture (or `fallback_anchor`).
    Group {
        members: Vec<(i64, String)>,
        kind: TextKind,
        fallback_anchor: i64,
    },
    /// The merged review queue brought up to date with the runs (a write).
    BuildQueue,
    /// The queue pages from `page` on of `coder`'s queue under `filter` and `sort`: `rows`
    /// rows from `at` (a jump's visible pages in one read; titles, tags and names
    /// sanitized).
    QueuePage {
        page: u64,
        coder: String,
        filter: QueueFilter,
        sort: QueueSort,
        at: PageAt,
        rows: u64,
    },
    /// The queue read again — once the label writer has written every decision, and for
    /// the keys that change what it holds (a filter, a search, the order) and the session's
    /// start: its length under `filter`, `coder`'s progress, the triage counts and pages
    /// `pages` (100 rows each, read by offset from the nearer end). `resume: Some(rows)`
    /// (the start) also finds the first entry not fully reviewed, for the cursor, and reads
    /// the pages of the `rows` visible rows that end there instead.
    Reload {
        coder: String,
        filter: QueueFilter,
        sort: QueueSort,
        pages: Vec<u64>,
        resume: Option<u64>,
    },
    /// Every entry `filter` keeps, by (run, cluster), with its members (select-all).
    Selection {
        coder: String,
        filter: QueueFilter,
        sort: QueueSort,
    },
    /// `coder`'s stored pair labels among `members` (what a verdict on them would change,
    /// asked before it is recorded).
    StoredLabels { coder: String, members: Vec<i64> },
    /// Every tag in use (sanitized), for the tag prompt's completion.
    Tags,
    /// Entry `entry`'s weakest link and its merged pairs (to cut it at the link).
    CutEdges { entry: i64 },
    /// The pairs coders disagree on, with every verdict (the adjudication screen).
    Disagreements,
    /// Documents `ids` as the adjudication screen shows them.
    AdjudicationDocs { ids: Vec<i64> },
    /// The log entries of adjudicator `name`'s final label of pair (a, b), checked.
    Adjudge {
        name: String,
        a: i64,
        b: i64,
        label: PairLabel,
    },
    /// What `coder`'s labels say of entry `cluster` of run `run_id` (the open entry's
    /// status, tags and note after a decision).
    ClusterStatus {
        coder: String,
        run_id: i64,
        cluster: i64,
    },
    /// The chart screen of `coder`: every run's figures read, the first run's what-if.
    Charts { coder: String },
    /// Something large the session let go of, freed here: a chart screen the coder left
    /// (its figures hold every run's pairs, millions at a million pages) or a selection of
    /// every entry cleared; giving their memory back takes the UI thread tens of
    /// milliseconds.
    Discard(Box<dyn std::any::Any + Send>),
    /// The what-if points of run `run` (an index into the chart screen's runs) at
    /// `thresholds`.
    WhatIf {
        run: usize,
        pairs: Arc<Vec<(i64, i64, f64)>>,
        labels: Arc<Vec<LabeledPair>>,
        thresholds: Vec<f64>,
    },
}

/// A pane of the pair view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Left,
    Right,
    Diff,
}

impl Job {
    /// Whether queuing `self` makes the queued `old` useless.
    fn supersedes(&self, old: &Job) -> bool {
        matches!(
            (self, old),
            (
                Job::Pair { .. },
                Job::Pair { .. } | Job::Diff { .. } | Job::Wrap { .. }
            ) | (Job::Entry { .. }, Job::Entry { .. } | Job::Previews { .. })
                | (Job::Previews { .. }, Job::Previews { .. })
                | (Job::Diff { .. }, Job::Diff { .. })
                | (Job::Wrap { .. }, Job::Wrap { .. })
                | (Job::Group { .. }, Job::Group { .. })
                | (Job::Charts { .. }, Job::Charts { .. } | Job::WhatIf { .. })
                | (Job::WhatIf { .. }, Job::WhatIf { .. })
                | (Job::BuildQueue, Job::BuildQueue)
                | (Job::ClusterStatus { .. }, Job::ClusterStatus { .. })
                | (Job::AdjudicationDocs { .. }, Job::AdjudicationDocs { .. })
        )
    }
}

/// An opened entry as the worker read it (everything the cluster screen shows beyond the
/// queue row).
#[derive(Debug, Clone, Default)]
pub struct EntryLoaded {
    pub entry: i64,
    /// Sorted by id, URLs and titles sanitized.
    pub members: Vec<ClusterMember>,
    /// Each member's replay URL (sanitized), when the review has a replay base.
    pub replay: HashMap<i64, String>,
    pub bridge: Option<(i64, i64, f64)>,
    /// The coder's note on the entry (sanitized).
    pub note: Option<String>,
    /// Previews (sanitized) of the first members.
    pub previews: Vec<(i64, String)>,
}

/// What [`Job::Start`] read: everything a key needs before the queue (the first frame is
/// drawn without it).
#[derive(Debug, Clone, Default)]
pub struct Started {
    /// Whether the merged queue is up to date with the runs and the documents (false: it
    /// must be built, [`Job::BuildQueue`]).
    pub current: bool,
    /// The methods with a run, sorted (the method filter).
    pub methods: Vec<String>,
    /// The text each method's latest finished run read (None: its parameters do not say).
    pub run_texts: HashMap<String, Option<TextKind>>,
    /// The coder's undo and redo, from the log.
    pub undo: UndoStack,
    /// Whether any document has a main-content text (`v` skips it otherwise).
    pub has_main_texts: bool,
}

/// The queue as [`Job::Reload`] read it.
#[derive(Debug, Clone, Default)]
pub struct Reloaded {
    pub queue_len: u64,
    pub progress: Vec<Progress>,
    pub triage: TriageCounts,
    pub triaged_entries: u64,
    /// The pages asked for, by number, rows sanitized.
    pub pages: Vec<(u64, Vec<QueueRow>)>,
    /// With `resume`: the position of the first entry not fully reviewed (0 if none).
    pub cursor: Option<u64>,
}

/// What a job produced.
pub enum Output {
    Started(Box<Started>),
    Entry(Box<EntryLoaded>),
    Previews {
        entry: i64,
        previews: Vec<(i64, String)>,
    },
    Pair {
        left: PreparedText,
        right: PreparedText,
        /// What each detector's latest run says about the pair (empty when blind).
        evidence: Vec<PairEvidence>,
    },
    Diff(PreparedText),
    /// Wrapped lines for the panes of the pair view opened by job `generation`, each with
    /// its width.
    Wrapped {
        generation: u64,
        lines: Vec<(Pane, usize, Vec<Range<usize>>)>,
    },
    QueueBuilt,
    QueuePage {
        page: u64,
        rows: Vec<QueueRow>,
    },
    Reloaded(Box<Reloaded>),
    /// Every entry of the filter: (run, cluster) → members.
    Selection(BTreeMap<(i64, i64), Vec<i64>>),
    /// Each stored pair label among the members: ((a, b), label) with a < b.
    StoredLabels(Vec<((i64, i64), String)>),
    ClusterStatus {
        cluster: i64,
        review: ClusterReview,
    },
    Tags(Vec<String>),
    CutEdges {
        bridge: Option<(i64, i64, f64)>,
        edges: Vec<(i64, i64, f64)>,
    },
    Disagreements(Vec<Disagreement>),
    AdjudicationDocs(Vec<AdjudicationDoc>),
    /// The adjudicator's coder key and the entries to append.
    Adjudge {
        coder: String,
        entries: Vec<LogEntry>,
    },
    Group(GroupTable),
    Charts(Box<ChartView>),
    WhatIf {
        run: usize,
        points: Vec<WhatIfPoint>,
    },
    /// A [`Job::Discard`] done.
    Discarded,
}

/// A result: the job's number and what it produced (or why it failed).
pub type Done = (u64, Result<Output>);

#[derive(Default)]
struct Slot {
    /// Queued jobs, oldest first.
    jobs: Vec<(u64, Job)>,
    /// Tests hold the worker to see the frames drawn while work is pending.
    held: bool,
    /// Jobs a held worker may still run (tests stepping through work one job at a time).
    steps: usize,
    quit: bool,
}

struct Shared {
    slot: Mutex<Slot>,
    wake: Condvar,
}

impl Shared {
    /// The slot, even if a panicking job poisoned the lock (the slot itself stays valid).
    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The worker thread and the channel its results come back on.
pub struct Worker {
    db: PathBuf,
    shared: Arc<Shared>,
    results: Receiver<Done>,
    sender: Sender<Done>,
    started: bool,
    next_id: u64,
}

impl Worker {
    /// A worker for the database at `db` (the thread starts with the first job).
    pub fn new(db: PathBuf) -> Worker {
        let (sender, results) = mpsc::channel();
        Worker {
            db,
            shared: Arc::new(Shared {
                slot: Mutex::new(Slot::default()),
                wake: Condvar::new(),
            }),
            results,
            sender,
            started: false,
            next_id: 0,
        }
    }

    /// Queues `job` in place of the queued jobs it supersedes, and returns its number.
    pub fn submit(&mut self, job: Job) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        if !self.started {
            self.started = true;
            let (shared, sender, db) = (self.shared.clone(), self.sender.clone(), self.db.clone());
            let spawned = std::thread::Builder::new()
                .name(WORKER_THREAD.into())
                .spawn(move || worker_loop(&shared, &sender, &db));
            if spawned.is_err() {
                // No thread: compute here rather than never.
                self.started = false;
                let mut store = None;
                let _ = self.sender.send((id, run_job(&mut store, &self.db, job)));
                return id;
            }
        }
        {
            let mut slot = self.shared.lock();
            slot.jobs.retain(|(_, old)| !job.supersedes(old));
            slot.jobs.push((id, job));
        }
        self.shared.wake.notify_one();
        id
    }

    /// Drops job `id` if it is still queued (the coder left the screen it was for).
    pub fn cancel(&self, id: u64) {
        self.shared.lock().jobs.retain(|(j, _)| *j != id);
    }

    /// Holds queued jobs back (true) or lets them run (false); for tests.
    pub fn hold(&self, held: bool) {
        self.shared.lock().held = held;
        self.shared.wake.notify_one();
    }

    /// Lets a held worker run one more queued job (or the next one queued); for tests.
    pub fn step(&self) {
        self.shared.lock().steps += 1;
        self.shared.wake.notify_one();
    }

    /// A finished job's result, if one is waiting.
    pub fn try_result(&self) -> Option<Done> {
        self.results.try_recv().ok()
    }

    /// Waits for the next result (None if the worker is gone).
    pub fn wait_result(&self) -> Option<Done> {
        self.results.recv().ok()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.shared.lock().quit = true;
        self.shared.wake.notify_one();
    }
}

fn worker_loop(shared: &Shared, sender: &Sender<Done>, db: &std::path::Path) {
    let mut store: Option<Store> = None;
    loop {
        let (id, job) = {
            let mut slot = shared.lock();
            loop {
                if slot.quit {
                    return;
                }
                if (!slot.held || slot.steps > 0) && !slot.jobs.is_empty() {
                    if slot.held {
                        slot.steps -= 1;
                    }
                    break slot.jobs.remove(0);
                }
                slot = shared.wake.wait(slot).unwrap_or_else(|e| e.into_inner());
            }
        };
        // A bug in a job must not take the pair view down with it: report it as a failure.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_job(&mut store, db, job)
        }))
        .unwrap_or_else(|payload| {
            store = None;
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(anyhow::anyhow!("the background work panicked: {what}"))
        });
        if sender.send((id, result)).is_err() {
            return;
        }
    }
}

/// The worker's connection, opened on first use.
fn connection<'a>(store: &'a mut Option<Store>, db: &std::path::Path) -> Result<&'a mut Store> {
    if store.is_none() {
        *store = Some(Store::open_for_session_thread(db)?);
    }
    match store.as_mut() {
        Some(st) => Ok(st),
        None => anyhow::bail!("no database connection"),
    }
}

fn run_job(store: &mut Option<Store>, db: &std::path::Path, job: Job) -> Result<Output> {
    match job {
        Job::Start { coder } => {
            let st = connection(store, db)?;
            Ok(Output::Started(Box::new(start(st, &coder)?)))
        }
        Job::BuildQueue => {
            connection(store, db)?.refresh_review_queue()?;
            Ok(Output::QueueBuilt)
        }
        Job::QueuePage {
            page,
            coder,
            filter,
            sort,
            at,
            rows,
        } => Ok(Output::QueuePage {
            page,
            rows: connection(store, db)?
                .queue_rows(&coder, &filter, sort, at, rows)?
                .into_iter()
                .map(clean_row)
                .collect(),
        }),
        Job::Tags => Ok(Output::Tags(
            connection(store, db)?
                .all_tags()?
                .iter()
                .map(|t| sanitize_line(t))
                .collect(),
        )),
        Job::CutEdges { entry } => {
            let st = connection(store, db)?;
            Ok(Output::CutEdges {
                bridge: st.entry_bridge(entry)?,
                edges: st.entry_edges(entry)?,
            })
        }
        Job::Disagreements => Ok(Output::Disagreements(
            connection(store, db)?.disagreements(false)?,
        )),
        Job::AdjudicationDocs { ids } => {
            let st = connection(store, db)?;
            let briefs = st.doc_briefs(&ids)?;
            let mut docs = Vec::with_capacity(ids.len());
            for id in ids {
                let text = st.document_preview(id, ADJUDICATION_CHARS)?;
                let url = briefs.get(&id).map_or("", |b| b.url.as_str());
                docs.push(AdjudicationDoc {
                    id,
                    url: sanitize_line(url),
                    text: sanitize(&text),
                });
            }
            Ok(Output::AdjudicationDocs(docs))
        }
        Job::Adjudge { name, a, b, label } => {
            let (coder, entries) =
                connection(store, db)?.adjudication_entries(&name, a, b, label, None)?;
            Ok(Output::Adjudge { coder, entries })
        }
        Job::Reload {
            coder,
            filter,
            sort,
            mut pages,
            resume,
        } => {
            let st = connection(store, db)?;
            let queue_len = st.queue_len(&coder, &filter)?;
            let cursor = match resume {
                None => None,
                Some(visible) => {
                    let at = st.first_unreviewed(&coder, &filter, sort)?.unwrap_or(0);
                    // The rows shown end at the cursor (the view scrolls down to it).
                    let first = (at + 1).saturating_sub(visible.max(1));
                    pages = (first / PAGE_ROWS..=at / PAGE_ROWS).collect();
                    Some(at)
                }
            };
            let mut read = Vec::with_capacity(pages.len());
            for page in pages {
                let start = page * PAGE_ROWS;
                let end = (start + PAGE_ROWS).min(queue_len);
                if start >= end {
                    continue;
                }
                let at = if start > queue_len / 2 {
                    PageAt::FromEnd(queue_len - end)
                } else {
                    PageAt::Offset(start)
                };
                let rows = st.queue_rows(&coder, &filter, sort, at, end - start)?;
                read.push((page, rows.into_iter().map(clean_row).collect()));
            }
            Ok(Output::Reloaded(Box::new(Reloaded {
                queue_len,
                progress: st.review_progress(&coder)?,
                triage: st.triage_counts()?,
                triaged_entries: st.triaged_entries()?,
                pages: read,
                cursor,
            })))
        }
        Job::Selection {
            coder,
            filter,
            sort,
        } => {
            let st = connection(store, db)?;
            let mut selection = BTreeMap::new();
            let mut at = PageAt::Offset(0);
            loop {
                let rows = st.queue_rows(&coder, &filter, sort, at, 1000)?;
                let Some(last) = rows.last() else {
                    break;
                };
                at = PageAt::After(last.rank);
                for r in rows {
                    selection.insert((r.run_id, r.cluster), r.members);
                }
            }
            Ok(Output::Selection(selection))
        }
        Job::StoredLabels { coder, members } => Ok(Output::StoredLabels(
            connection(store, db)?.pair_labels_within(&coder, &members)?,
        )),
        Job::ClusterStatus {
            coder,
            run_id,
            cluster,
        } => Ok(Output::ClusterStatus {
            cluster,
            review: connection(store, db)?.cluster_review(&coder, run_id, cluster)?,
        }),
        Job::Group {
            members,
            kind,
            fallback_anchor,
        } => {
            let st = connection(store, db)?;
            let ids: Vec<i64> = members.iter().map(|m| m.0).collect();
            let dates = st.capture_dates(&ids)?;
            let mut with_text = Vec::with_capacity(members.len());
            for (id, url) in members {
                with_text.push(GroupMember {
                    id,
                    url,
                    captured: dates.get(&id).map(|d| sanitize_line(d)),
                    text: st.doc_text(id, kind)?.unwrap_or_default(),
                });
            }
            Ok(Output::Group(GroupTable::build(
                &with_text,
                fallback_anchor,
            )))
        }
        Job::Charts { coder } => {
            let st = connection(store, db)?;
            let figures = crate::chart::load_figures(
                st,
                &FigureRequest {
                    coder: Some(coder),
                    ..Default::default()
                },
            )?;
            Ok(Output::Charts(Box::new(ChartView::new(figures))))
        }
        Job::Discard(view) => {
            drop(view);
            Ok(Output::Discarded)
        }
        Job::WhatIf {
            run,
            pairs,
            labels,
            thresholds,
        } => Ok(Output::WhatIf {
            run,
            points: what_if(&pairs, &labels, &thresholds),
        }),
        Job::Entry {
            entry,
            run_id,
            coder,
            replay_base,
        } => {
            let st = connection(store, db)?;
            Ok(Output::Entry(Box::new(read_entry(
                st,
                entry,
                run_id,
                &coder,
                replay_base.as_deref(),
            )?)))
        }
        Job::Previews { entry, ids } => {
            let st = connection(store, db)?;
            Ok(Output::Previews {
                entry,
                previews: previews(st, &ids)?,
            })
        }
        Job::Pair {
            a,
            b,
            kind,
            width,
            explain,
        } => {
            let st = connection(store, db)?;
            let (evidence, explanation) = match explain {
                Explain::Blind => (Vec::new(), None),
                Explain::Custom(e) => (st.pair_evidence(a, b)?, Some(e)),
                Explain::Detectors => {
                    let rows = st.pair_evidence(a, b)?;
                    let e = detectors_explanation(st, &rows)?;
                    (rows, Some(e))
                }
            };
            let text = |id: i64| -> Result<String> {
                Ok(match st.review_document(id)? {
                    None => String::new(),
                    Some(d) => sanitize(match kind {
                        TextKind::Main => d.main_text.as_deref().unwrap_or(&d.visible_text),
                        TextKind::Visible => &d.visible_text,
                        TextKind::Content => d.content_text.as_deref().unwrap_or(&d.visible_text),
                    }),
                })
            };
            let (left, right) = (text(a)?, text(b)?);
            let (lh, rh) = match &explanation {
                Some(e) => e.highlights(&left, &right),
                None => (Vec::new(), Vec::new()),
            };
            Ok(Output::Pair {
                left: prepared(left, lh, width),
                right: prepared(right, rh, width),
                evidence,
            })
        }
        Job::Diff { left, right, width } => {
            let (text, spans) = word_diff(&left, &right);
            Ok(Output::Diff(prepared(text, spans, width)))
        }
        Job::Wrap { generation, texts } => Ok(Output::Wrapped {
            generation,
            lines: texts
                .into_iter()
                .map(|(pane, text, width)| (pane, width, wrap(&text, width)))
                .collect(),
        }),
    }
}

/// A queue row as the queue shows it: title, tags and names sanitized.
pub(super) fn clean_row(mut r: QueueRow) -> QueueRow {
    r.title = sanitize_line(&r.title);
    r.tags = r.tags.iter().map(|t| sanitize_line(t)).collect();
    r.method = sanitize_line(&r.method);
    r.detectors = r.detectors.iter().map(|d| sanitize_line(d)).collect();
    r
}

/// The session's start on the worker's connection (see [`Job::Start`]).
fn start(st: &mut Store, coder: &str) -> Result<Started> {
    // Labels a killed session left unwritten (`Store::open` writes them too).
    st.materialize_pending()?;
    // The documents are counted once for both checks below (a scan of an index).
    let docs = st.documents_fingerprint()?;
    let current = st.review_queue_is_current_for(&docs)?;
    // Documents stored before languages were kept get theirs (the pane headers show it).
    st.fill_missing_langs_for(&docs)?;
    let runs = st.runs()?;
    // In id order: each method's latest finished run is the last one kept.
    let run_texts = runs
        .iter()
        .filter(|r| r.finished)
        .map(|r| {
            let text = r
                .params
                .get("text")
                .and_then(|t| serde_json::from_value(t.clone()).ok());
            (r.method.clone(), text)
        })
        .collect();
    let mut methods: Vec<String> = runs.into_iter().map(|r| r.method).collect();
    methods.sort();
    methods.dedup();
    Ok(Started {
        current,
        methods,
        run_texts,
        undo: UndoStack::from_log(&st.decision_log(coder)?),
        has_main_texts: st.has_main_texts()?,
    })
}

/// Entry `entry` as the cluster screen shows it (see [`Job::Entry`]).
fn read_entry(
    st: &Store,
    entry: i64,
    run_id: i64,
    coder: &str,
    replay_base: Option<&str>,
) -> Result<EntryLoaded> {
    let raw = st.entry_members(entry)?;
    let mut replay = HashMap::new();
    if let Some(base) = replay_base {
        let ids: Vec<i64> = raw.iter().map(|m| m.id).collect();
        let dates = st.capture_dates(&ids)?;
        for m in &raw {
            let date = dates.get(&m.id).map(String::as_str);
            replay.insert(m.id, replay_url(base, date, &m.url));
        }
    }
    let members: Vec<ClusterMember> = raw
        .into_iter()
        .map(|mut m| {
            m.url = sanitize_line(&m.url);
            m.title = sanitize_line(&m.title);
            m
        })
        .collect();
    let first: Vec<i64> = members.iter().take(FIRST_PREVIEWS).map(|m| m.id).collect();
    Ok(EntryLoaded {
        entry,
        bridge: st.entry_bridge(entry)?,
        note: st
            .cluster_review(coder, run_id, entry)?
            .note
            .as_deref()
            .map(sanitize_line),
        previews: previews(st, &first)?,
        members,
        replay,
    })
}

/// The sanitized start of each document's visible text.
fn previews(st: &Store, ids: &[i64]) -> Result<Vec<(i64, String)>> {
    ids.iter()
        .map(|&id| Ok((id, sanitize(&st.document_preview(id, PREVIEW_CHARS)?))))
        .collect()
}

/// The detectors' explanation of a pair: each method under the parameters of the run that
/// scored it (the runs the merged queue's entries are built from), so the highlights are
/// the evidence those runs used, not the defaults'.
fn detectors_explanation(st: &Store, evidence: &[PairEvidence]) -> Result<SharedEvidence> {
    let mut runs = Vec::new();
    for e in evidence {
        let params = st.resolve_run(&e.method, Some(e.run_id))?.params;
        runs.push((e.method.clone(), params, e.detail.clone()));
    }
    Ok(Arc::new(DetectorEvidence::for_runs(runs)))
}

fn prepared(text: String, highlights: Vec<Highlight>, width: usize) -> PreparedText {
    let lines = wrap(&text, width);
    PreparedText {
        text,
        highlights,
        width,
        lines,
    }
}
