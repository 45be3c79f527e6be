//! Detector runs: parameters, pairs, clusters and the signatures each document was matched
//! on. A rerun is a new run; nothing of an older run (or any coder label) is overwritten.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::Store;

/// Pairs in one `write_run_pairs` from which the pair table's secondary indexes are
/// rebuilt rather than updated pair by pair (when also a quarter of the stored rows). On
/// dd6k-sized runs (thousands of pairs) updating is cheaper than re-sorting every run's
/// pairs; see BENCHMARKS.md, issue 16 session 8.
pub const REBUILD_PAIR_INDEXES_FROM: u64 = 200_000;

/// A stored run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunInfo {
    pub id: i64,
    pub method: String,
    pub params: serde_json::Value,
    pub finished: bool,
    pub summary: Option<serde_json::Value>,
}

/// One cluster to store: members are document ids.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterRow {
    pub members: Vec<i64>,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    pub weakest_bridge: Option<(i64, i64, f64)>,
}

/// A document as detectors see it.
#[derive(Debug, Clone)]
pub struct DocText {
    pub id: i64,
    pub url: String,
    pub text: String,
    pub dup_group: Option<i64>,
}

/// A document's signature in the stored form of `run_doc_sigs` ([`encode_doc_sig`]), made
/// where the caller likes (another thread) and written by
/// [`Store::write_run_doc_sigs_encoded`].
#[derive(Debug, Clone)]
pub struct StoredDocSig(rusqlite::types::Value);

impl StoredDocSig {
    /// `v` in its stored form: JSON text, compressed from [`COMPRESS_DOC_SIG_FROM`] bytes.
    pub fn encode(v: &serde_json::Value) -> Result<Self> {
        encode_doc_sig(v).map(StoredDocSig)
    }
}

/// A document's signature in a run's index: (document id, the method's bytes).
pub type SignatureRow = (i64, Vec<u8>);

/// Which stored text a detector reads (stored with runs as `"Visible"` / `"Main"` / `"Content"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextKind {
    Visible,
    Main,
    /// The content text of `extract::content` (the visible text where none is stored).
    Content,
}

/// The SQL expression over `documents` that reads one stored text: the main-content and
/// content texts fall back to the visible text where a document has none.
pub(crate) fn text_column(kind: TextKind) -> &'static str {
    match kind {
        TextKind::Visible => "visible_text",
        TextKind::Main => "coalesce(main_text, visible_text)",
        TextKind::Content => {
            "coalesce((SELECT c.text FROM content_texts c WHERE c.doc_id = documents.id),
                      visible_text)"
        }
    }
}

/// What a reader of the main-content text is told when no document has one (it then reads
/// the visible text, [`text_column`]'s fallback).
pub const NO_MAIN_TEXT: &str =
    "no main-content text is stored (ingest extracts it only with --main): reading the visible text";

impl Store {
    /// Whether any document has a main-content text (`ingest --main`, or a plain-text page).
    pub fn has_main_texts(&self) -> Result<bool> {
        Ok(self.conn().query_row(
            "SELECT EXISTS(SELECT 1 FROM documents WHERE main_text IS NOT NULL)",
            [],
            |r| r.get(0),
        )?)
    }

    pub fn create_run(&self, method: &str, params: &serde_json::Value) -> Result<i64> {
        self.conn().execute(
            "INSERT INTO runs(method, params, started_at) VALUES (?1, ?2, strftime('%s','now'))",
            (method, params.to_string()),
        )?;
        Ok(self.conn().last_insert_rowid())
    }

    pub fn finish_run(&self, run: i64, summary: &serde_json::Value) -> Result<()> {
        self.conn().execute(
            "UPDATE runs SET finished_at = strftime('%s','now'), summary = ?2 WHERE id = ?1",
            (run, summary.to_string()),
        )?;
        Ok(())
    }

    /// Stores pairs (a < b is enforced here) in one transaction. Give them in key order
    /// (by `(a, b)`, as the run driver does): the primary key is then appended to.
    ///
    /// A large batch (its iterator's size hint at least [`REBUILD_PAIR_INDEXES_FROM`] pairs)
    /// is written without per-row foreign-key lookups (give it ids of stored documents), and
    /// when it is also a quarter of the rows already stored it drops the table's secondary indexes
    /// (`run_pairs_b`, keyed by `b`, which the pairs do not come sorted by) in the same
    /// transaction and creates them again from their stored SQL after the inserts: SQLite
    /// then builds them by one sort instead of one random B-tree descent a pair, which at
    /// a million pages (tens of millions of pairs, a multi-GB WAL) was most of `detect`'s
    /// time (issue 16).
    pub fn write_run_pairs(
        &mut self,
        run: i64,
        pairs: impl IntoIterator<Item = (i64, i64, f64, Option<String>)>,
    ) -> Result<u64> {
        let pairs = pairs.into_iter();
        let expected = pairs.size_hint().0 as u64;
        if expected < REBUILD_PAIR_INDEXES_FROM {
            return self.write_run_pairs_in_one(run, pairs, false);
        }
        // A large batch without the foreign-key lookups of `a` and `b` in `documents`: the
        // driver's pairs are ids it just read from `documents`. At a million pages each
        // lookup of a scattered `b` missed the page cache and searched a multi-GB WAL
        // (`sqlite3BtreeTableMoveto` → `walFindFrame`, 46% of the write's samples; issue 16
        // session 8). The setting is per connection and only changes outside a transaction.
        // And the indexes' rebuild sorts in temporary files, not in memory (the store's
        // `temp_store = MEMORY` held the whole sort: +4 GB of RSS at a million pages).
        let enforced: bool = self
            .conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))?;
        let temp_store: i64 = self.conn.query_row("PRAGMA temp_store", [], |r| r.get(0))?;
        self.conn
            .execute_batch("PRAGMA foreign_keys = OFF; PRAGMA temp_store = FILE;")?;
        let written = self.write_run_pairs_in_one(run, pairs, true);
        self.conn.execute_batch(&format!(
            "PRAGMA foreign_keys = {}; PRAGMA temp_store = {temp_store};",
            if enforced { "ON" } else { "OFF" }
        ))?;
        written
    }

    /// [`Store::write_run_pairs`]' one transaction; `bulk`: rebuild the secondary indexes
    /// when the batch is also a quarter of the stored rows.
    fn write_run_pairs_in_one(
        &mut self,
        run: i64,
        pairs: impl Iterator<Item = (i64, i64, f64, Option<String>)>,
        bulk: bool,
    ) -> Result<u64> {
        let expected = pairs.size_hint().0 as u64;
        let tx = self.conn.transaction()?;
        let mut rebuild: Vec<String> = Vec::new();
        if bulk {
            let stored: u64 = tx.query_row("SELECT count(*) FROM run_pairs", [], |r| r.get(0))?;
            if expected.saturating_mul(4) >= stored {
                let indexes: Vec<(String, String)> = tx
                    .prepare(
                        "SELECT name, sql FROM sqlite_master
                          WHERE type = 'index' AND tbl_name = 'run_pairs' AND sql IS NOT NULL",
                    )?
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?;
                for (name, sql) in indexes {
                    tx.execute_batch(&format!("DROP INDEX \"{}\"", name.replace('"', "\"\"")))?;
                    rebuild.push(sql);
                }
            }
        }
        let mut n = 0;
        {
            let mut st = tx.prepare_cached(
                "INSERT OR REPLACE INTO run_pairs(run_id, a, b, score, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (a, b, score, detail) in pairs {
                let (a, b) = if a < b { (a, b) } else { (b, a) };
                st.execute(params![run, a, b, score, detail])?;
                n += 1;
            }
        }
        for sql in rebuild {
            tx.execute_batch(&sql)?;
        }
        tx.commit()?;
        Ok(n)
    }

    /// Stores clusters, numbered 1.. in the given order.
    pub fn write_run_clusters(&mut self, run: i64, clusters: &[ClusterRow]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut cl = tx.prepare_cached(
                "INSERT INTO run_clusters(run_id, cluster, size, min_score, max_score,
                   bridge_a, bridge_b, bridge_score) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            let mut mem = tx.prepare_cached(
                "INSERT INTO run_cluster_members(run_id, cluster, doc_id) VALUES (?1, ?2, ?3)",
            )?;
            for (i, c) in clusters.iter().enumerate() {
                let no = i as i64 + 1;
                let (ba, bb, bs) = match c.weakest_bridge {
                    Some((a, b, s)) => (Some(a), Some(b), Some(s)),
                    None => (None, None, None),
                };
                cl.execute(params![
                    run,
                    no,
                    c.members.len() as i64,
                    c.min_score,
                    c.max_score,
                    ba,
                    bb,
                    bs
                ])?;
                for m in &c.members {
                    mem.execute(params![run, no, m])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Stores the signatures each document was matched on, already in their stored form
    /// ([`StoredDocSig::encode`], made off this thread: the run driver encodes the next
    /// batch while this one is written), in one transaction.
    pub fn write_run_doc_sigs_encoded(
        &mut self,
        run: i64,
        sigs: impl IntoIterator<Item = Result<(i64, StoredDocSig)>>,
    ) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut st = tx.prepare_cached(
                "INSERT OR REPLACE INTO run_doc_sigs(run_id, doc_id, sigs) VALUES (?1, ?2, ?3)",
            )?;
            for row in sigs {
                let (doc, StoredDocSig(e)) = row?;
                st.execute(params![run, doc, e])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Stores the signatures each document was matched on (JSON per document; see
    /// [`encode_doc_sig`] for the stored form).
    pub fn write_run_doc_sigs(
        &mut self,
        run: i64,
        sigs: impl IntoIterator<Item = (i64, serde_json::Value)>,
    ) -> Result<()> {
        use rayon::prelude::*;
        let tx = self.conn.transaction()?;
        {
            let mut st = tx.prepare_cached(
                "INSERT OR REPLACE INTO run_doc_sigs(run_id, doc_id, sigs) VALUES (?1, ?2, ?3)",
            )?;
            let mut sigs = sigs.into_iter().peekable();
            while sigs.peek().is_some() {
                // Encoded in parallel a batch at a time, written in order.
                let batch: Vec<(i64, serde_json::Value)> = sigs.by_ref().take(512).collect();
                let encoded: Vec<(i64, rusqlite::types::Value)> = batch
                    .into_par_iter()
                    .map(|(doc, v)| encode_doc_sig(&v).map(|e| (doc, e)))
                    .collect::<Result<_>>()?;
                for (doc, e) in encoded {
                    st.execute(params![run, doc, e])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Stores each document's signature of a run (`query`'s index): (document id, bytes),
    /// zstd-compressed from [`COMPRESS_RUN_SIG_FROM`] bytes ([`encode_run_sig`]).
    pub fn write_run_signatures(
        &mut self,
        run: i64,
        sigs: impl IntoIterator<Item = (i64, Vec<u8>)>,
    ) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut st = tx.prepare_cached(
                "INSERT OR REPLACE INTO run_signatures(run_id, doc_id, sig) VALUES (?1, ?2, ?3)",
            )?;
            for (doc, sig) in sigs {
                st.execute(params![run, doc, encode_run_sig(sig)?])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// A run's stored signatures in document id order, when it has one for every document
    /// now stored (`None`: none stored, or the documents changed since the run).
    pub fn run_signatures(&self, run: i64) -> Result<Option<Vec<SignatureRow>>> {
        let docs: i64 = self
            .conn()
            .query_row("SELECT COUNT(*) FROM documents", [], |r| r.get(0))?;
        let mut st = self.conn().prepare(
            "SELECT s.doc_id, s.sig FROM run_signatures s JOIN documents d ON d.id = s.doc_id
             WHERE s.run_id = ?1 ORDER BY s.doc_id",
        )?;
        let rows: Vec<(i64, Vec<u8>)> = st
            .query_map([run], |r| Ok((r.get(0)?, r.get(1)?)))?
            .map(|row| {
                let (doc, stored) = row?;
                Ok((doc, decode_run_sig(stored)?))
            })
            .collect::<Result<_>>()?;
        Ok((rows.len() as i64 == docs && docs > 0).then_some(rows))
    }

    /// Every stored signature of a run with its document's URL, in document id order,
    /// whatever documents were added since (`spotcheck sigs` of a run that stored no
    /// `run_doc_sigs` rows makes them from these).
    pub fn run_signature_rows(&self, run: i64) -> Result<Vec<(String, Vec<u8>)>> {
        let mut st = self.conn().prepare(
            "SELECT d.url, s.sig FROM run_signatures s JOIN documents d ON d.id = s.doc_id
             WHERE s.run_id = ?1 ORDER BY s.doc_id",
        )?;
        let rows = st
            .query_map([run], |r| Ok((r.get(0)?, r.get(1)?)))?
            .map(|row| {
                let (url, stored): (String, Vec<u8>) = row?;
                Ok((url, decode_run_sig(stored)?))
            })
            .collect::<Result<_>>()?;
        Ok(rows)
    }

    /// Whether a run stored any `run_doc_sigs` row (runs of this version store none for a
    /// method whose `sigs` are made from its index).
    pub fn has_run_doc_sigs(&self, run: i64) -> Result<bool> {
        Ok(self.conn().query_row(
            "SELECT EXISTS(SELECT 1 FROM run_doc_sigs WHERE run_id = ?1)",
            [run],
            |r| r.get(0),
        )?)
    }

    fn run_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunInfo> {
        let params: String = r.get(2)?;
        let summary: Option<String> = r.get(4)?;
        Ok(RunInfo {
            id: r.get(0)?,
            method: r.get(1)?,
            params: serde_json::from_str(&params).unwrap_or(serde_json::Value::Null),
            finished: r.get::<_, Option<String>>(3)?.is_some(),
            summary: summary.and_then(|s| serde_json::from_str(&s).ok()),
        })
    }

    pub fn runs(&self) -> Result<Vec<RunInfo>> {
        let mut st = self
            .conn()
            .prepare("SELECT id, method, params, finished_at, summary FROM runs ORDER BY id")?;
        let rows = st.query_map([], Self::run_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The run `id` if given (it must exist), else the latest finished run of `method`.
    pub fn resolve_run(&self, method: &str, id: Option<i64>) -> Result<RunInfo> {
        let found = match id {
            Some(id) => self
                .conn()
                .query_row(
                    "SELECT id, method, params, finished_at, summary FROM runs WHERE id = ?1",
                    [id],
                    Self::run_from_row,
                )
                .optional()?,
            None => self
                .conn()
                .query_row(
                    "SELECT id, method, params, finished_at, summary FROM runs
                     WHERE method = ?1 AND finished_at IS NOT NULL ORDER BY id DESC LIMIT 1",
                    [method],
                    Self::run_from_row,
                )
                .optional()?,
        };
        match found {
            Some(r) => Ok(r),
            None if id.is_some() => bail!("no run with id {}", id.unwrap_or_default()),
            None => bail!(
                "no finished {method} run in {}: run `spotcheck detect --db {} --method {method}` first",
                self.path().display(),
                self.path().display()
            ),
        }
    }

    /// Calls `f(url_a, url_b, score, detail)` for each pair of a run, sorted by (a, b).
    pub fn for_each_run_pair(
        &self,
        run: i64,
        mut f: impl FnMut(&str, &str, f64, Option<&str>) -> Result<()>,
    ) -> Result<()> {
        let mut st = self.conn().prepare(
            "SELECT da.url, db.url, p.score, p.detail FROM run_pairs p
             JOIN documents da ON da.id = p.a JOIN documents db ON db.id = p.b
             WHERE p.run_id = ?1 ORDER BY p.a, p.b",
        )?;
        let mut rows = st.query([run])?;
        while let Some(r) = rows.next()? {
            let detail: Option<String> = r.get(3)?;
            f(
                &r.get::<_, String>(0)?,
                &r.get::<_, String>(1)?,
                r.get(2)?,
                detail.as_deref(),
            )?;
        }
        Ok(())
    }

    /// Pairs of a run as document ids (a < b) with their scores.
    pub fn run_pairs(&self, run: i64) -> Result<Vec<(i64, i64, f64)>> {
        let mut st = self
            .conn()
            .prepare("SELECT a, b, score FROM run_pairs WHERE run_id = ?1 ORDER BY a, b")?;
        let rows = st.query_map([run], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Calls `f(cluster, urls)` for each cluster of a run, in cluster order.
    pub fn for_each_run_cluster(
        &self,
        run: i64,
        mut f: impl FnMut(i64, Vec<String>) -> Result<()>,
    ) -> Result<()> {
        let mut st = self.conn().prepare(
            "SELECT m.cluster, d.url FROM run_cluster_members m JOIN documents d ON d.id = m.doc_id
             WHERE m.run_id = ?1 ORDER BY m.cluster, d.id",
        )?;
        let mut rows = st.query([run])?;
        let mut current: Option<(i64, Vec<String>)> = None;
        while let Some(r) = rows.next()? {
            let c: i64 = r.get(0)?;
            let url: String = r.get(1)?;
            match &mut current {
                Some((cc, urls)) if *cc == c => urls.push(url),
                _ => {
                    if let Some((cc, urls)) = current.take() {
                        f(cc, urls)?;
                    }
                    current = Some((c, vec![url]));
                }
            }
        }
        if let Some((cc, urls)) = current {
            f(cc, urls)?;
        }
        Ok(())
    }

    /// Signatures of a run for documents (all, or those with the given URLs), by URL.
    pub fn run_doc_sigs(
        &self,
        run: i64,
        urls: &[String],
    ) -> Result<BTreeMap<String, Vec<serde_json::Value>>> {
        let mut out: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
        let mut st = self.conn().prepare(
            "SELECT d.url, s.sigs FROM run_doc_sigs s JOIN documents d ON d.id = s.doc_id
             WHERE s.run_id = ?1 ORDER BY d.id",
        )?;
        let mut rows = st.query([run])?;
        while let Some(r) = rows.next()? {
            let url: String = r.get(0)?;
            if !urls.is_empty() && !urls.contains(&url) {
                continue;
            }
            out.entry(url)
                .or_default()
                .push(decode_doc_sig(r.get_ref(1)?));
        }
        Ok(out)
    }

    /// Streams documents with the chosen text in id order, in chunks of `chunk` documents
    /// (so a caller can sign each chunk in parallel without holding every text). Documents
    /// without a main-content (or content) text are given their visible text when `Main` (or
    /// `Content`) is asked for.
    /// [`Store::for_each_text_chunk`] with the reading overlapped: a helper thread reads the
    /// next chunk on a second, query-only connection to the same file while `f` works on
    /// this one (the run driver signs a chunk on both cores while the next is read; reading
    /// rows is serial, and at a million pages it left a core idle; issue 16). The same
    /// documents in the same order: the run's own connection writes nothing to `documents`
    /// meanwhile, and the reader sees what was committed when it starts. Falls back to
    /// reading on this thread when a second connection cannot be opened.
    pub fn for_each_text_chunk_read_ahead(
        &self,
        kind: TextKind,
        chunk: usize,
        mut f: impl FnMut(Vec<DocText>) -> Result<()>,
    ) -> Result<()> {
        let reader = match rusqlite::Connection::open(&self.path) {
            Ok(c)
                if c.execute_batch("PRAGMA query_only = ON;").is_ok()
                    && c.busy_timeout(std::time::Duration::from_secs(30)).is_ok() =>
            {
                c
            }
            _ => return self.for_each_text_chunk(kind, chunk, f),
        };
        let chunk = chunk.max(1);
        std::thread::scope(|scope| {
            // One chunk waits while `f` works on another and the reader fills a third.
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<DocText>>(1);
            let read = scope.spawn(move || -> Result<()> {
                let mut st = reader.prepare(&doc_texts_sql(kind))?;
                let mut rows = st.query([])?;
                let mut buf = Vec::with_capacity(chunk);
                while let Some(r) = rows.next()? {
                    buf.push(doc_text(r)?);
                    if buf.len() >= chunk && tx.send(std::mem::take(&mut buf)).is_err() {
                        // `f` failed and stopped taking chunks.
                        return Ok(());
                    }
                }
                if !buf.is_empty() {
                    // An error here means `f` stopped; its error is the one reported.
                    let _ = tx.send(buf);
                }
                Ok(())
            });
            let mut done = Ok(());
            for c in rx.iter() {
                done = f(c);
                if done.is_err() {
                    break;
                }
            }
            drop(rx);
            let read = match read.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            done.and(read)
        })
    }

    pub fn for_each_text_chunk(
        &self,
        kind: TextKind,
        chunk: usize,
        mut f: impl FnMut(Vec<DocText>) -> Result<()>,
    ) -> Result<()> {
        let mut st = self.conn().prepare(&doc_texts_sql(kind))?;
        let mut rows = st.query([])?;
        let mut buf = Vec::with_capacity(chunk);
        while let Some(r) = rows.next()? {
            buf.push(doc_text(r)?);
            if buf.len() >= chunk.max(1) {
                f(std::mem::take(&mut buf))?;
            }
        }
        if !buf.is_empty() {
            f(buf)?;
        }
        Ok(())
    }
}

/// Stored signatures at least this long (as JSON text) are compressed.
const COMPRESS_DOC_SIG_FROM: usize = 200;

/// `query`'s index signatures at least this long are stored compressed.
const COMPRESS_RUN_SIG_FROM: usize = 64;

/// The first bytes of every zstd frame. A method's signature bytes are JSON (older
/// versions) or start with [`BINARY_RUN_SIG`], neither of which starts with `(` (0x28), so a
/// stored signature that starts with these is compressed.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The format byte that starts a method's signature in the binary form of
/// `detect::sig_codec` (version 1; since issue 16 session 14). Such bytes are stored as
/// they are: compressing them cost more than it saved, and they are already compact.
/// JSON never starts with 0xB1, nor does a zstd frame.
pub const BINARY_RUN_SIG: u8 = 0xB1;

/// The stored form of a document's signature in `query`'s index: the method's bytes as
/// they are when binary ([`BINARY_RUN_SIG`]) or short, otherwise (JSON, as methods wrote
/// before the binary form), from [`COMPRESS_RUN_SIG_FROM`] bytes, zstd-compressed (level 1):
/// the index was the largest table of a `detect`ed database (1.26 of 3.4 GB on 113k pages,
/// issue 16). Older databases hold the JSON bytes as they were, or compressed;
/// [`decode_run_sig`] reads every form.
pub fn encode_run_sig(bytes: Vec<u8>) -> Result<Vec<u8>> {
    if bytes.len() < COMPRESS_RUN_SIG_FROM
        || bytes.starts_with(&ZSTD_MAGIC)
        || bytes.first() == Some(&BINARY_RUN_SIG)
    {
        return Ok(bytes);
    }
    compress(&bytes)
}

/// `bytes` zstd-compressed at level 1 with this thread's compression context: making one
/// per signature cost more than compressing it.
fn compress(bytes: &[u8]) -> Result<Vec<u8>> {
    thread_local! {
        static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    COMPRESSOR.with(|c| {
        let mut c = c.borrow_mut();
        let compressor = match &mut *c {
            Some(z) => z,
            empty => empty.insert(zstd::bulk::Compressor::new(1)?),
        };
        Ok(compressor.compress(bytes)?)
    })
}

/// A method's signature bytes from their stored form ([`encode_run_sig`]).
pub fn decode_run_sig(stored: Vec<u8>) -> Result<Vec<u8>> {
    if stored.starts_with(&ZSTD_MAGIC) {
        Ok(zstd::stream::decode_all(stored.as_slice())?)
    } else {
        Ok(stored)
    }
}

/// The stored form of a document's signature: its JSON text, or, from
/// [`COMPRESS_DOC_SIG_FROM`] bytes, that text zstd-compressed as a BLOB (SpotSigs' signature
/// sets were 18 MB of JSON text on 3,200 pages, 11% of `detect`'s time; they compress about
/// fivefold). Older databases hold text only; [`decode_doc_sig`] reads both.
pub fn encode_doc_sig(v: &serde_json::Value) -> Result<rusqlite::types::Value> {
    let text = v.to_string();
    if text.len() < COMPRESS_DOC_SIG_FROM {
        return Ok(rusqlite::types::Value::Text(text));
    }
    Ok(rusqlite::types::Value::Blob(compress(text.as_bytes())?))
}

/// A stored signature read back (`Null` when it cannot be read).
pub fn decode_doc_sig(stored: rusqlite::types::ValueRef<'_>) -> serde_json::Value {
    use rusqlite::types::ValueRef;
    let parsed = match stored {
        ValueRef::Text(t) => serde_json::from_slice(t).ok(),
        ValueRef::Blob(b) => zstd::stream::decode_all(b)
            .ok()
            .and_then(|t| serde_json::from_slice(&t).ok()),
        _ => None,
    };
    parsed.unwrap_or(serde_json::Value::Null)
}

impl Store {
    /// Every document's URL with its id (a URL captured twice maps to both documents).
    pub fn url_ids(&self) -> Result<Vec<(String, i64)>> {
        let mut st = self
            .conn()
            .prepare("SELECT url, id FROM documents ORDER BY id")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Which sites of the stored pages are one (`extract::sites`), from every URL streamed.
    pub fn site_families(&self) -> Result<crate::extract::sites::SiteFamilies> {
        let mut builder = crate::extract::sites::SiteFamiliesBuilder::default();
        let mut st = self.conn().prepare("SELECT url FROM documents")?;
        let mut rows = st.query([])?;
        while let Some(row) = rows.next()? {
            if let rusqlite::types::ValueRef::Text(url) = row.get_ref(0)? {
                builder.add(&String::from_utf8_lossy(url));
            }
        }
        Ok(builder.finish())
    }

    /// Every document's content hash (`text_hash`) by id.
    pub fn text_hashes(&self) -> Result<std::collections::HashMap<i64, String>> {
        let mut st = self.conn().prepare("SELECT id, text_hash FROM documents")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every document's capture date (as stored, if any) and locator (`SOURCE-PATH#OFFSET`:
    /// the crawl file and the record's byte offset in it) by id.
    pub fn doc_locators(&self) -> Result<std::collections::HashMap<i64, (Option<String>, String)>> {
        let mut st = self.conn().prepare(
            "SELECT d.id, d.fetch_time, s.path || '#' || d.record_offset
             FROM documents d JOIN sources s ON s.id = d.source_id",
        )?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every document's title by id (ANDD's `in_title` feature).
    pub fn doc_titles(&self) -> Result<std::collections::HashMap<i64, String>> {
        let mut st = self.conn().prepare("SELECT id, title FROM documents")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The clusters of a run as lists of document ids, in cluster order.
    pub fn run_clusters(&self, run: i64) -> Result<Vec<Vec<i64>>> {
        let mut st = self.conn().prepare(
            "SELECT cluster, doc_id FROM run_cluster_members WHERE run_id = ?1
             ORDER BY cluster, doc_id",
        )?;
        let mut rows = st.query([run])?;
        let mut out: Vec<Vec<i64>> = Vec::new();
        let mut last = None;
        while let Some(r) = rows.next()? {
            let c: i64 = r.get(0)?;
            if last != Some(c) {
                out.push(Vec::new());
                last = Some(c);
            }
            if let Some(v) = out.last_mut() {
                v.push(r.get(1)?);
            }
        }
        Ok(out)
    }
}

/// Every document's text of one kind, in id order: what [`doc_text`] reads a row of.
fn doc_texts_sql(kind: TextKind) -> String {
    let col = text_column(kind);
    format!("SELECT id, url, {col}, dup_group FROM documents ORDER BY id")
}

/// One row of [`doc_texts_sql`].
fn doc_text(r: &rusqlite::Row<'_>) -> rusqlite::Result<DocText> {
    Ok(DocText {
        id: r.get(0)?,
        url: r.get(1)?,
        text: r.get(2)?,
        dup_group: r.get(3)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_kept_and_the_latest_finished_one_is_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("r.db")).unwrap();
        let r1 = s
            .create_run("spotsigs", &serde_json::json!({"tau": 0.9}))
            .unwrap();
        s.finish_run(r1, &serde_json::json!({})).unwrap();
        let r2 = s
            .create_run("spotsigs", &serde_json::json!({"tau": 0.8}))
            .unwrap();
        // r2 not finished: the latest finished run is r1.
        assert_eq!(s.resolve_run("spotsigs", None).unwrap().id, r1);
        s.finish_run(r2, &serde_json::json!({})).unwrap();
        assert_eq!(s.resolve_run("spotsigs", None).unwrap().id, r2);
        assert_eq!(
            s.resolve_run("spotsigs", Some(r1)).unwrap().params["tau"],
            0.9
        );
        assert!(s.resolve_run("imatch", None).is_err());
        assert_eq!(s.runs().unwrap().len(), 2);
    }

    /// A batch large enough to rebuild the `b` index stores the same rows as one written
    /// pair by pair, and leaves the index in place (used by lookups by `b`).
    #[test]
    fn a_large_pair_batch_rebuilds_the_b_index_and_stores_the_same_rows() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("p.db")).unwrap();
        let small = s.create_run("cooper", &serde_json::json!({})).unwrap();
        let large = s.create_run("cooper", &serde_json::json!({})).unwrap();
        let n = REBUILD_PAIR_INDEXES_FROM as i64;
        let docs: Vec<i64> = (0..1000)
            .map(|i| {
                s.insert_test_document(&format!("u/{i}"), "", "t", None)
                    .unwrap()
            })
            .collect();
        // 200,000 distinct pairs among the first 953 documents, in key order.
        let pair = |i: i64| {
            let a = (i / 640) as usize;
            let b = a + 1 + (i % 640) as usize;
            (docs[a], docs[b], 0.5, (i % 3 == 0).then(|| i.to_string()))
        };
        // A few pairs (below the threshold), then a batch at it, whose iterator says so.
        s.write_run_pairs(small, (0..50).map(pair)).unwrap();
        assert_eq!(
            s.write_run_pairs(large, (0..n).map(pair)).unwrap(),
            n as u64
        );
        let indexes: Vec<String> = s
            .conn()
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'run_pairs'",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(indexes, ["run_pairs_b"]);
        // The connection's settings are back as they were.
        let pragma = |name: &str| -> i64 {
            s.conn()
                .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!((pragma("foreign_keys"), pragma("temp_store")), (1, 2));
        let by_b = |run: i64, b: i64| -> Vec<(i64, Option<String>)> {
            s.conn()
                .prepare("SELECT a, detail FROM run_pairs INDEXED BY run_pairs_b WHERE run_id = ?1 AND b = ?2 ORDER BY a")
                .unwrap()
                .query_map((run, b), |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        assert_eq!(by_b(small, docs[3]), [(docs[0], None)]);
        // Pairs 2, 641 and 1280 end at document 3; none is a multiple of 3 (no detail).
        let want: Vec<(i64, Option<String>)> =
            vec![(docs[0], None), (docs[1], None), (docs[2], None)];
        assert_eq!(by_b(large, docs[3]), want);
        let all = s.run_pairs(large).unwrap();
        assert_eq!(all.len(), n as usize);
        assert_eq!(s.run_pairs(small).unwrap()[..], all[..50]);
    }
}

#[cfg(test)]
mod doc_sig_tests {
    use super::*;

    #[test]
    fn stored_signatures_read_back_short_as_text_long_compressed() {
        let short = serde_json::json!({"salient_terms": 3, "sum_signature": -7});
        let long: serde_json::Value = (0..100)
            .map(|i| (format!("a:sig:{i}"), serde_json::Value::from(i)))
            .collect::<serde_json::Map<_, _>>()
            .into();
        let short_stored = encode_doc_sig(&short).unwrap();
        assert!(matches!(short_stored, rusqlite::types::Value::Text(_)));
        let long_stored = encode_doc_sig(&long).unwrap();
        let rusqlite::types::Value::Blob(b) = &long_stored else {
            panic!("long signature stored as {long_stored:?}");
        };
        assert!(b.len() < long.to_string().len() / 2);
        for (stored, v) in [(&short_stored, &short), (&long_stored, &long)] {
            assert_eq!(&decode_doc_sig(stored.into()), v);
        }
        // What an older version stored (text) and what cannot be read.
        let old = long.to_string();
        assert_eq!(
            decode_doc_sig(rusqlite::types::ValueRef::Text(old.as_bytes())),
            long
        );
        assert_eq!(
            decode_doc_sig(rusqlite::types::ValueRef::Blob(b"junk")),
            serde_json::Value::Null
        );
    }
}

#[cfg(test)]
mod run_sig_tests {
    use super::*;

    #[test]
    fn query_index_signatures_read_back_whether_compressed_or_stored_by_an_older_version() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("r.db")).unwrap();
        let run = s.create_run("cooper", &serde_json::json!({})).unwrap();
        let short = br#"[1,["a"]]"#.to_vec();
        let long =
            serde_json::to_vec(&(0..200).map(|i| format!("t{i}")).collect::<Vec<_>>()).unwrap();
        let docs: Vec<i64> = (0..3)
            .map(|i| {
                s.insert_test_document(&format!("http://h/{i}"), "", &format!("text {i}"), None)
                    .unwrap()
            })
            .collect();
        s.write_run_signatures(run, [(docs[0], short.clone()), (docs[1], long.clone())])
            .unwrap();
        // An older version's row: the JSON bytes as they were, however long.
        s.conn()
            .execute(
                "INSERT INTO run_signatures(run_id, doc_id, sig) VALUES (?1, ?2, ?3)",
                params![run, docs[2], long],
            )
            .unwrap();
        let stored: Vec<u8> = s
            .conn()
            .query_row(
                "SELECT sig FROM run_signatures WHERE doc_id = ?1",
                [docs[1]],
                |r| r.get(0),
            )
            .unwrap();
        assert!(stored.starts_with(&ZSTD_MAGIC) && stored.len() < long.len() / 2);
        let rows = s.run_signatures(run).unwrap().unwrap();
        assert_eq!(
            rows,
            vec![(docs[0], short), (docs[1], long.clone()), (docs[2], long)]
        );
    }
}
