//! Writes made by the ingest command: sources and their completion, captures, documents,
//! errors, revisit resolution and exact-duplicate groups. Every write is idempotent
//! (`INSERT OR IGNORE` on the record's place in its file), which is what makes a killed
//! ingest resumable: re-reading a partial source adds only what is missing.

use std::collections::{BTreeMap, HashSet};

use anyhow::{Context, Result};
use rusqlite::{params, OptionalExtension};

use super::Store;

/// What the store already knows about a file with a given content hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceState {
    /// Never seen.
    New,
    /// Started but not finished (a killed ingest): resume it.
    Partial(i64),
    /// Fully ingested: nothing to do.
    Complete(i64),
}

/// A response, resource or revisit record, whether or not it became a document.
#[derive(Debug, Clone, Default)]
pub struct NewCapture {
    pub source_id: i64,
    pub record_offset: u64,
    pub record_type: String,
    pub url: Option<String>,
    pub date: Option<String>,
    pub record_id: Option<String>,
    pub payload_digest: Option<String>,
    pub refers_to: Option<String>,
    pub refers_to_uri: Option<String>,
    pub refers_to_date: Option<String>,
    pub media_type: Option<String>,
    pub http_status: Option<u16>,
}

/// A page with its extracted texts.
#[derive(Debug, Clone, Default)]
pub struct NewDocument {
    pub source_id: i64,
    pub record_offset: u64,
    pub record_length: u64,
    pub compression: &'static str,
    pub record_type: String,
    pub url: String,
    pub title: String,
    pub fetch_time: Option<String>,
    pub content_type: Option<String>,
    pub encoding: String,
    pub http_status: Option<u16>,
    pub raw_hash: Option<String>,
    pub text_hash: String,
    pub visible_text: String,
    pub main_text: Option<String>,
    /// The page is a client-side redirect stub (`extract::redirect_stub`).
    pub redirect_stub: bool,
    /// The distinct block hashes of `visible_text` (`extract::content::distinct_blocks`),
    /// made in the parallel extraction so the content pass need not read the texts twice;
    /// not stored.
    pub blocks: Vec<u64>,
    /// The visible text's block structure (`extract::structure::encode`), when any block
    /// carries a signal: stored in `block_signals`.
    pub structure: Option<Vec<u8>>,
    /// The ingest's number for this page's payload when later pages may be copies of it
    /// ([`DocumentCopy`]); not stored.
    pub payload: Option<u64>,
}

/// A page whose payload an earlier page of the same ingest had (the same bytes, declared
/// charset and kind: `extract` gives the same texts): stored from that page's row, its own
/// fields (place, URL, date, status, a given title) from its record.
#[derive(Debug, Clone, Default)]
pub struct DocumentCopy {
    pub source_id: i64,
    pub record_offset: u64,
    pub record_length: u64,
    pub compression: &'static str,
    pub record_type: String,
    pub url: String,
    /// A title the input gave (tables, JSONL); else the first page's extracted title.
    pub given_title: Option<String>,
    pub fetch_time: Option<String>,
    pub content_type: Option<String>,
    pub http_status: Option<u16>,
    /// The first page's payload number ([`NewDocument::payload`]).
    pub payload: u64,
}

/// The documents of the payloads an ingest extracted first, by payload number
/// ([`NewDocument::payload`]), so that later copies ([`DocumentCopy`]) are written from them.
#[derive(Debug, Clone, Default)]
pub struct PayloadDocs(Vec<i64>);

impl PayloadDocs {
    fn set(&mut self, payload: u64, doc_id: i64) {
        let at = payload as usize;
        if self.0.len() <= at {
            self.0.resize(at + 1, 0);
        }
        self.0[at] = doc_id;
    }

    /// The document of payload number `payload`, once its first page is written.
    pub fn get(&self, payload: u64) -> Option<i64> {
        self.0.get(payload as usize).copied().filter(|&id| id > 0)
    }
}

/// One write of a batch.
#[derive(Debug, Clone)]
pub enum WriteOp {
    Capture(NewCapture),
    Document(NewDocument),
    Copy(DocumentCopy),
    Error {
        source_id: Option<i64>,
        source_path: String,
        offset: u64,
        reason: String,
    },
}

/// How many revisits an ingest resolved into exact duplicates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RevisitResolution {
    /// Revisits that now have a document (a copy of the page they point at).
    pub resolved: u64,
    /// Revisits that point at a record that is not a page (an image, a script…).
    pub not_a_document: u64,
    /// Revisits whose original is not in the database (yet).
    pub unresolved: u64,
}

fn now() -> String {
    // Seconds since the epoch: enough for ordering; no clock crate needed.
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("{secs}")
}

impl Store {
    pub fn source_state(&self, content_hash: &str) -> Result<SourceState> {
        // Cached statements: a folder ingest asks this for every page.
        let row: Option<(i64, String)> = self
            .conn()
            .prepare_cached("SELECT id, status FROM sources WHERE content_hash = ?1")?
            .query_row([content_hash], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        Ok(match row {
            None => SourceState::New,
            Some((id, s)) if s == "complete" => SourceState::Complete(id),
            Some((id, _)) => SourceState::Partial(id),
        })
    }

    /// Registers a file about to be read (or returns the id of its partial earlier run).
    pub fn begin_source(
        &self,
        path: &str,
        size: u64,
        content_hash: &str,
        format: &str,
        params_json: &str,
    ) -> Result<i64> {
        if let SourceState::Partial(id) | SourceState::Complete(id) =
            self.source_state(content_hash)?
        {
            return Ok(id);
        }
        self.conn()
            .prepare_cached(
                "INSERT INTO sources(path, size, content_hash, format, status, params, started_at)
                 VALUES (?1, ?2, ?3, ?4, 'partial', ?5, ?6)",
            )?
            .execute(params![
                path,
                size as i64,
                content_hash,
                format,
                params_json,
                now()
            ])?;
        Ok(self.conn().last_insert_rowid())
    }

    /// Offsets of the documents of a source already stored, so a resumed ingest can skip
    /// re-extracting them. (Other records are cheap to read again; their rows are written
    /// with `INSERT OR IGNORE`.)
    pub fn stored_offsets(&self, source_id: i64) -> Result<HashSet<u64>> {
        let mut st = self
            .conn()
            .prepare("SELECT record_offset FROM documents WHERE source_id = ?1")?;
        let rows = st.query_map([source_id], |r| r.get::<_, i64>(0))?;
        let mut out = HashSet::new();
        for r in rows {
            out.insert(r? as u64);
        }
        Ok(out)
    }

    /// Writes a batch in one transaction. Returns how many documents were new. `payloads`
    /// maps the payload numbers of this ingest's first pages to their documents: set by
    /// their writes, read by their copies'.
    pub fn write_batch(&mut self, ops: &[WriteOp], payloads: &mut PayloadDocs) -> Result<u64> {
        // A savepoint: its own transaction when alone, nested inside `begin_bulk` otherwise.
        let tx = self.conn.savepoint()?;
        let mut added = 0;
        {
            let mut ins_cap = tx.prepare_cached(
                "INSERT OR IGNORE INTO captures(source_id, record_offset, record_type, url, date,
                   record_id, payload_digest, refers_to, refers_to_uri, refers_to_date,
                   media_type, http_status)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?;
            // The exact-duplicate group is known at insert time: the smallest id with the
            // same text hash, or the new row's own id, which SQLite allocates as max(id) + 1.
            // Setting it later would rewrite every row, long texts included.
            let mut ins_doc = tx.prepare_cached(
                "INSERT OR IGNORE INTO documents(source_id, record_offset, record_length,
                   compression, record_type, url, title, fetch_time, content_type, encoding,
                   http_status, raw_hash, text_hash, visible_text, main_text, redirect_stub,
                   dup_group)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                   (SELECT coalesce(min(id), (SELECT coalesce(max(id), 0) + 1 FROM documents))
                    FROM documents WHERE text_hash = ?13))",
            )?;
            let mut ins_structure = tx.prepare_cached(
                "INSERT OR REPLACE INTO block_signals(doc_id, signals) VALUES (?1, ?2)",
            )?;
            let mut link_cap = tx.prepare_cached(
                "UPDATE captures SET document_id = ?3 WHERE source_id = ?1 AND record_offset = ?2",
            )?;
            // A copy's texts, title, encoding and hashes are its first page's, read inside
            // the database; its exact-duplicate group as for any insert.
            let mut ins_copy = tx.prepare_cached(
                "INSERT OR IGNORE INTO documents(source_id, record_offset, record_length,
                   compression, record_type, url, title, fetch_time, content_type, encoding,
                   http_status, raw_hash, text_hash, visible_text, main_text, redirect_stub,
                   dup_group)
                 SELECT ?1, ?2, ?3, ?4, ?5, ?6, coalesce(?7, f.title), ?8, ?9, f.encoding, ?10,
                   f.raw_hash, f.text_hash, f.visible_text, f.main_text, f.redirect_stub,
                   (SELECT coalesce(min(x.id), (SELECT coalesce(max(id), 0) + 1 FROM documents))
                    FROM documents x WHERE x.text_hash = f.text_hash)
                 FROM documents f WHERE f.id = ?11",
            )?;
            let mut copy_structure = tx.prepare_cached(
                "INSERT OR REPLACE INTO block_signals(doc_id, signals)
                 SELECT ?1, signals FROM block_signals WHERE doc_id = ?2",
            )?;
            let mut stored_id = tx.prepare_cached(
                "SELECT id FROM documents WHERE source_id = ?1 AND record_offset = ?2",
            )?;
            let mut ins_err = tx.prepare_cached(
                "INSERT OR IGNORE INTO ingest_errors(source_id, source_path, offset, reason)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for op in ops {
                match op {
                    WriteOp::Capture(c) => {
                        ins_cap.execute(params![
                            c.source_id,
                            c.record_offset as i64,
                            c.record_type,
                            c.url,
                            c.date,
                            c.record_id,
                            c.payload_digest,
                            c.refers_to,
                            c.refers_to_uri,
                            c.refers_to_date,
                            c.media_type,
                            c.http_status,
                        ])?;
                    }
                    WriteOp::Document(d) => {
                        let n = ins_doc.execute(params![
                            d.source_id,
                            d.record_offset as i64,
                            d.record_length as i64,
                            d.compression,
                            d.record_type,
                            d.url,
                            d.title,
                            d.fetch_time,
                            d.content_type,
                            d.encoding,
                            d.http_status,
                            d.raw_hash,
                            d.text_hash,
                            d.visible_text,
                            d.main_text,
                            d.redirect_stub,
                        ])?;
                        if n > 0 {
                            added += 1;
                            let id = tx.last_insert_rowid();
                            link_cap.execute(params![d.source_id, d.record_offset as i64, id])?;
                            if let Some(signals) = &d.structure {
                                ins_structure.execute(params![id, signals])?;
                            }
                            if let Some(p) = d.payload {
                                payloads.set(p, id);
                            }
                        } else if let Some(p) = d.payload {
                            // Stored by an earlier run of the same file: copies read that row.
                            let id: Option<i64> = stored_id
                                .query_row(params![d.source_id, d.record_offset as i64], |r| {
                                    r.get(0)
                                })
                                .optional()?;
                            if let Some(id) = id {
                                payloads.set(p, id);
                            }
                        }
                    }
                    WriteOp::Copy(c) => {
                        let from = payloads.get(c.payload).with_context(|| {
                            format!(
                                "a copy of payload {} before its first page was written",
                                c.payload
                            )
                        })?;
                        let n = ins_copy.execute(params![
                            c.source_id,
                            c.record_offset as i64,
                            c.record_length as i64,
                            c.compression,
                            c.record_type,
                            c.url,
                            c.given_title,
                            c.fetch_time,
                            c.content_type,
                            c.http_status,
                            from,
                        ])?;
                        if n > 0 {
                            added += 1;
                            let id = tx.last_insert_rowid();
                            link_cap.execute(params![c.source_id, c.record_offset as i64, id])?;
                            copy_structure.execute(params![id, from])?;
                        }
                    }
                    WriteOp::Error {
                        source_id,
                        source_path,
                        offset,
                        reason,
                    } => {
                        ins_err.execute(params![source_id, source_path, *offset as i64, reason])?;
                    }
                }
            }
        }
        tx.commit()?;
        Ok(added)
    }

    /// The visible texts of documents `ids`, in that order.
    pub fn visible_texts_of(&self, ids: &[i64]) -> Result<Vec<String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT visible_text FROM documents WHERE id = ?1")?;
        ids.iter()
            .map(|id| {
                st.query_row([id], |r| r.get(0))
                    .with_context(|| format!("no document {id}"))
            })
            .collect()
    }

    /// Marks a source complete and stores its records by type (replacing earlier counts of
    /// a partial run, which saw only part of the file).
    pub fn finish_source(&mut self, source_id: i64, counts: &BTreeMap<String, u64>) -> Result<()> {
        let tx = self.conn.savepoint()?;
        tx.prepare_cached("DELETE FROM record_counts WHERE source_id = ?1")?
            .execute([source_id])?;
        for (ty, n) in counts {
            tx.prepare_cached(
                "INSERT INTO record_counts(source_id, record_type, count) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![source_id, ty, *n as i64])?;
        }
        tx.prepare_cached(
            "UPDATE sources SET status = 'complete', finished_at = ?2 WHERE id = ?1",
        )?
        .execute(params![source_id, now()])?;
        tx.commit()?;
        Ok(())
    }

    /// Sizes this connection for a bulk load: a 64 MiB page cache (SQLite's default is
    /// 2 MiB) so a transaction of a few thousand pages, and the content pass's one
    /// transaction over every document, do not spill dirty pages to the log and read them
    /// back mid-transaction (`pagerStress`, `getPageNormal`: about 15% of a WARC ingest's
    /// CPU before; BENCHMARKS.md, issue 16 session 5). Only memory; durability is as before.
    ///
    /// Foreign keys are not enforced while loading ([`Store::end_bulk_load`] enforces them
    /// again): the ingest writes only ids it was just given (`begin_source`, the inserted
    /// document's), and with them on, SQLite gives every insert a statement journal
    /// (so that a violation could undo that statement alone): its savepoints were ~5% of a
    /// WARC ingest's CPU (BENCHMARKS.md, issue 16 session 8).
    pub fn tune_for_bulk_load(&self) -> Result<()> {
        self.conn()
            .execute_batch("PRAGMA cache_size = -65536; PRAGMA foreign_keys = OFF;")
            .context("cannot tune the connection for a bulk load")?;
        Ok(())
    }

    /// Enforces foreign keys again after [`Store::tune_for_bulk_load`] (the page cache
    /// stays: only memory).
    pub fn end_bulk_load(&self) -> Result<()> {
        self.conn()
            .execute_batch("PRAGMA foreign_keys = ON;")
            .context("cannot end the bulk load")?;
        Ok(())
    }

    /// Opens an outer transaction that groups many small writes (a folder of pages is one
    /// source per page); `commit_bulk` ends it. Writes inside are savepoints.
    pub fn begin_bulk(&self) -> Result<()> {
        self.conn().execute_batch("BEGIN")?;
        Ok(())
    }

    /// Commits the transaction opened by `begin_bulk`.
    pub fn commit_bulk(&self) -> Result<()> {
        self.conn().execute_batch("COMMIT")?;
        Ok(())
    }

    /// The size in bytes of the database's write-ahead log file (0 when there is none).
    pub fn wal_bytes(&self) -> u64 {
        let mut wal = self.path().as_os_str().to_owned();
        wal.push("-wal");
        std::fs::metadata(wal).map_or(0, |m| m.len())
    }

    /// Copies the whole write-ahead log into the database and truncates the log to zero
    /// bytes (`wal_checkpoint(TRUNCATE)`), waiting (the busy timeout) for a checkpoint
    /// another connection is running. Returns whether it completed: `false` when a reader
    /// or that checkpoint kept it from copying every page, so the log keeps its size.
    ///
    /// Passive checkpoints alone never shrink the log of a writer that commits again at
    /// once: SQLite starts the log over only when a write begins after every page of it was
    /// copied, and a checkpoint running beside the writer always trails its newest commit
    /// (a million-page ingest grew its log to 19 GB in 2.5 minutes, issue 16 session 18).
    pub fn checkpoint_truncate(&self) -> Result<bool> {
        let busy: i64 = self
            .conn()
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
            .with_context(|| format!("{}: cannot checkpoint the log", self.path().display()))?;
        Ok(busy == 0)
    }

    /// Drops the secondary indexes the first pass of an ingest never reads
    /// ([`LOAD_LATE_INDEXES`]), when the database has no capture yet: rebuilt once from the
    /// loaded rows by [`Store::ensure_load_indexes`], a sort instead of one random B-tree
    /// insert per row and index, whose pages every commit wrote to the log again (about a
    /// third of the writer's work on a 120 MB WARC; BENCHMARKS.md, issue 16 session 11).
    /// Returns whether it dropped them.
    pub fn drop_load_indexes_if_empty(&self) -> Result<bool> {
        let empty: bool =
            self.conn()
                .query_row("SELECT NOT EXISTS (SELECT 1 FROM captures)", [], |r| {
                    r.get(0)
                })?;
        if empty {
            for (name, _) in LOAD_LATE_INDEXES {
                self.conn()
                    .execute_batch(&format!("DROP INDEX IF EXISTS {name}"))?;
            }
        }
        Ok(empty)
    }

    /// Creates the indexes [`Store::drop_load_indexes_if_empty`] dropped, if they are
    /// missing: after the first pass, and at the start of every ingest (an ingest killed
    /// between the two leaves them out until the next one).
    pub fn ensure_load_indexes(&self) -> Result<()> {
        for (name, on) in LOAD_LATE_INDEXES {
            self.conn()
                .execute_batch(&format!("CREATE INDEX IF NOT EXISTS {name} ON {on}"))
                .with_context(|| format!("cannot create index {name}"))?;
        }
        Ok(())
    }

    /// Turns revisit records into exact duplicates of the pages they point at: by
    /// WARC-Refers-To record id, then payload digest, then WARC-Refers-To-Target-URI and
    /// date, then the same URL's latest earlier capture. Runs over the whole database, so
    /// a revisit ingested before its original is resolved by the later ingest.
    pub fn resolve_revisits(&mut self) -> Result<RevisitResolution> {
        let tx = self.conn.transaction()?;
        // Candidate originals for each pending revisit, best rule first.
        tx.execute_batch(
            r#"
            CREATE TEMP TABLE IF NOT EXISTS revisit_target(revisit INTEGER PRIMARY KEY, target INTEGER);
            DELETE FROM revisit_target;
            INSERT OR IGNORE INTO revisit_target
              SELECT r.id, (SELECT o.id FROM captures o WHERE o.record_id = r.refers_to
                              AND o.record_type != 'revisit' ORDER BY o.id LIMIT 1)
              FROM captures r WHERE r.record_type = 'revisit' AND r.document_id IS NULL
                AND r.refers_to IS NOT NULL;
            DELETE FROM revisit_target WHERE target IS NULL;
            INSERT OR IGNORE INTO revisit_target
              SELECT r.id, (SELECT o.id FROM captures o WHERE o.payload_digest = r.payload_digest
                              AND o.url = r.url AND o.record_type != 'revisit'
                              ORDER BY o.id LIMIT 1)
              FROM captures r WHERE r.record_type = 'revisit' AND r.document_id IS NULL
                AND r.payload_digest IS NOT NULL;
            DELETE FROM revisit_target WHERE target IS NULL;
            INSERT OR IGNORE INTO revisit_target
              SELECT r.id, (SELECT o.id FROM captures o WHERE o.payload_digest = r.payload_digest
                              AND o.record_type != 'revisit' ORDER BY o.id LIMIT 1)
              FROM captures r WHERE r.record_type = 'revisit' AND r.document_id IS NULL
                AND r.payload_digest IS NOT NULL;
            DELETE FROM revisit_target WHERE target IS NULL;
            INSERT OR IGNORE INTO revisit_target
              SELECT r.id, (SELECT o.id FROM captures o WHERE o.url = r.refers_to_uri
                              AND o.date = r.refers_to_date AND o.record_type != 'revisit'
                              ORDER BY o.id LIMIT 1)
              FROM captures r WHERE r.record_type = 'revisit' AND r.document_id IS NULL
                AND r.refers_to_uri IS NOT NULL AND r.refers_to_date IS NOT NULL;
            DELETE FROM revisit_target WHERE target IS NULL;
            INSERT OR IGNORE INTO revisit_target
              SELECT r.id, (SELECT o.id FROM captures o
                              WHERE o.url = coalesce(r.refers_to_uri, r.url)
                                AND o.record_type != 'revisit'
                                AND (r.date IS NULL OR o.date IS NULL OR o.date <= r.date)
                              ORDER BY o.date DESC, o.id DESC LIMIT 1)
              FROM captures r WHERE r.record_type = 'revisit' AND r.document_id IS NULL;
            DELETE FROM revisit_target WHERE target IS NULL;
            "#,
        )?;
        // A copy of the original's document, under the revisit's own URL and date.
        tx.execute_batch(
            r#"
            INSERT OR IGNORE INTO documents(source_id, record_offset, record_length, compression,
                record_type, url, title, fetch_time, content_type, encoding, http_status,
                raw_hash, text_hash, visible_text, main_text, redirect_stub, revisit_of,
                dup_group)
              SELECT r.source_id, r.record_offset, d.record_length, d.compression, 'revisit',
                     coalesce(r.url, d.url), d.title, r.date, d.content_type, d.encoding,
                     coalesce(r.http_status, d.http_status), d.raw_hash, d.text_hash,
                     d.visible_text, d.main_text, d.redirect_stub, d.id,
                     (SELECT min(x.id) FROM documents x WHERE x.text_hash = d.text_hash)
              FROM revisit_target t JOIN captures r ON r.id = t.revisit
                   JOIN captures o ON o.id = t.target JOIN documents d ON d.id = o.document_id;
            UPDATE captures SET document_id = (SELECT d.id FROM documents d
                  WHERE d.source_id = captures.source_id AND d.record_offset = captures.record_offset),
                revisit_status = 'resolved'
              WHERE id IN (SELECT t.revisit FROM revisit_target t JOIN captures o ON o.id = t.target
                           WHERE o.document_id IS NOT NULL);
            UPDATE captures SET revisit_status = 'not-a-document'
              WHERE id IN (SELECT t.revisit FROM revisit_target t JOIN captures o ON o.id = t.target
                           WHERE o.document_id IS NULL);
            UPDATE captures SET revisit_status = 'unresolved'
              WHERE record_type = 'revisit' AND revisit_status IS NULL;
            "#,
        )?;
        tx.commit()?;
        let count = |status: &str| -> Result<u64> {
            Ok(self.conn().query_row(
                "SELECT count(*) FROM captures WHERE record_type='revisit' AND revisit_status=?1",
                [status],
                |r| r.get::<_, i64>(0),
            )? as u64)
        };
        Ok(RevisitResolution {
            resolved: count("resolved")?,
            not_a_document: count("not-a-document")?,
            unresolved: count("unresolved")?,
        })
    }

    /// Recomputes exact-duplicate groups: documents with the same visible-text hash share
    /// the group named by their smallest document id.
    ///
    /// Inserts set the group already, and it never changes afterwards: documents are never
    /// deleted and a new one always gets the largest id, so it cannot become the smallest
    /// of an existing group. Only rows without a group (written by an older version that
    /// set groups at the end of a run it did not finish) are filled in here.
    pub fn recompute_dup_groups(&mut self) -> Result<()> {
        self.conn
            .execute_batch(
                "UPDATE documents SET dup_group = (SELECT min(d2.id) FROM documents d2
                   WHERE d2.text_hash = documents.text_hash)
                 WHERE dup_group IS NULL",
            )
            .context("cannot compute exact-duplicate groups")?;
        Ok(())
    }
}

/// What the content-text pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct ContentUpdate {
    /// Seconds reading the visible texts and counting each site's blocks (pass 1).
    pub count_seconds: f64,
    /// Seconds reading them again and computing the content texts (pass 2).
    pub compute_seconds: f64,
    /// Seconds writing the changed texts and committing.
    pub write_seconds: f64,
    /// Of pass 2's time: seconds the calling thread read (and planned) the rows, and
    /// seconds it waited for the worker's computed chunks (the rest is its writing). Pass
    /// 2's wall time is about read + write + wait: the computing overlaps the first two.
    pub read_seconds: f64,
    pub wait_seconds: f64,
    /// Documents whose content text was computed.
    pub documents: u64,
    /// …with site-template blocks removed (sites with enough pages).
    pub template: u64,
    /// …by the per-page extraction (sites with too few pages).
    pub per_page: u64,
    /// …where the per-page extraction found only a stub: the visible text.
    pub visible: u64,
    /// Rows whose stored content text changed.
    pub changed: u64,
    /// Documents whose text and language were an earlier exact duplicate's, not computed
    /// again (included in `documents`).
    pub reused: u64,
    /// Per-page (or visible) documents stored before structure signals were kept (schema
    /// `block_signals`): their content texts are made without them.
    pub without_signals: u64,
}

impl Store {
    /// The content rule the stored content texts were made with (the default when none
    /// is recorded).
    pub fn content_rule(&self) -> Result<crate::extract::content::ContentRule> {
        Ok(self
            .meta("content_rule")?
            .and_then(|j| serde_json::from_str(&j).ok())
            .unwrap_or_default())
    }

    /// The stored structure signals of each document that has them
    /// (`extract::structure`), by document id.
    pub fn all_block_signals(
        &self,
    ) -> Result<std::collections::HashMap<i64, Vec<crate::extract::structure::BlockSignal>>> {
        let mut st = self
            .conn()
            .prepare("SELECT doc_id, signals FROM block_signals")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)))?;
        let mut out = std::collections::HashMap::new();
        for row in rows {
            let (id, blob) = row?;
            out.insert(id, crate::extract::structure::decode(&blob));
        }
        Ok(out)
    }

    /// Each of `sites`' block counts over the stored visible texts: pass 1 of the content
    /// pass, for the sites asked only (what `query` adds an outside page of such a site to,
    /// so its content text loses the same template as the stored pages' did). As in the
    /// pass, a family of sites counts as one: the counts are keyed by family name
    /// (`families.site_of(url)` finds a page's), with the families of the stored URLs.
    pub fn site_blocks(
        &self,
        sites: &std::collections::HashSet<String>,
    ) -> Result<(
        crate::extract::sites::SiteFamilies,
        std::collections::HashMap<String, crate::extract::content::SiteBlocks>,
    )> {
        use crate::extract::content;
        let families = self.site_families()?;
        let wanted: std::collections::HashSet<&str> =
            sites.iter().map(|s| families.family(s)).collect();
        let counts = self.count_site_blocks(|url| wanted.contains(families.site_of(url)))?;
        let counts = content::join_site_families(counts, &families);
        Ok((families, counts))
    }

    /// Pass 1 of the content pass: each site's block counts over the stored visible texts
    /// of the documents whose URL `keep` takes, hashed in parallel a chunk at a time.
    fn count_site_blocks(
        &self,
        keep: impl Fn(&str) -> bool,
    ) -> Result<std::collections::HashMap<String, crate::extract::content::SiteBlocks>> {
        use crate::extract::content;
        use rayon::prelude::*;
        let mut out: std::collections::HashMap<String, content::SiteBlocks> = Default::default();
        let mut count = |chunk: &mut Vec<(String, String)>| {
            let hashed: Vec<Vec<u64>> = chunk
                .par_iter()
                .map(|(_, text)| content::distinct_blocks(text))
                .collect();
            for ((url, _), blocks) in chunk.iter().zip(hashed) {
                out.entry(content::site_key(url).to_string())
                    .or_default()
                    .add_page(url, &blocks);
            }
            chunk.clear();
        };
        let mut st = self
            .conn()
            .prepare("SELECT url, visible_text FROM documents ORDER BY id")?;
        let mut rows = st.query([])?;
        let mut chunk: Vec<(String, String)> = Vec::with_capacity(CONTENT_CHUNK);
        while let Some(r) = rows.next()? {
            let url: String = r.get(0)?;
            if !keep(&url) {
                continue;
            }
            chunk.push((url, r.get(1)?));
            if chunk.len() >= CONTENT_CHUNK {
                count(&mut chunk);
            }
        }
        count(&mut chunk);
        Ok(out)
    }
}

/// The secondary indexes (name, what they index) an ingest into an empty database builds
/// after its first pass: only revisit resolution, `docs`, the review and the URL look-ups
/// read them. Exactly the schema's v1 definitions, so the rebuilt schema is the same.
const LOAD_LATE_INDEXES: [(&str, &str); 4] = [
    ("captures_digest", "captures(payload_digest)"),
    ("captures_record_id", "captures(record_id)"),
    ("captures_url", "captures(url, date)"),
    ("documents_url", "documents(url)"),
];

/// Documents read, computed and written per step of the content pass.
const CONTENT_CHUNK: usize = 2048;
/// Chunks of the content pass read and not yet written, at most (one being computed, one
/// read ahead, one computed and waiting to be written): bounded memory.
const CONTENT_IN_FLIGHT: usize = 3;

/// A computed row of the content pass: its content text (`None`: the visible text), whether
/// the stored one changes, the way it was made, and its language.
type RowResult = (
    Option<String>,
    bool,
    crate::extract::content::ContentWay,
    &'static str,
);
/// A chunk of the content pass as read: its rows, and for each the earlier result it
/// reuses, if any.
type Chunk<'s> = (Vec<PassRow>, Vec<Option<SameContent<'s>>>);
/// A chunk as computed: with the results of the rows that reuse none.
type Computed<'s> = (
    Vec<PassRow>,
    Vec<Option<SameContent<'s>>>,
    Vec<Option<RowResult>>,
);

/// What makes two documents' content texts (and so their languages) provably equal within
/// one pass: the same visible text (the same `text_hash`) and the same stored structure
/// signals, and either the same site, when the site's template is removed (the text then
/// depends on the visible text, its signals and the site's counts only), or any site, when
/// the text is made within the page (then it depends on the visible text and its signals
/// only). See [`crate::extract::content::content_text_with`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum SameContent<'s> {
    Template {
        text_hash: String,
        site: &'s str,
        signals: Option<Vec<u8>>,
    },
    PerPage {
        text_hash: String,
        signals: Option<Vec<u8>>,
    },
}

/// The result of a document whose content text a later duplicate reuses: its text is in
/// `content_texts` under `doc_id` (when `has_text`) by the time the duplicate is written.
#[derive(Debug, Clone, Copy)]
struct Reusable {
    doc_id: i64,
    has_text: bool,
    way: crate::extract::content::ContentWay,
    lang: &'static str,
}

/// One document row of the content pass.
struct PassRow {
    id: i64,
    url: String,
    text_hash: String,
    /// `None` when a document before it has the same visible text (not read: its result is
    /// usually reused; read on demand when it is not).
    visible: Option<String>,
    /// A document after it has the same visible text: its result is kept for reuse.
    later: bool,
    stored: Option<String>,
    stored_lang: Option<String>,
    signals: Option<Vec<u8>>,
}

impl Store {
    /// Computes every document's content text (`extract::content`) and stores the ones that
    /// changed, when documents were added since the last pass (`force`) or the stored texts
    /// follow another rule. Two streaming reads of the visible texts: the first counts each
    /// site's blocks (a hash per block, a count per site), the second computes the texts;
    /// both work in parallel a chunk at a time, and the changed texts are written in one
    /// transaction (to `content_texts`, no row for a text equal to the visible one). In the
    /// second, reading (this thread), computing (a worker on the thread pool) and writing
    /// (this thread) overlap, a chunk apart, so both cores stay busy. The cost is two
    /// reads of the database's visible texts, never a parse of a page.
    ///
    /// An exact duplicate (a document whose visible text an earlier one has) whose result is
    /// provably the earlier one's ([`SameContent`]: same site, or same structure signals
    /// off the template way) is neither read, computed nor language-identified again: its
    /// row is copied inside the database. Its blocks still count for its site in pass 1, as
    /// every page does, so no text changes (`Store::recompute_content_texts_each` is the
    /// reference the tests compare this against).
    pub fn update_content_texts(
        &mut self,
        rule: &crate::extract::content::ContentRule,
        force: bool,
        known_counts: Option<
            std::collections::HashMap<String, crate::extract::content::SiteBlocks>,
        >,
    ) -> Result<ContentUpdate> {
        self.content_pass(rule, force, known_counts, true)
    }

    /// The content pass with every document computed on its own (no duplicate reuses
    /// another's result), forced: the reference the reuse of
    /// [`Store::update_content_texts`] is tested against (its `changed` is 0 when the stored
    /// texts are what this computes).
    pub fn recompute_content_texts_each(
        &mut self,
        rule: &crate::extract::content::ContentRule,
    ) -> Result<ContentUpdate> {
        self.content_pass(rule, true, None, false)
    }

    fn content_pass(
        &mut self,
        rule: &crate::extract::content::ContentRule,
        force: bool,
        known_counts: Option<
            std::collections::HashMap<String, crate::extract::content::SiteBlocks>,
        >,
        reuse: bool,
    ) -> Result<ContentUpdate> {
        use crate::extract::content::{self, ContentWay, SiteBlocks};
        use rayon::prelude::*;
        use std::collections::HashMap;

        let rule_json = serde_json::to_string(rule)?;
        if !force && self.meta("content_rule")?.as_deref() == Some(rule_json.as_str()) {
            return Ok(ContentUpdate::default());
        }
        // Pass 1 (unless the caller counted every stored page already, as an ingest into an
        // empty database does): each page's distinct blocks, hashed in parallel a chunk at
        // a time, counted per site.
        let started = std::time::Instant::now();
        let sites: HashMap<String, SiteBlocks> = match known_counts {
            Some(known) => known,
            None => self.count_site_blocks(|_| true)?,
        };
        // Releases laid out as sites of their own learn one template (`extract::sites`).
        let families = self.site_families()?;
        let mut sites = content::join_site_families(sites, &families);
        sites
            .par_iter_mut()
            .for_each(|(_, site)| site.keep_template_only(rule));
        // Pass 2: the texts, computed in parallel; only changed rows are written.
        let stopwords = content::function_words();
        let signals_from: i64 = self
            .meta("block_signals_from")?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut done = ContentUpdate {
            count_seconds: started.elapsed().as_secs_f64(),
            ..ContentUpdate::default()
        };
        let started = std::time::Instant::now();
        let mut writing = std::time::Duration::ZERO;
        let mut reading = std::time::Duration::ZERO;
        let mut waiting = std::time::Duration::ZERO;
        // The reusable results of documents whose visible text a later one has.
        let mut reusable: HashMap<SameContent<'_>, Reusable> = HashMap::new();
        let key_of = |row: &PassRow| -> SameContent<'_> {
            let text_hash = row.text_hash.clone();
            match sites.get_key_value(families.site_of(&row.url)) {
                Some((site, counts)) if content::template_site(Some(counts), rule).is_some() => {
                    SameContent::Template {
                        text_hash,
                        site: site.as_str(),
                        signals: row.signals.clone(),
                    }
                }
                _ => SameContent::PerPage {
                    text_hash,
                    signals: row.signals.clone(),
                },
            }
        };
        let tx = self.conn.savepoint()?;
        {
            let mut put = tx.prepare_cached(
                "INSERT OR REPLACE INTO content_texts(doc_id, text) VALUES (?1, ?2)",
            )?;
            let mut remove = tx.prepare_cached("DELETE FROM content_texts WHERE doc_id = ?1")?;
            // A duplicate's text copied from the document it reuses, unless it has it already
            // (then no row changes).
            let mut copy = tx.prepare_cached(
                "INSERT OR REPLACE INTO content_texts(doc_id, text)
                 SELECT ?1, l.text FROM content_texts l WHERE l.doc_id = ?2
                   AND l.text IS NOT (SELECT m.text FROM content_texts m WHERE m.doc_id = ?1)",
            )?;
            let mut read_visible =
                tx.prepare_cached("SELECT visible_text FROM documents WHERE id = ?1")?;
            // `text_hash` precedes the long texts in the row, and the index on it answers
            // both look-ups: a duplicate's visible text is not read from its overflow pages.
            let mut st = tx.prepare(
                "SELECT d.id, d.url, d.text_hash,
                   CASE WHEN ?1 AND EXISTS (SELECT 1 FROM documents x
                                            WHERE x.text_hash = d.text_hash AND x.id < d.id)
                        THEN NULL ELSE d.visible_text END,
                   ?1 AND EXISTS (SELECT 1 FROM documents x
                                  WHERE x.text_hash = d.text_hash AND x.id > d.id),
                   c.text, l.lang, s.signals
                 FROM documents d LEFT JOIN content_texts c ON c.doc_id = d.id
                   LEFT JOIN document_langs l ON l.doc_id = d.id
                   LEFT JOIN block_signals s ON s.doc_id = d.id ORDER BY d.id",
            )?;
            let mut put_lang = tx.prepare_cached(
                "INSERT OR REPLACE INTO document_langs(doc_id, lang) VALUES (?1, ?2)",
            )?;
            let mut rows = st.query([reuse])?;
            // The keys of the results kept for reuse (those of `reusable` once their chunks
            // are written): which rows reuse an earlier result is decided when they are
            // read, before the earlier chunks are written.
            let mut planned: std::collections::HashSet<SameContent<'_>> = Default::default();
            // Reads the next chunk (empty at the end) and plans it: which rows reuse an
            // earlier result (of an earlier chunk, or of a row before them in this one).
            let mut read_chunk = || -> Result<Chunk<'_>> {
                let mut chunk: Vec<PassRow> = Vec::with_capacity(CONTENT_CHUNK);
                let mut plan: Vec<Option<SameContent<'_>>> = Vec::with_capacity(CONTENT_CHUNK);
                while chunk.len() < CONTENT_CHUNK {
                    let Some(r) = rows.next()? else { break };
                    let mut row = PassRow {
                        id: r.get(0)?,
                        url: r.get(1)?,
                        text_hash: r.get(2)?,
                        visible: r.get(3)?,
                        later: r.get(4)?,
                        stored: r.get(5)?,
                        stored_lang: r.get(6)?,
                        signals: r.get(7)?,
                    };
                    if !reuse {
                        plan.push(None);
                    } else {
                        let key = key_of(&row);
                        if row.visible.is_some() {
                            // The first of its visible text.
                            if row.later {
                                planned.insert(key);
                            }
                            plan.push(None);
                        } else if planned.contains(&key) {
                            plan.push(Some(key));
                        } else {
                            // A duplicate on another site (or with other signals) than the
                            // earlier ones: computed on its own.
                            row.visible =
                                Some(read_visible.query_row([row.id], |r| r.get::<_, String>(0))?);
                            if row.later {
                                planned.insert(key);
                            }
                            plan.push(None);
                        }
                    }
                    chunk.push(row);
                }
                Ok((chunk, plan))
            };
            // Writes a computed chunk, in order: the results a later row reuses are kept
            // as they are written.
            let mut write_chunk = |(chunk, plan, computed): Computed<'_>| -> Result<()> {
                for ((row, reused), computed) in chunk.iter().zip(plan).zip(computed) {
                    let (way, lang) = match (reused, computed) {
                        (None, Some((new, changed, way, lang))) => {
                            if row.later && reuse {
                                reusable.insert(
                                    key_of(row),
                                    Reusable {
                                        doc_id: row.id,
                                        has_text: new.is_some(),
                                        way,
                                        lang,
                                    },
                                );
                            }
                            if changed {
                                let write = std::time::Instant::now();
                                match new {
                                    Some(text) => put.execute(params![row.id, text])?,
                                    None => remove.execute([row.id])?,
                                };
                                writing += write.elapsed();
                                done.changed += 1;
                            }
                            (way, lang)
                        }
                        (Some(key), _) => {
                            let earlier = *reusable.get(&key).ok_or_else(|| {
                                anyhow::anyhow!("content pass: a reused result is missing")
                            })?;
                            let write = std::time::Instant::now();
                            let changed = if earlier.has_text {
                                copy.execute(params![row.id, earlier.doc_id])?
                            } else {
                                remove.execute([row.id])?
                            };
                            writing += write.elapsed();
                            if changed > 0 {
                                done.changed += 1;
                            }
                            done.reused += 1;
                            (earlier.way, earlier.lang)
                        }
                        (None, None) => continue,
                    };
                    if row.stored_lang.as_deref() != Some(lang) {
                        let write = std::time::Instant::now();
                        put_lang.execute(params![row.id, lang])?;
                        writing += write.elapsed();
                    }
                    done.documents += 1;
                    match way {
                        ContentWay::Template => done.template += 1,
                        ContentWay::PerPage => done.per_page += 1,
                        ContentWay::Visible => done.visible += 1,
                    }
                    if way != ContentWay::Template && row.id < signals_from {
                        done.without_signals += 1;
                    }
                }
                Ok(())
            };
            // The texts of a chunk's rows that reuse no earlier result, in parallel.
            let compute = |chunk: &[PassRow], plan: &[Option<SameContent<'_>>]| {
                chunk
                    .par_iter()
                    .zip(plan)
                    .map(|(row, reused)| {
                        if reused.is_some() {
                            return None;
                        }
                        let visible = row.visible.as_deref().unwrap_or_default();
                        let site = sites.get(families.site_of(&row.url));
                        let signals = row
                            .signals
                            .as_deref()
                            .map(crate::extract::structure::decode)
                            .unwrap_or_default();
                        let (text, way) =
                            content::content_text_with(visible, &signals, site, rule, stopwords);
                        // The language of the text the detectors read, kept with it.
                        let lang = crate::text::lang::identify(&text);
                        // No row stands for "the visible text".
                        let new = (text != visible).then_some(text);
                        let changed = new != row.stored;
                        Some((new, changed, way, lang))
                    })
                    .collect::<Vec<Option<RowResult>>>()
            };
            // Three stages kept busy at once: this thread reads (and plans) the next chunks
            // and writes the computed ones, in order, while a worker computes the chunk
            // between them on the thread pool. At most CONTENT_IN_FLIGHT chunks are read
            // and not yet written, so memory stays bounded.
            std::thread::scope(|scope| -> Result<()> {
                let (job_tx, job_rx) = crossbeam_channel::unbounded::<Chunk<'_>>();
                let (done_tx, done_rx) = crossbeam_channel::unbounded::<Computed<'_>>();
                let compute = &compute;
                let worker = scope.spawn(move || {
                    for (chunk, plan) in job_rx {
                        let computed = compute(&chunk, &plan);
                        if done_tx.send((chunk, plan, computed)).is_err() {
                            return;
                        }
                    }
                });
                let stopped = || anyhow::anyhow!("content pass: the computing thread stopped");
                let mut in_flight = 0usize;
                loop {
                    let read = std::time::Instant::now();
                    let (chunk, plan) = read_chunk()?;
                    reading += read.elapsed();
                    if chunk.is_empty() {
                        break;
                    }
                    while in_flight >= CONTENT_IN_FLIGHT {
                        let wait = std::time::Instant::now();
                        let computed = done_rx.recv().map_err(|_| stopped())?;
                        waiting += wait.elapsed();
                        write_chunk(computed)?;
                        in_flight -= 1;
                    }
                    job_tx.send((chunk, plan)).map_err(|_| stopped())?;
                    in_flight += 1;
                    while let Ok(computed) = done_rx.try_recv() {
                        write_chunk(computed)?;
                        in_flight -= 1;
                    }
                }
                drop(job_tx);
                loop {
                    let wait = std::time::Instant::now();
                    let Ok(computed) = done_rx.recv() else { break };
                    waiting += wait.elapsed();
                    write_chunk(computed)?;
                }
                worker
                    .join()
                    .map_err(|_| anyhow::anyhow!("content pass: the computing thread panicked"))
            })?;
        }
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('content_rule', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [&rule_json],
        )?;
        let commit = std::time::Instant::now();
        tx.commit()?;
        writing += commit.elapsed();
        done.write_seconds = writing.as_secs_f64();
        done.read_seconds = reading.as_secs_f64();
        done.wait_seconds = waiting.as_secs_f64();
        done.compute_seconds = started.elapsed().as_secs_f64() - done.write_seconds;
        Ok(done)
    }
}
