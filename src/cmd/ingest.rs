//! `spotcheck ingest`: a three-stage pipeline with bounded memory.
//!
//! 1. A reader thread walks the inputs in order, skips files already ingested (by content
//!    hash), and sends records in batches of bounded size. Page files (a folder's pages) are
//!    read once, for their hash and their record, and many of them travel as one group.
//! 2. The calling thread extracts each batch (or group) in parallel (rayon), keeping the
//!    order.
//! 3. A writer thread owns the store and writes each batch in one transaction; a thread of
//!    its own counts the written pages' blocks per site (for the content pass), so the
//!    writer, the longest serial stage, only writes.
//!
//! Channels between the stages hold at most a few batches (two read, [`WRITES_AHEAD`]
//! extracted), so memory stays bounded by a few batches however large the crawl. Record order, and so document ids, are deterministic.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use crossbeam_channel::{bounded, Receiver, Sender};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use sha1::{Digest, Sha1};

use crate::extract::content::{self, ContentRule, SiteBlocks};
use crate::extract::{self, ExtractOptions};
use crate::ingest::{self, CrawlRecord, InputFile, ReadItem, ReaderOptions};
use crate::sig::imatch::to_hex as hex;
use crate::store::{
    ContentUpdate, DocumentCopy, NewCapture, NewDocument, PayloadDocs, RevisitResolution,
    SourceState, Store, WriteOp,
};

/// Records (or bytes of payload) per batch: large enough to keep both cores busy, small
/// enough to bound memory.
const BATCH_RECORDS: usize = 256;
const BATCH_BYTES: usize = 32 << 20;
/// Writes per shared transaction in the writer.
const BULK_WRITES: usize = 2048;

/// The write-ahead log's largest size during the first pass before the writer truncates it
/// (see `Writer::commit`): disk for a million-page ingest is the database plus this, not
/// the database twice.
const WAL_MAX_BYTES: u64 = 1 << 30;
/// Extracted batches waiting for the writer, at most: the writer is the longest serial
/// stage, and while it commits or writes a batch of long texts the extraction goes on
/// (extracted batches hold texts, smaller than the raw payloads before them).
const WRITES_AHEAD: usize = 4;
/// Payload bytes of a crawl file read ahead while its identity hash is made, at most.
const READ_AHEAD_BYTES: usize = BATCH_BYTES;
/// Batches of pages waiting to be counted per site, at most.
const COUNTS_AHEAD: usize = 4;

/// Options of one ingest run.
#[derive(Debug, Clone, Default)]
pub struct IngestOptions {
    pub extract: ExtractOptions,
    pub reader: ReaderOptions,
    /// Skip the content-text pass (`--no-content`): the detectors then read the visible
    /// text, and languages are identified on it. The ingest cost of the content text is
    /// measured against this (issue 14's ≤ 1.5× goal).
    pub no_content: bool,
    /// Extract and content-pass every page on its own, even an exact copy of an earlier
    /// page's payload (by default its results are reused: [`Payloads`],
    /// `Store::update_content_texts`). The same output, slower: the reference the tests
    /// compare the reuse against.
    pub each_on_its_own: bool,
}

/// What an ingest run did; printed as one line or as one JSON object.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct IngestSummary {
    /// Files read in this run.
    pub sources_read: u64,
    /// Files skipped because the same content was already fully ingested.
    pub sources_skipped: u64,
    pub bytes_read: u64,
    pub records_by_type: BTreeMap<String, u64>,
    pub documents_added: u64,
    /// Documents in the database whose visible text equals an earlier document's.
    pub exact_duplicates: u64,
    /// Pages of this run whose payload an earlier page of the run had: stored from that
    /// page's texts, not extracted again.
    pub payload_copies: u64,
    pub revisits: RevisitResolution,
    /// The content-text pass over the database (after this run's pages are in).
    pub content: ContentUpdate,
    /// Seconds of that pass (part of `seconds`).
    pub content_seconds: f64,
    /// Errors found in this run (damaged records, pages that could not be extracted).
    pub errors: u64,
    pub seconds: f64,
    /// Seconds each stage of the first pass worked (not waiting for the stage before or
    /// after it): where its wall time goes.
    pub stage_seconds: StageSeconds,
}

/// Seconds each stage of the first pass spent working, not waiting on a channel (a stage
/// whose time is near the pass's wall time is the one the others wait for). Measured in
/// wall time: on a loaded machine they include waiting for a core.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct StageSeconds {
    /// The first pass's wall time (read to last write committed).
    pub pass: f64,
    /// The reader: files read, decompressed, split into records.
    pub read: f64,
    /// The extraction, records to writes (its parallel part on the thread pool).
    pub extract: f64,
    /// The writer.
    pub write: f64,
    /// The site block counting beside the writer.
    pub count: f64,
    /// Revisits, duplicate groups and the copies' block counts, between the two passes.
    pub settle: f64,
}

impl IngestSummary {
    /// The one-line summary printed at the end of a run.
    pub fn line(&self) -> String {
        let types: Vec<String> = self
            .records_by_type
            .iter()
            .map(|(t, n)| format!("{t} {n}"))
            .collect();
        format!(
            "ingested {} files ({} already present, skipped), {:.1} MB in {:.1}s; records: {}; \
             documents added {}; exact duplicates {}; revisits resolved {} (not pages {}, \
             unresolved {}); content texts {} (template removed {}, per page {}, visible {}; \
             {:.1}s); errors {}",
            self.sources_read,
            self.sources_skipped,
            self.bytes_read as f64 / 1e6,
            self.seconds,
            if types.is_empty() {
                "none".to_string()
            } else {
                types.join(", ")
            },
            self.documents_added,
            self.exact_duplicates,
            self.revisits.resolved,
            self.revisits.not_a_document,
            self.revisits.unresolved,
            self.content.documents,
            self.content.template,
            self.content.per_page,
            self.content.visible,
            self.content_seconds,
            self.errors
        ) + &if self.content.without_signals > 0 {
            format!(
                "; {} per-page content texts made without structure signals (pages stored \
                 before they were kept: ingest them into a new database to use them)",
                self.content.without_signals
            )
        } else {
            String::new()
        }
    }

    /// True when the run could read nothing at all (and skipped nothing as known).
    pub fn read_nothing(&self) -> bool {
        self.records_by_type.values().sum::<u64>() == 0 && self.sources_skipped == 0
    }
}

/// What `ingest` reads, into which database, and how it reports.
#[derive(Debug, Clone)]
pub struct IngestConfig {
    pub db: PathBuf,
    pub paths: Vec<PathBuf>,
    /// Also extract the main-content text (`--main`; off by default).
    pub main: bool,
    /// Skip the content-text pass (`--no-content`).
    pub no_content: bool,
    /// Pages larger than this (after decompression) are stored as errors.
    pub max_page_bytes: usize,
    /// Column names for page tables (CSV, Parquet).
    pub columns: crate::ingest::table::ColumnMap,
    pub json: bool,
    /// Never draw a progress bar.
    pub quiet: bool,
}

pub fn run(a: &IngestConfig) -> Result<ExitCode> {
    let inputs = ingest::expand_inputs(&a.paths)?;
    let mut store = Store::open(&a.db)?;
    let opts = IngestOptions {
        extract: ExtractOptions {
            main_content: a.main,
            max_bytes: a.max_page_bytes,
        },
        reader: ReaderOptions {
            max_body_bytes: a.max_page_bytes,
            columns: a.columns.clone(),
        },
        no_content: a.no_content,
        each_on_its_own: false,
    };
    let show_bar = !a.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    // A store error (a full disk, a damaged file) names the database it is about.
    let summary = ingest_inputs(&mut store, &inputs, &opts, show_bar)
        .with_context(|| format!("cannot ingest into {}", a.db.display()))?;
    if a.json {
        crate::cmd::write_json_line(&mut std::io::stdout().lock(), &summary)?;
    } else {
        crate::cmd::outln!("{}", summary.line())?;
    }
    if summary.read_nothing() {
        eprintln!(
            "spotcheck: error: nothing could be read from {}; see `spotcheck errors --db {}`",
            a.paths
                .iter()
                .map(|p| crate::review::sanitize_line(&p.display().to_string()))
                .collect::<Vec<_>>()
                .join(", "),
            crate::review::sanitize_line(&a.db.display().to_string())
        );
        return Ok(ExitCode::FAILURE);
    }
    // Records read but no page among them (a crawl of images, a WARC of requests only, a
    // table whose text column is empty): never a silent success.
    if summary.sources_read > 0 && summary.documents_added == 0 {
        let empty = store.stats_documents()? == 0;
        eprintln!(
            "spotcheck: {}: {} read {} records ({}) but none became a document (no HTML or \
             text payload); see `spotcheck errors --db {}`",
            if empty { "error" } else { "warning" },
            a.paths
                .iter()
                .map(|p| crate::review::sanitize_line(&p.display().to_string()))
                .collect::<Vec<_>>()
                .join(", "),
            summary.records_by_type.values().sum::<u64>(),
            summary
                .records_by_type
                .iter()
                .map(|(t, n)| format!("{t} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
            a.db.display()
        );
        if empty {
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Convenience for tests and the demo: expand `paths` and ingest them into the database.
pub fn ingest_paths(db: &Path, paths: &[PathBuf], opts: &IngestOptions) -> Result<IngestSummary> {
    let inputs = ingest::expand_inputs(paths)?;
    let mut store = Store::open(db)?;
    ingest_inputs(&mut store, &inputs, opts, false)
}

/// What flows from the reader to the extractor to the writer.
enum Stage {
    /// A new source: `seq` numbers sources of this run.
    Begin {
        seq: usize,
        input: InputFile,
        size: u64,
        hash: String,
    },
    /// Records of source `seq` (before extraction).
    Records(usize, Vec<ReadItem>),
    /// Writes of source `seq` (after extraction); `source_id` fields hold `seq`.
    Writes(usize, Vec<WriteOp>),
    /// The end of source `seq`, with its records by type.
    End {
        seq: usize,
        counts: BTreeMap<String, u64>,
    },
    /// The stages of many small sources (page files of a folder) in one message, so that
    /// their records are extracted in parallel and the threads do not trade a message per
    /// page.
    Group(Vec<Stage>),
}

/// Ingests already expanded inputs. Returns the run's summary.
pub fn ingest_inputs(
    store: &mut Store,
    inputs: &[InputFile],
    opts: &IngestOptions,
    show_bar: bool,
) -> Result<IngestSummary> {
    let started = Instant::now();
    store.tune_for_bulk_load()?;
    store.set_meta(
        "ingest.params",
        &serde_json::json!({
            "main_content": opts.extract.main_content,
            "max_page_bytes": opts.extract.max_bytes,
        })
        .to_string(),
    )?;
    let total_bytes: u64 = inputs
        .iter()
        .map(|i| std::fs::metadata(&i.path).map(|m| m.len()).unwrap_or(0))
        .sum();
    let bar = if show_bar {
        let b = ProgressBar::new(total_bytes);
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta}) {msg}",
        ) {
            b.set_style(style);
        }
        b
    } else {
        ProgressBar::hidden()
    };

    // Into an empty database, the writer's block counts of this run's pages are all the
    // counts the content pass needs.
    let fresh = store.stats_documents()? == 0;
    store.ensure_load_indexes()?;
    let late_indexes = store.drop_load_indexes_if_empty()?;
    let db_path = store.path().to_path_buf();
    let (raw_tx, raw_rx) = bounded::<Stage>(2);
    let (out_tx, out_rx) = bounded::<Stage>(WRITES_AHEAD);
    let reader_opts = opts.reader.clone();
    let reader_bar = bar.clone();
    let inputs_owned = inputs.to_vec();

    std::thread::scope(|scope| -> Result<IngestSummary> {
        let reader = scope
            .spawn(move || read_stage(&db_path, &inputs_owned, &reader_opts, &raw_tx, &reader_bar));
        let extractor = scope
            .spawn(move || extract_stage(&raw_rx, &out_tx, &opts.extract, !opts.each_on_its_own));
        let (mut summary, counts, copies) = write_stage(store, &out_rx, &bar)?;
        if late_indexes {
            store.ensure_load_indexes()?;
        }
        let (skipped, bytes, reading) = reader
            .join()
            .map_err(|_| anyhow!("the reader thread panicked"))??;
        summary.stage_seconds.extract = extractor
            .join()
            .map_err(|_| anyhow!("the extraction thread panicked"))?;
        summary.stage_seconds.read = reading;
        summary.stage_seconds.pass = started.elapsed().as_secs_f64();
        let settling = Instant::now();
        summary.sources_skipped = skipped;
        summary.bytes_read = bytes;
        bar.set_message("resolving revisits and duplicate groups");
        summary.revisits = store.resolve_revisits()?;
        store.recompute_dup_groups()?;
        summary.exact_duplicates = store.exact_duplicate_count()?;
        // The content text needs every page of a site: it is made once they are all in,
        // from the stored visible texts (no page is parsed again).
        bar.set_message("content texts");
        let content_started = Instant::now();
        // Revisit copies are added after the writer counted: then the pass counts itself.
        let counts = if fresh && summary.revisits.resolved == 0 && !opts.no_content {
            Some(copies.count_into(store, counts)?)
        } else {
            None
        };
        summary.stage_seconds.settle = settling.elapsed().as_secs_f64();
        if !opts.no_content {
            let rule = ContentRule::default();
            summary.content = if opts.each_on_its_own {
                store.recompute_content_texts_each(&rule)?
            } else {
                store.update_content_texts(&rule, summary.documents_added > 0, counts)?
            };
        }
        // Documents the pass did not read (it runs only when documents were added or the
        // rule changed) get their language now: a database made before languages were kept.
        store.fill_missing_langs()?;
        store.end_bulk_load()?;
        summary.content_seconds = content_started.elapsed().as_secs_f64();
        summary.seconds = started.elapsed().as_secs_f64();
        bar.finish_and_clear();
        Ok(summary)
    })
}

/// Size and SHA-1 of a file's bytes.
fn file_hash(path: &Path) -> std::io::Result<(u64, [u8; 20])> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha1::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        h.update(&buf[..n]);
    }
    Ok((size, h.finalize().into()))
}

/// Sends stages to the extractor. The stages of small sources (single pages) are gathered
/// into [`Stage::Group`]s of whole sources, up to a batch's worth of records or bytes.
struct Outbox<'a> {
    tx: &'a Sender<Stage>,
    group: Vec<Stage>,
    records: usize,
    bytes: usize,
    /// Time spent waiting for the extractor to take a stage.
    waited: std::time::Duration,
}

impl<'a> Outbox<'a> {
    fn new(tx: &'a Sender<Stage>) -> Self {
        Outbox {
            tx,
            group: Vec::new(),
            records: 0,
            bytes: 0,
            waited: std::time::Duration::ZERO,
        }
    }

    /// Sends `stage`, or keeps it for a group when it belongs to a `small` source.
    fn send(&mut self, stage: Stage, small: bool) -> Result<()> {
        if !small {
            self.flush()?;
            return self.pass(stage);
        }
        if let Stage::Records(_, items) = &stage {
            self.records += items.len();
            self.bytes += items.iter().map(item_bytes).sum::<usize>();
        }
        let source_ends = matches!(stage, Stage::End { .. });
        self.group.push(stage);
        if source_ends && (self.records >= BATCH_RECORDS || self.bytes >= BATCH_BYTES) {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.group.is_empty() {
            return Ok(());
        }
        self.records = 0;
        self.bytes = 0;
        let group = std::mem::take(&mut self.group);
        self.pass(Stage::Group(group))
    }

    /// Hands `stage` to the extractor, timing the wait.
    fn pass(&mut self, stage: Stage) -> Result<()> {
        let started = Instant::now();
        let sent = self.tx.send(stage).map_err(|_| anyhow!("ingest stopped"));
        self.waited += started.elapsed();
        sent
    }
}

/// Payload bytes an item holds (for batch sizes).
fn item_bytes(item: &ReadItem) -> usize {
    match item {
        ReadItem::Record(r) => r.body.as_ref().map_or(0, Vec::len),
        ReadItem::Error(_) => 0,
    }
}

/// Stage 1: reads inputs into batches. Returns (sources skipped, bytes read, seconds
/// working).
fn read_stage(
    db_path: &Path,
    inputs: &[InputFile],
    opts: &ReaderOptions,
    tx: &Sender<Stage>,
    bar: &ProgressBar,
) -> Result<(u64, u64, f64)> {
    let started = Instant::now();
    // A second, read-only connection: WAL lets it read while the writer writes.
    let store = Store::open(db_path)?;
    let mut out = Outbox::new(tx);
    let mut skipped = 0;
    let mut bytes = 0;
    let mut done_bytes = 0u64;
    // The sources this run has sent on: a source named again (the same crawl file, or a page
    // with the same bytes and URL, e.g. `a/x.html` under two folders given) is skipped here.
    // The store cannot say so in time: the writer records a source only when it commits,
    // and this reader runs ahead of it, so whether a repeat was "already present" depended
    // on the threads' timing (session 19: two ingests of the million corpus plus news-v2,
    // whose 125 `single` pages are pages of `whole`, skipped 100 and 98 of those repeats and
    // stored different content texts).
    let mut sent: HashSet<String> = HashSet::new();
    for (seq, input) in inputs.iter().enumerate() {
        // A page file (a folder's page, or one named directly) is read once: its identity
        // hash and its record come from the same bytes.
        let small = input.page_url.is_some();
        // A crawl file's identity hash (a pass over all its bytes) is made on a thread of
        // its own while this one reads its first records ahead, so the pipeline starts
        // before the hash is done (it was a serial start of ~0.1 s per 100 MB of gzip).
        // Whether the file is known (skipped, resumed) is decided after, on the hash, as
        // before: the records read ahead are then dropped or filtered like any other.
        let mut ahead: Vec<ReadItem> = Vec::new();
        let mut opened = None;
        let read = if small {
            ingest::read_page_with_digest(input, opts)
                .map(|(size, digest, items)| (size, digest, Some(items)))
        } else {
            std::thread::scope(|scope| {
                let hashing = scope.spawn(|| file_hash(&input.path));
                let mut reader = ingest::open_reader(input, opts);
                if let Ok(records) = &mut reader {
                    let mut ahead_bytes = 0;
                    while !hashing.is_finished() && ahead_bytes < READ_AHEAD_BYTES {
                        let Some(item) = records.next() else { break };
                        ahead_bytes += item_bytes(&item);
                        ahead.push(item);
                    }
                }
                opened = Some(reader);
                hashing
                    .join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("the hashing thread panicked")))
            })
            .map(|(size, digest)| (size, digest, None))
        };
        let (size, hash, page_items) = match read {
            // A page is identified by its bytes *and* its URL: the same bytes under another
            // URL are another document (an exact duplicate), not the same file named twice.
            Ok((size, digest, items)) => match &input.page_url {
                Some(url) => (
                    size,
                    format!("{}:{}", hex(&digest), hex(&Sha1::digest(url.as_bytes()))),
                    items,
                ),
                None => (size, hex(&digest), items),
            },
            Err(e) => {
                let err = ReadItem::Error(ingest::RecordError {
                    offset: 0,
                    reason: format!("unreadable file: {e}"),
                });
                let hash = format!("unreadable:{}", input.path.display());
                let begin = Stage::Begin {
                    seq,
                    input: input.clone(),
                    size: 0,
                    hash,
                };
                out.send(begin, small)?;
                out.send(Stage::Records(seq, vec![err]), small)?;
                let counts = BTreeMap::new();
                out.send(Stage::End { seq, counts }, small)?;
                continue;
            }
        };
        // A repeat of a source this run sent on is skipped like one the store holds whole.
        let state = if sent.insert(hash.clone()) {
            Some(store.source_state(&hash)?)
        } else {
            None
        };
        let known: HashSet<u64> = match state {
            None | Some(SourceState::Complete(_)) => {
                skipped += 1;
                done_bytes += size;
                bar.set_position(done_bytes);
                continue;
            }
            Some(SourceState::Partial(id)) => store.stored_offsets(id)?,
            Some(SourceState::New) => HashSet::new(),
        };
        bytes += size;
        let begin = Stage::Begin {
            seq,
            input: input.clone(),
            size,
            hash,
        };
        out.send(begin, small)?;
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        let reader: Box<dyn Iterator<Item = ReadItem> + Send> = match page_items {
            Some(items) => Box::new(items.into_iter()),
            None => match opened.unwrap_or_else(|| ingest::open_reader(input, opts)) {
                Ok(reader) => Box::new(std::mem::take(&mut ahead).into_iter().chain(reader)),
                Err(e) => {
                    let err = ReadItem::Error(ingest::RecordError {
                        offset: 0,
                        reason: format!("cannot open: {e}"),
                    });
                    Box::new(std::iter::once(err))
                }
            },
        };
        let mut batch = Vec::new();
        let mut batch_bytes = 0;
        for item in reader {
            if let ReadItem::Record(r) = &item {
                *counts.entry(r.record_type.clone()).or_default() += 1;
                if let Some(loc) = r.locator {
                    if known.contains(&loc.offset) {
                        continue;
                    }
                    if loc.compression != ingest::Compression::GzipStream {
                        bar.set_position(done_bytes + loc.offset);
                    }
                }
            }
            batch_bytes += item_bytes(&item);
            batch.push(item);
            if batch.len() >= BATCH_RECORDS || batch_bytes >= BATCH_BYTES {
                out.send(Stage::Records(seq, std::mem::take(&mut batch)), small)?;
                batch_bytes = 0;
            }
        }
        if !batch.is_empty() {
            out.send(Stage::Records(seq, batch), small)?;
        }
        out.send(Stage::End { seq, counts }, small)?;
        done_bytes += size;
        bar.set_position(done_bytes);
    }
    out.flush()?;
    let working = started.elapsed().saturating_sub(out.waited);
    Ok((skipped, bytes, working.as_secs_f64()))
}

/// The inputs [`extract::extract`] reads of a record, which make its result: the payload
/// (by SHA-1 and length), the charset its headers declare, and whether it is plain text
/// (the extraction options are the run's). Two records with the same give the same texts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SamePayload {
    sha1: [u8; 20],
    len: usize,
    charset: Option<Box<str>>,
    is_text: bool,
}

/// The payloads the extractor has seen in this run: an exact copy of an earlier page's
/// payload is not extracted again (about half of a crawl's records can be such copies:
/// 12,557 of 25,077 on ddwarc); the writer stores it from the first page's row
/// ([`DocumentCopy`]). Only the key and a number are kept per payload, never its texts.
#[derive(Default)]
struct Payloads {
    /// Off: every page is extracted on its own ([`IngestOptions::each_on_its_own`]).
    reuse: bool,
    numbers: HashMap<SamePayload, u64>,
    /// First pages whose extraction failed: their copies get the same error.
    failed: HashMap<u64, String>,
}

/// What the extractor does with one read item.
enum Plan {
    /// Extract it (not a page, or a page whose copies cannot reuse it).
    Extract,
    /// The first page of a payload: extract it under this payload number.
    First(u64),
    /// A copy of payload number `.0`'s page.
    Copy(u64),
}

impl Payloads {
    fn plan(&mut self, item: &ReadItem) -> Plan {
        let ReadItem::Record(rec) = item else {
            return Plan::Extract;
        };
        let (Some(body), Some(sha1)) = (rec.body.as_deref(), rec.body_sha1) else {
            return Plan::Extract;
        };
        if !self.reuse || rec.url.as_deref().is_none_or(str::is_empty) {
            return Plan::Extract;
        }
        let key = SamePayload {
            sha1,
            len: body.len(),
            charset: rec.header_charset.as_deref().map(Box::from),
            is_text: rec.body_is_text,
        };
        if let Some(&n) = self.numbers.get(&key) {
            return Plan::Copy(n);
        }
        // A first page with a title of its own (a table's) stores that title, which its
        // copies cannot take for the extracted one: extracted on its own.
        if given_title(rec).is_some() {
            return Plan::Extract;
        }
        let n = self.numbers.len() as u64;
        self.numbers.insert(key, n);
        Plan::First(n)
    }
}

/// A record's own title (tables, JSONL), when it has a non-empty one.
fn given_title(rec: &CrawlRecord) -> Option<String> {
    rec.given_title.clone().filter(|t| !t.is_empty())
}

/// Stage 2: extracts texts of each batch in parallel, in order. Returns the seconds it
/// worked.
fn extract_stage(
    rx: &Receiver<Stage>,
    tx: &Sender<Stage>,
    opts: &ExtractOptions,
    reuse: bool,
) -> f64 {
    let mut current: Option<InputFile> = None;
    let mut payloads = Payloads {
        reuse,
        ..Payloads::default()
    };
    let mut working = std::time::Duration::ZERO;
    for stage in rx {
        let started = Instant::now();
        let out = match stage {
            Stage::Group(members) => {
                Stage::Group(extract_stages(members, &mut current, opts, &mut payloads))
            }
            other => match extract_stages(vec![other], &mut current, opts, &mut payloads).pop() {
                Some(stage) => stage,
                None => continue,
            },
        };
        working += started.elapsed();
        if tx.send(out).is_err() {
            break;
        }
    }
    working.as_secs_f64()
}

/// Turns the `Records` of `stages` into `Writes`, all records in one parallel pass, keeping
/// their order; `current` is the input whose records arrive (set by `Begin` stages).
fn extract_stages(
    stages: Vec<Stage>,
    current: &mut Option<InputFile>,
    opts: &ExtractOptions,
    payloads: &mut Payloads,
) -> Vec<Stage> {
    // The inputs records belong to; the first is the one current before these stages.
    let mut sources: Vec<Option<InputFile>> = vec![current.take()];
    // (output position, source seq, index into `sources`, index in its batch, item)
    let mut jobs = Vec::new();
    let mut out: Vec<Stage> = Vec::with_capacity(stages.len());
    for stage in stages {
        match stage {
            Stage::Begin {
                seq,
                input,
                size,
                hash,
            } => {
                sources.push(Some(input.clone()));
                out.push(Stage::Begin {
                    seq,
                    input,
                    size,
                    hash,
                });
            }
            Stage::Records(seq, items) => {
                let at = out.len();
                let source = sources.len() - 1;
                out.push(Stage::Writes(seq, Vec::new()));
                jobs.extend(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, item)| (at, seq, source, i, item)),
                );
            }
            other => out.push(other),
        }
    }
    // Each payload's SHA-1 (the stored `raw_hash`, and what finds copies), in parallel.
    jobs.par_iter_mut().for_each(|(.., item)| {
        if let ReadItem::Record(rec) = item {
            if let (Some(body), None) = (rec.body.as_deref(), rec.body_sha1) {
                rec.body_sha1 = Some(Sha1::digest(body).into());
            }
        }
    });
    let plans: Vec<Plan> = jobs.iter().map(|(.., item)| payloads.plan(item)).collect();
    // Extraction in parallel; copies wait for their first page's outcome, which may be in
    // this batch.
    enum Done {
        Ops(Vec<WriteOp>),
        Copy(u64, Box<CrawlRecord>),
    }
    let done: Vec<(usize, usize, usize, usize, Option<u64>, Done)> = jobs
        .into_par_iter()
        .zip(plans)
        .map(|((at, seq, source, i, item), plan)| {
            let input = sources[source].as_ref();
            match (plan, item) {
                (Plan::Copy(n), ReadItem::Record(rec)) => {
                    (at, seq, source, i, None, Done::Copy(n, rec))
                }
                (Plan::First(n), item) => {
                    let ops = prepare(seq, input, i, item, opts, Some(n));
                    (at, seq, source, i, Some(n), Done::Ops(ops))
                }
                (_, item) => {
                    let ops = prepare(seq, input, i, item, opts, None);
                    (at, seq, source, i, None, Done::Ops(ops))
                }
            }
        })
        .collect();
    for (at, seq, source, i, first, done) in done {
        let ops = match done {
            Done::Ops(ops) => {
                // A first page whose extraction failed: its copies fail the same way.
                if let Some(n) = first {
                    let failure = ops.iter().find_map(|op| match op {
                        WriteOp::Error { reason, .. } => Some(reason.clone()),
                        _ => None,
                    });
                    if let Some(reason) = failure {
                        payloads.failed.insert(n, reason);
                    }
                }
                ops
            }
            Done::Copy(n, rec) => copy_of(
                n,
                seq,
                sources[source].as_ref(),
                i,
                *rec,
                payloads.failed.get(&n),
            ),
        };
        if let Some(Stage::Writes(_, writes)) = out.get_mut(at) {
            writes.extend(ops);
        }
    }
    *current = sources.pop().flatten();
    out
}

const CAPTURE_TYPES: &[&str] = &["response", "resource", "revisit", "arc"];

/// Where a record sits in its file (a page file's record: its index).
fn locator_of(rec: &CrawlRecord, index: usize) -> ingest::Locator {
    rec.locator.unwrap_or(ingest::Locator {
        offset: index as u64,
        length: 0,
        compression: ingest::Compression::None,
    })
}

/// The capture row of a response, resource, revisit or ARC record.
fn capture_of(rec: &CrawlRecord, loc: &ingest::Locator, source_id: i64) -> Option<WriteOp> {
    CAPTURE_TYPES.contains(&rec.record_type.as_str()).then(|| {
        WriteOp::Capture(NewCapture {
            source_id,
            record_offset: loc.offset,
            record_type: if rec.record_type == "arc" {
                "response".into()
            } else {
                rec.record_type.clone()
            },
            url: rec.url.clone(),
            date: rec.date.clone(),
            record_id: rec.record_id.clone(),
            payload_digest: rec.payload_digest.clone(),
            refers_to: rec.refers_to.clone(),
            refers_to_uri: rec.refers_to_uri.clone(),
            refers_to_date: rec.refers_to_date.clone(),
            media_type: rec.media_type.clone(),
            http_status: rec.http_status,
        })
    })
}

/// The writes of a page whose payload is payload number `payload`'s, extracted before: its
/// capture, and its document copied from that page's ([`DocumentCopy`]) or, when that page
/// `failed` to extract, the same error.
fn copy_of(
    payload: u64,
    seq: usize,
    input: Option<&InputFile>,
    index: usize,
    rec: CrawlRecord,
    failed: Option<&String>,
) -> Vec<WriteOp> {
    let source_id = seq as i64;
    let loc = locator_of(&rec, index);
    let mut ops: Vec<WriteOp> = capture_of(&rec, &loc, source_id).into_iter().collect();
    if let Some(reason) = failed {
        ops.push(WriteOp::Error {
            source_id: Some(source_id),
            source_path: input
                .map(|i| i.path.display().to_string())
                .unwrap_or_default(),
            offset: loc.offset,
            reason: reason.clone(),
        });
        return ops;
    }
    let given_title = given_title(&rec);
    ops.push(WriteOp::Copy(DocumentCopy {
        source_id,
        record_offset: loc.offset,
        record_length: loc.length,
        compression: loc.compression.as_str(),
        given_title,
        fetch_time: rec.date.as_deref().and_then(ingest::date::normalize),
        content_type: rec.media_type,
        http_status: rec.http_status,
        url: rec.url.unwrap_or_default(),
        record_type: rec.record_type,
        payload,
    }));
    ops
}

/// Turns one read item into the writes it causes. `source_id` fields hold `seq`. A page
/// that is the first of its payload carries the `payload` number its copies refer to.
fn prepare(
    seq: usize,
    input: Option<&InputFile>,
    index: usize,
    item: ReadItem,
    opts: &ExtractOptions,
    payload: Option<u64>,
) -> Vec<WriteOp> {
    let source_path = input
        .map(|i| i.path.display().to_string())
        .unwrap_or_default();
    let source_id = seq as i64;
    let rec: CrawlRecord = match item {
        ReadItem::Error(e) => {
            return vec![WriteOp::Error {
                source_id: Some(source_id),
                source_path,
                offset: e.offset,
                reason: e.reason,
            }]
        }
        ReadItem::Record(r) => *r,
    };
    let loc = locator_of(&rec, index);
    let mut ops = Vec::with_capacity(2);
    ops.extend(capture_of(&rec, &loc, source_id));
    let Some(body) = rec.body.as_deref() else {
        return ops;
    };
    let Some(url) = rec.url.clone().filter(|u| !u.is_empty()) else {
        ops.push(WriteOp::Error {
            source_id: Some(source_id),
            source_path,
            offset: loc.offset,
            reason: format!("no url: a {} record without a target URI", rec.record_type),
        });
        return ops;
    };
    // Panics inside a parser are caught in `extract`; this is a second fence for ours.
    let extracted = std::panic::catch_unwind(|| {
        extract::extract(body, rec.header_charset.as_deref(), rec.body_is_text, opts)
    });
    match extracted {
        Ok(Ok(x)) => {
            let text_hash = hex(&Sha1::digest(x.visible_text.as_bytes()));
            ops.push(WriteOp::Document(NewDocument {
                source_id,
                record_offset: loc.offset,
                record_length: loc.length,
                compression: loc.compression.as_str(),
                record_type: rec.record_type.clone(),
                url,
                title: given_title(&rec).unwrap_or(x.title),
                // One form for every input's capture date (ISO 8601 UTC), so dates sort
                // and filter as text.
                fetch_time: rec.date.as_deref().and_then(ingest::date::normalize),
                content_type: rec.media_type.clone(),
                encoding: x.encoding.to_string(),
                http_status: rec.http_status,
                raw_hash: Some(match rec.body_sha1 {
                    Some(digest) => hex(&digest),
                    None => hex(&Sha1::digest(body)),
                }),
                text_hash,
                blocks: content::distinct_blocks(&x.visible_text),
                structure: extract::structure::encode(&x.blocks),
                redirect_stub: x.redirect_stub,
                visible_text: x.visible_text,
                main_text: x.main_text,
                payload,
            }));
        }
        Ok(Err(e)) => ops.push(WriteOp::Error {
            source_id: Some(source_id),
            source_path,
            offset: loc.offset,
            reason: format!("extract: {e}"),
        }),
        Err(_) => ops.push(WriteOp::Error {
            source_id: Some(source_id),
            source_path,
            offset: loc.offset,
            reason: "extract: the extractor panicked on this page".into(),
        }),
    }
    ops
}

/// Stage 3: writes batches; maps run-local source numbers to database ids. The pages'
/// blocks are counted per site on a thread of their own ([`count_stage`]): the writer is
/// the pipeline's longest serial stage (about 45% of the first pass's CPU time on 164k
/// documentation pages, BENCHMARKS.md issue 16 session 10), so it does nothing but write.
fn write_stage(
    store: &mut Store,
    rx: &Receiver<Stage>,
    bar: &ProgressBar,
) -> Result<(IngestSummary, HashMap<String, SiteBlocks>, CopiesToCount)> {
    let (count_tx, count_rx) = bounded::<Vec<(String, Vec<u64>)>>(COUNTS_AHEAD);
    let started = Instant::now();
    // The log is copied back into the database by a thread of its own, after each commit,
    // instead of by the writer inside every commit that finds the log over 1,000 pages:
    // the writer is the first pass's longest serial stage. A passive checkpoint never
    // blocks the writer; one that fails or falls behind leaves the log to the next (or to
    // SQLite's own at the content pass's commit): nothing is lost either way.
    let (checkpoint_tx, checkpoint_rx) = bounded::<()>(1);
    let db_path = store.path().to_path_buf();
    store.set_wal_autocheckpoint(0)?;
    let written = std::thread::scope(|scope| {
        let counter = scope.spawn(move || count_stage(&count_rx));
        let checkpointer = scope.spawn(move || {
            let Ok(log) = Store::open_for_session_thread(&db_path) else {
                return;
            };
            for () in checkpoint_rx {
                if log.checkpoint_passive().is_err() {
                    return;
                }
            }
        });
        let mut writer = Writer {
            store: &mut *store,
            bar,
            summary: IngestSummary::default(),
            ids: BTreeMap::new(),
            pending: 0,
            counts: count_tx,
            copies: CopiesToCount::default(),
            waited: std::time::Duration::ZERO,
            checkpoints: checkpoint_tx,
        };
        let written = writer.write_all(rx);
        let Writer {
            mut summary,
            copies,
            counts,
            waited,
            checkpoints,
            ..
        } = writer;
        summary.stage_seconds.write = started.elapsed().saturating_sub(waited).as_secs_f64();
        drop(checkpoints);
        checkpointer
            .join()
            .map_err(|_| anyhow!("the checkpoint thread panicked"))?;
        // The counter ends when it has counted every page sent.
        drop(counts);
        let (sites, counting) = counter
            .join()
            .map_err(|_| anyhow!("the block-counting thread panicked"))?;
        summary.stage_seconds.count = counting;
        written?;
        Ok((summary, sites, copies))
    });
    // SQLite's own checkpoints again for the content pass's one transaction.
    store.set_wal_autocheckpoint(1000)?;
    written
}

/// Counts each written page's distinct blocks for its site (in any order: the order pages
/// are counted in changes no count), until the writer stops sending. Returns the counts
/// and the seconds it worked.
fn count_stage(rx: &Receiver<Vec<(String, Vec<u64>)>>) -> (HashMap<String, SiteBlocks>, f64) {
    let mut sites: HashMap<String, SiteBlocks> = HashMap::new();
    let mut working = std::time::Duration::ZERO;
    for pages in rx {
        let started = Instant::now();
        for (url, blocks) in pages {
            sites
                .entry(content::site_key(&url).to_string())
                .or_default()
                .add_page(&url, &blocks);
        }
        working += started.elapsed();
    }
    (sites, working.as_secs_f64())
}

/// The pages the writer stored as copies ([`DocumentCopy`]), for their sites' block counts:
/// a copy's blocks are its first page's, counted from that page's stored text once the run
/// is written (the order pages are counted in changes no count). Only the first pages'
/// document ids are kept meanwhile, never their blocks.
#[derive(Default)]
struct CopiesToCount {
    /// (URL, payload number) of each copy.
    pages: Vec<(String, u64)>,
    payloads: PayloadDocs,
}

/// First pages whose texts are read and hashed per step of [`CopiesToCount::count_into`].
const COPY_COUNT_CHUNK: usize = 1024;

impl CopiesToCount {
    /// Adds the copies' pages to `sites` (the block counts of the pages written).
    fn count_into(
        self,
        store: &Store,
        mut sites: HashMap<String, SiteBlocks>,
    ) -> Result<HashMap<String, SiteBlocks>> {
        let payloads = &self.payloads;
        let mut pages: Vec<(i64, String)> = self
            .pages
            .into_iter()
            .filter_map(|(url, payload)| payloads.get(payload).map(|id| (id, url)))
            .collect();
        pages.sort_unstable_by_key(|(id, _)| *id);
        for chunk in pages
            .chunk_by(|a, b| a.0 == b.0)
            .collect::<Vec<_>>()
            .chunks(COPY_COUNT_CHUNK)
        {
            let ids: Vec<i64> = chunk.iter().map(|same| same[0].0).collect();
            let texts = store.visible_texts_of(&ids)?;
            let blocks: Vec<Vec<u64>> = texts
                .par_iter()
                .map(|t| content::distinct_blocks(t))
                .collect();
            for (same, blocks) in chunk.iter().zip(&blocks) {
                for (_, url) in same.iter() {
                    sites
                        .entry(content::site_key(url).to_string())
                        .or_default()
                        .add_page(url, blocks);
                }
            }
        }
        Ok(sites)
    }
}

struct Writer<'a> {
    store: &'a mut Store,
    bar: &'a ProgressBar,
    summary: IngestSummary,
    ids: BTreeMap<usize, i64>,
    /// Writes in the open shared transaction.
    pending: usize,
    /// The written pages' (URL, distinct blocks), to [`count_stage`], which counts them
    /// per site (see `ingest_inputs`).
    counts: Sender<Vec<(String, Vec<u64>)>>,
    /// The pages stored as copies, counted at the end.
    copies: CopiesToCount,
    /// Time spent waiting for the extractor's next stage.
    waited: std::time::Duration,
    /// Wakes the checkpoint thread after a commit (see [`write_stage`]).
    checkpoints: Sender<()>,
}

impl Writer<'_> {
    /// Commits the shared transaction and asks for a checkpoint. A full channel means one
    /// is asked for already and will copy this commit too. A log grown past
    /// [`WAL_MAX_BYTES`] is checkpointed and truncated here, the writer waiting: the
    /// checkpoint thread copies pages but cannot shrink the log (see
    /// [`Store::checkpoint_truncate`]), so without this the log would hold every page the
    /// first pass wrote, as large as the database again.
    fn commit(&mut self) -> Result<()> {
        self.store.commit_bulk()?;
        if self.store.wal_bytes() > WAL_MAX_BYTES {
            // Not completed (a checkpoint beside it outlasted the busy timeout): the next
            // commit tries again, and the log only grows meanwhile.
            self.store.checkpoint_truncate()?;
        } else {
            let _ = self.checkpoints.try_send(());
        }
        Ok(())
    }

    /// Writes every stage `rx` brings, in shared transactions.
    fn write_all(&mut self, rx: &Receiver<Stage>) -> Result<()> {
        self.store.begin_bulk()?;
        loop {
            let started = Instant::now();
            let Ok(stage) = rx.recv() else { break };
            self.waited += started.elapsed();
            self.write(stage)?;
        }
        self.commit()
    }

    fn write(&mut self, stage: Stage) -> Result<()> {
        let stage = match stage {
            Stage::Group(members) => {
                for member in members {
                    self.write(member)?;
                }
                return Ok(());
            }
            other => other,
        };
        // Many small sources (a folder of pages) are written in shared transactions of about
        // BULK_WRITES writes; a kill loses at most the open one, which a rerun redoes.
        if self.pending >= BULK_WRITES {
            self.commit()?;
            self.store.begin_bulk()?;
            self.pending = 0;
        }
        self.pending += match &stage {
            Stage::Writes(_, ops) => ops.len(),
            _ => 1,
        };
        match stage {
            Stage::Begin {
                seq,
                input,
                size,
                hash,
            } => {
                let path = input.path.display().to_string();
                self.bar.set_message(short_name(&input.path));
                let params = serde_json::json!({"format": input.format.as_str()}).to_string();
                let id = self
                    .store
                    .begin_source(&path, size, &hash, input.format.as_str(), &params)
                    .with_context(|| format!("cannot register source {path}"))?;
                self.ids.insert(seq, id);
                self.summary.sources_read += 1;
            }
            Stage::Writes(seq, mut ops) => {
                let id = *self
                    .ids
                    .get(&seq)
                    .ok_or_else(|| anyhow!("records before their source"))?;
                let mut pages = Vec::new();
                for op in &mut ops {
                    match op {
                        WriteOp::Capture(c) => c.source_id = id,
                        WriteOp::Document(d) => d.source_id = id,
                        WriteOp::Copy(c) => c.source_id = id,
                        WriteOp::Error { source_id, .. } => *source_id = Some(id),
                    }
                    match op {
                        WriteOp::Error { .. } => self.summary.errors += 1,
                        WriteOp::Document(d) => {
                            pages.push((d.url.clone(), std::mem::take(&mut d.blocks)));
                        }
                        WriteOp::Copy(c) => {
                            self.summary.payload_copies += 1;
                            self.copies.pages.push((c.url.clone(), c.payload));
                        }
                        WriteOp::Capture(_) => {}
                    }
                }
                if !pages.is_empty() {
                    self.counts
                        .send(pages)
                        .map_err(|_| anyhow!("the block-counting thread stopped"))?;
                }
                self.summary.documents_added +=
                    self.store.write_batch(&ops, &mut self.copies.payloads)?;
            }
            Stage::End { seq, counts } => {
                let id = *self
                    .ids
                    .get(&seq)
                    .ok_or_else(|| anyhow!("end before its source"))?;
                for (t, n) in &counts {
                    // Record types are the crawl's own WARC-Type values (crawled text), and
                    // the summary lines print them: sanitized once, here.
                    *self
                        .summary
                        .records_by_type
                        .entry(crate::review::sanitize_line(t))
                        .or_default() += n;
                }
                self.store.finish_source(id, &counts)?;
            }
            Stage::Records(..) | Stage::Group(_) => {}
        }
        Ok(())
    }
}

fn short_name(p: &Path) -> String {
    // A crawl file's name is as hostile as its contents: the bar is drawn on a terminal.
    p.file_name()
        .map(|n| crate::review::sanitize_line(&n.to_string_lossy()))
        .unwrap_or_default()
}
