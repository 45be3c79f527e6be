//! The project database: the only module that uses rusqlite. One SQLite file per project
//! (bundled SQLite, WAL mode), a versioned schema with forward-only migrations, batched
//! writes from a single writer, and paged reads for the commands and the review UI. It
//! persists the review model's types (`crate::model`) and defines none of them.

mod adjudication;
mod decision_log;
mod detections;
mod figures;
mod ingest_writes;
mod label_sets;
mod label_writes;
mod langs;
mod merge;
mod queries;
mod review;
mod review_queue;
mod review_status;
mod samples;
mod schema;

pub use detections::{
    encode_run_sig, ClusterRow, DocText, RunInfo, StoredDocSig, TextKind, BINARY_RUN_SIG,
    NO_MAIN_TEXT, REBUILD_PAIR_INDEXES_FROM,
};
pub use ingest_writes::{
    ContentUpdate, DocumentCopy, NewCapture, NewDocument, PayloadDocs, RevisitResolution,
    SourceState, WriteOp,
};
pub use label_sets::DocBrief;
pub use label_writes::{Appended, LabelJob, PAIR_CHUNK};
pub use merge::MergeOutcome;
pub use queries::{DocListing, ErrorListing, SourceSummary, Stats};
pub use review::{ClusterMember, PairEvidence, ReviewDoc};
pub use review_queue::{EntryPair, PageAt};
pub use samples::{NewSample, SampleInfo};
// The review model's types, defined in `crate::model` and persisted here; re-exported
// under their old paths so callers written against the store keep working.
pub use crate::model::{
    derive_status, Agreement, ClusterReview, DecisionRow, Label, LabelSet, LabelStatus, LogEntry,
    NoiseShown, Progress, QueueFilter, QueueRow, QueueSort, TriageCounts, MERGED_QUEUE,
};
pub use schema::SCHEMA_VERSION;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, OptionalExtension};

/// Page size of a database this build creates (see `Store::configure`). 64 KiB measured
/// about the same on ingest, but every small commit of the review's log would write whole
/// pages four times as large.
const NEW_PAGE_SIZE: u32 = 16384;

/// An open project database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens the database at `path`, creating it if needed, and migrates it to the current
    /// schema. Refuses a database written by a newer spotcheck. Writes the derived labels
    /// of any decision whose log row was committed without them (a review killed while it
    /// was still writing them), so every reader sees complete labels.
    pub fn open(path: &Path) -> Result<Store> {
        let mut store = Self::open_only(path)?;
        store.materialize_pending().with_context(|| {
            format!(
                "{}: cannot write the labels of the last decisions",
                path.display()
            )
        })?;
        Ok(store)
    }

    /// Opens an existing database for a thread of a running review session, which writes
    /// the pending labels itself: unlike [`Store::open`], leaves them to it.
    pub fn open_for_session_thread(path: &Path) -> Result<Store> {
        if !path.exists() {
            bail!("no database at {}", path.display());
        }
        Self::open_only(path)
    }

    fn open_only(path: &Path) -> Result<Store> {
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open database {}", path.display()))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.configure()?;
        schema::migrate(&mut store.conn)
            .with_context(|| format!("cannot prepare database {}", path.display()))?;
        Ok(store)
    }

    /// Opens an existing database; a missing file is an error that says what to do.
    pub fn open_existing(path: &Path) -> Result<Store> {
        if !path.exists() {
            bail!(
                "no database at {}: create one with `spotcheck ingest --db {} PATH...`",
                path.display(),
                path.display()
            );
        }
        Self::open(path)
    }

    /// Opens an existing database for reading only (`query`): nothing is migrated or
    /// written, and a database of another schema version is refused with what to do.
    pub fn open_read_only(path: &Path) -> Result<Store> {
        if !path.is_file() {
            bail!("no database at {}", path.display());
        }
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("cannot open database {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .with_context(|| format!("{} is not a SQLite database", path.display()))?;
        if version as usize != SCHEMA_VERSION {
            bail!(
                "{} has schema version {version}, this spotcheck reads {SCHEMA_VERSION} \
                 read-only: open it once with a command that writes (e.g. `spotcheck stats \
                 --db {}`) to migrate it",
                path.display(),
                path.display()
            );
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    fn configure(&mut self) -> Result<()> {
        let path = self.path.display().to_string();
        self.conn
            .busy_timeout(std::time::Duration::from_secs(30))
            .with_context(|| format!("{path}: cannot set busy timeout"))?;
        // A new database gets 16 KiB pages (SQLite's default is 4 KiB): a page's text
        // (~13 KB a page on a documentation crawl) then mostly fits in one page instead of a
        // chain of overflow pages, and the ingest writes a quarter as many pages to the log
        // and the file (about a third less writer work on a 120 MB WARC; BENCHMARKS.md,
        // issue 16 session 11). Only a new file can take it (an existing one keeps its own).
        let pages: i64 = self
            .conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .with_context(|| format!("{path}: cannot read it as a SQLite database (not one, damaged, or its disk full)"))?;
        if pages == 0 {
            self.conn
                .execute_batch(&format!("PRAGMA page_size = {NEW_PAGE_SIZE}"))
                .with_context(|| format!("{path}: cannot set the page size"))?;
        }
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .with_context(|| format!("{path}: cannot read it as a SQLite database (not one, damaged, or its disk full)"))?;
        if !mode.eq_ignore_ascii_case("wal") {
            bail!("{path}: cannot switch to WAL mode (got {mode})");
        }
        self.conn.execute_batch(
            "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;",
        )?;
        if let Some(n) = kill_at_commit() {
            self.conn.commit_hook(Some(move || {
                kill_if_nth_commit(n);
                false
            }));
        }
        Ok(())
    }

    /// Sets the WAL size (in pages) at which a commit of this connection copies the log
    /// back into the database (SQLite's default: 1000); 0 leaves that to the other
    /// connections. The review session's UI connection leaves it to its label writer, so no
    /// key pays for copying the pages the writer wrote.
    pub fn set_wal_autocheckpoint(&self, pages: u32) -> Result<()> {
        self.conn
            .pragma_update(None, "wal_autocheckpoint", pages)
            .with_context(|| format!("{}: cannot set wal_autocheckpoint", self.path.display()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a parameter or fact in the `meta` table (tool version, derived-data params).
    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?1, ?2)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )?;
        Ok(())
    }

    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    /// Direct access for sibling store modules.
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }
}

/// Fault injection for the kill tests (`tests/reliability/kills.rs`): with
/// `SPOTCHECK_KILL_AT_COMMIT=N` the process aborts inside its N-th commit (counted over
/// all its connections), before SQLite makes it durable, as a SIGKILL at that moment
/// would: no destructor, no rollback, no flush runs. Kill points are chosen by commit
/// count, never by timing. Unset (always, outside those tests): no hook is installed.
const KILL_AT_COMMIT: &str = "SPOTCHECK_KILL_AT_COMMIT";

fn kill_at_commit() -> Option<u64> {
    static AT: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *AT.get_or_init(|| std::env::var(KILL_AT_COMMIT).ok()?.parse().ok())
}

/// Commits this process made, counted while the kill hook is installed.
static COMMITS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many commits this process has made so far, counted only under
/// `SPOTCHECK_KILL_AT_COMMIT` (0 otherwise): an unkilled run with `=0` tells the kill
/// tests how many kill points a piece of work has, so they can sample them.
pub fn commits_counted() -> u64 {
    COMMITS.load(std::sync::atomic::Ordering::SeqCst)
}

fn kill_if_nth_commit(n: u64) {
    if COMMITS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 == n {
        eprintln!("spotcheck: {KILL_AT_COMMIT}={n}: killed inside commit {n}");
        std::process::abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_creates_schema_and_reopen_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("p.db");
        let s = Store::open(&db).unwrap();
        s.set_meta("k", "v1").unwrap();
        s.set_meta("k", "v2").unwrap();
        drop(s);
        let s = Store::open(&db).unwrap();
        assert_eq!(s.meta("k").unwrap().as_deref(), Some("v2"));
        assert_eq!(
            s.meta("schema_version").unwrap(),
            Some(SCHEMA_VERSION.to_string())
        );
    }

    #[test]
    fn a_truncating_checkpoint_empties_the_log_that_passive_ones_beside_the_writer_leave_growing() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("w.db");
        let writer = Store::open(&db).unwrap();
        writer.set_wal_autocheckpoint(0).unwrap();
        let beside = Store::open_for_session_thread(&db).unwrap();
        // A batch written in one transaction, with the other connection's passive
        // checkpoint halfway through it, as the ingest's checkpoint thread runs beside the
        // writer's next transaction.
        let write_a_batch = |round: usize| {
            writer.begin_bulk().unwrap();
            for i in 0..200 {
                if i == 100 {
                    beside.checkpoint_passive().unwrap();
                }
                let value = format!("{round}-{i}-{}", "x".repeat(2000));
                writer.set_meta(&format!("k{round}-{i}"), &value).unwrap();
            }
            writer.commit_bulk().unwrap();
        };
        // The checkpoints copy pages, but the log is never started over.
        let mut sizes = Vec::new();
        for round in 0..4 {
            write_a_batch(round);
            sizes.push(writer.wal_bytes());
        }
        assert!(sizes.windows(2).all(|w| w[1] > w[0]), "{sizes:?}");
        assert!(writer.checkpoint_truncate().unwrap());
        assert_eq!(writer.wal_bytes(), 0);
        // Nothing written was lost, and the next commit starts a small log.
        write_a_batch(4);
        assert!(writer.wal_bytes() < sizes[1], "{}", writer.wal_bytes());
        drop(writer);
        let s = Store::open(&db).unwrap();
        assert!(s.meta("k0-0").unwrap().unwrap().starts_with("0-0-"));
        assert!(s.meta("k4-199").unwrap().unwrap().starts_with("4-199-"));
    }

    #[test]
    fn open_existing_names_the_missing_file() {
        let e = Store::open_existing(Path::new("/nonexistent/x.db"))
            .err()
            .unwrap();
        assert!(e.to_string().contains("/nonexistent/x.db"), "{e}");
    }

    #[test]
    fn a_file_that_is_not_sqlite_is_refused_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("junk.db");
        std::fs::write(&db, b"this is not a database at all, just some text....").unwrap();
        let e = Store::open(&db).err().unwrap();
        assert!(format!("{e:#}").contains("junk.db"), "{e:#}");
    }
}
