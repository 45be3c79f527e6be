//! Schema versions and forward-only migrations. Each migration runs in its own transaction
//! and bumps `PRAGMA user_version`; a database newer than this build is refused rather than
//! touched.

use anyhow::{bail, Result};
use rusqlite::Connection;

/// Migrations in order; migration `i` brings the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // v1: ingest foundation.
    r#"
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    -- One row per input file (a folder contributes one row per page file).
    CREATE TABLE sources (
        id           INTEGER PRIMARY KEY,
        path         TEXT NOT NULL,
        size         INTEGER NOT NULL,
        content_hash TEXT NOT NULL UNIQUE,      -- sha1 hex of the file's bytes
        format       TEXT NOT NULL,             -- warc | arc | jsonl | html | text
        status       TEXT NOT NULL,             -- partial | complete
        params       TEXT NOT NULL,             -- JSON: extraction parameters used
        started_at   TEXT NOT NULL,
        finished_at  TEXT
    );
    -- Records by type per source, written when a source completes.
    CREATE TABLE record_counts (
        source_id   INTEGER NOT NULL REFERENCES sources(id),
        record_type TEXT NOT NULL,
        count       INTEGER NOT NULL,
        PRIMARY KEY (source_id, record_type)
    );
    -- Every response/resource/revisit record (documents or not), for revisit resolution.
    CREATE TABLE captures (
        id             INTEGER PRIMARY KEY,
        source_id      INTEGER NOT NULL REFERENCES sources(id),
        record_offset  INTEGER NOT NULL,
        record_type    TEXT NOT NULL,
        url            TEXT,
        date           TEXT,
        record_id      TEXT,
        payload_digest TEXT,
        refers_to      TEXT,
        refers_to_uri  TEXT,
        refers_to_date TEXT,
        media_type     TEXT,
        http_status    INTEGER,
        document_id    INTEGER REFERENCES documents(id),
        revisit_status TEXT,                    -- for revisits: resolved | not-a-document | unresolved
        UNIQUE (source_id, record_offset)
    );
    CREATE INDEX captures_digest ON captures(payload_digest);
    CREATE INDEX captures_record_id ON captures(record_id);
    CREATE INDEX captures_url ON captures(url, date);
    CREATE TABLE documents (
        id             INTEGER PRIMARY KEY,
        source_id      INTEGER NOT NULL REFERENCES sources(id),
        record_offset  INTEGER NOT NULL,
        record_length  INTEGER NOT NULL,
        compression    TEXT NOT NULL,           -- none | gzip-member | gzip-stream
        record_type    TEXT NOT NULL,
        url            TEXT NOT NULL,
        title          TEXT NOT NULL,
        fetch_time     TEXT,
        content_type   TEXT,
        encoding       TEXT NOT NULL,           -- the character set the bytes were decoded from
        http_status    INTEGER,
        raw_hash       TEXT,                    -- sha1 hex of the decoded payload bytes
        text_hash      TEXT NOT NULL,           -- sha1 hex of visible_text
        visible_text   TEXT NOT NULL,
        main_text      TEXT,
        dup_group      INTEGER,                 -- smallest document id with the same text_hash
        revisit_of     INTEGER REFERENCES documents(id),
        UNIQUE (source_id, record_offset)
    );
    CREATE INDEX documents_text_hash ON documents(text_hash);
    CREATE INDEX documents_url ON documents(url);
    CREATE TABLE ingest_errors (
        id          INTEGER PRIMARY KEY,
        source_id   INTEGER REFERENCES sources(id),
        source_path TEXT NOT NULL,
        offset      INTEGER NOT NULL,
        reason      TEXT NOT NULL,
        UNIQUE (source_path, offset, reason)
    );
    CREATE VIEW dup_groups AS
        SELECT dup_group AS id, count(*) AS size, min(text_hash) AS text_hash
        FROM documents WHERE dup_group IS NOT NULL GROUP BY dup_group;
    "#,
    // v2: detector runs, their pairs, clusters and per-document signatures.
    r#"
    CREATE TABLE runs (
        id          INTEGER PRIMARY KEY,
        method      TEXT NOT NULL,              -- spotsigs | imatch | cooper | andd
        params      TEXT NOT NULL,              -- JSON: every parameter of the run
        started_at  TEXT NOT NULL,
        finished_at TEXT,                       -- NULL while running or after a crash
        summary     TEXT                        -- JSON: counts and timings
    );
    -- Pairs as the method defines them; a < b (document ids).
    CREATE TABLE run_pairs (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        a      INTEGER NOT NULL REFERENCES documents(id),
        b      INTEGER NOT NULL REFERENCES documents(id),
        score  REAL NOT NULL,
        detail TEXT,                            -- method-specific, e.g. "7 of 11 lexicons"
        PRIMARY KEY (run_id, a, b)
    ) WITHOUT ROWID;
    CREATE INDEX run_pairs_b ON run_pairs(run_id, b);
    CREATE TABLE run_clusters (
        run_id     INTEGER NOT NULL REFERENCES runs(id),
        cluster    INTEGER NOT NULL,            -- 1.. within the run, largest first
        size       INTEGER NOT NULL,
        min_score  REAL,
        max_score  REAL,
        bridge_a   INTEGER,                     -- the weakest edge whose removal splits it
        bridge_b   INTEGER,
        bridge_score REAL,
        PRIMARY KEY (run_id, cluster)
    ) WITHOUT ROWID;
    CREATE TABLE run_cluster_members (
        run_id   INTEGER NOT NULL,
        cluster  INTEGER NOT NULL,
        doc_id   INTEGER NOT NULL REFERENCES documents(id),
        PRIMARY KEY (run_id, cluster, doc_id)
    ) WITHOUT ROWID;
    CREATE INDEX run_cluster_members_doc ON run_cluster_members(run_id, doc_id);
    -- The signatures a run actually matched on, one text blob per document.
    CREATE TABLE run_doc_sigs (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        doc_id INTEGER NOT NULL REFERENCES documents(id),
        sigs   TEXT NOT NULL,                   -- JSON value, method-specific
        PRIMARY KEY (run_id, doc_id)
    ) WITHOUT ROWID;
    "#,
    // v3: the review workbench. `decisions` is the append-only log (the truth); `labels`,
    // `pair_labels` and `review_clusters` are derived from it and from the runs, and can be
    // rebuilt at any time. Targets are sorted document ids, never cluster ids, so labels
    // survive a detector rerun.
    r#"
    CREATE TABLE decisions (
        id       INTEGER PRIMARY KEY,
        coder    TEXT NOT NULL,
        time     TEXT NOT NULL,
        action   TEXT NOT NULL,                 -- confirm|split|reject|unsure|tag|untag|note|undo|redo
        target   TEXT NOT NULL,                 -- sorted document ids joined by ','
        payload  TEXT NOT NULL DEFAULT '{}',    -- JSON: {"groups":[[ids]]}, {"tag":T}, {"note":N}
        previous TEXT NOT NULL DEFAULT '{}',    -- JSON: the target's label before this row
        undoes   INTEGER REFERENCES decisions(id) -- undo: the row undone; redo: the undo row redone
    );
    CREATE INDEX decisions_coder ON decisions(coder, id);
    -- Current state per (coder, document set), derived from the active decisions.
    CREATE TABLE labels (
        coder       TEXT NOT NULL,
        target      TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'unreviewed', -- unreviewed|confirmed|split|rejected|unsure
        tags        TEXT NOT NULL DEFAULT '[]',          -- JSON array, sorted
        note        TEXT,
        decision_id INTEGER NOT NULL,
        PRIMARY KEY (coder, target)
    ) WITHOUT ROWID;
    -- Current pair labels per coder (a < b), derived: same | different | unsure.
    CREATE TABLE pair_labels (
        coder       TEXT NOT NULL,
        a           INTEGER NOT NULL,
        b           INTEGER NOT NULL,
        label       TEXT NOT NULL,
        decision_id INTEGER NOT NULL,
        PRIMARY KEY (coder, a, b)
    ) WITHOUT ROWID;
    -- The review queue: one row per cluster of every finished run, with its member key.
    CREATE TABLE review_clusters (
        run_id      INTEGER NOT NULL,
        cluster     INTEGER NOT NULL,
        method      TEXT NOT NULL,
        latest      INTEGER NOT NULL,           -- 1 if the run is the latest finished of its method
        size        INTEGER NOT NULL,
        min_score   REAL,
        max_score   REAL,
        members_key TEXT NOT NULL,
        title       TEXT NOT NULL,
        disagree    INTEGER NOT NULL DEFAULT 0, -- another method splits these members
        PRIMARY KEY (run_id, cluster)
    ) WITHOUT ROWID;
    CREATE INDEX review_clusters_key ON review_clusters(members_key);
    "#,
    // v4: cluster statuses derived from the labels over a cluster's documents and pairs, so a
    // rerun's cluster that adds or drops a member still shows what the coder said about it.
    // Both tables are derived (from `labels`, `pair_labels` and `review_clusters`).
    r#"
    -- Which labeled document sets contain each document.
    CREATE TABLE label_docs (
        coder  TEXT NOT NULL,
        doc_id INTEGER NOT NULL,
        target TEXT NOT NULL,
        PRIMARY KEY (coder, doc_id, target)
    ) WITHOUT ROWID;
    INSERT INTO label_docs(coder, doc_id, target)
        SELECT l.coder, CAST(j.value AS INTEGER), l.target
        FROM labels l, json_each('[' || l.target || ']') j;
    -- Per coder and queue cluster with any label over its pairs or documents (absent:
    -- unreviewed). status: partial (some member pairs labeled) | confirmed (all same) |
    -- rejected (all different) | split (same and different) | unsure (any unsure).
    CREATE TABLE review_status (
        coder   TEXT NOT NULL,
        run_id  INTEGER NOT NULL,
        cluster INTEGER NOT NULL,
        status  TEXT NOT NULL,
        labeled INTEGER NOT NULL,               -- member pairs with a pair label
        pairs   INTEGER NOT NULL,               -- member pairs
        tags    TEXT NOT NULL DEFAULT '[]',     -- of every label sharing a pair with the cluster
        note    TEXT,                           -- the latest such note
        PRIMARY KEY (coder, run_id, cluster)
    ) WITHOUT ROWID;
    -- The queue table again (derived, so dropped and rebuilt): a rowid table, with the
    -- position of each cluster in each queue order (1 = first), so a page of the queue is
    -- read from an index and the next page starts after the last rank of this one. The
    -- rank indexes are made by the queue refresh (after its bulk insert).
    DROP TABLE review_clusters;
    CREATE TABLE review_clusters (
        run_id          INTEGER NOT NULL,
        cluster         INTEGER NOT NULL,
        method          TEXT NOT NULL,
        latest          INTEGER NOT NULL,       -- 1 if the run is the latest finished of its method
        size            INTEGER NOT NULL,
        min_score       REAL,
        max_score       REAL,
        members_key     TEXT NOT NULL,          -- sorted member ids joined by ','
        title           TEXT NOT NULL,
        disagree        INTEGER NOT NULL DEFAULT 0, -- another method splits these members
        rank_size_desc  INTEGER NOT NULL,
        rank_size_asc   INTEGER NOT NULL,
        rank_score_desc INTEGER NOT NULL,
        rank_score_asc  INTEGER NOT NULL,
        PRIMARY KEY (run_id, cluster)
    );
    -- The next review start rebuilds the queue and the statuses.
    DELETE FROM meta WHERE key = 'review_queue_runs';
    "#,
    // v5: a decision is committed as its log row alone; its derived rows (labels, label_docs,
    // pair_labels, review_status) are written after it, in log order, and
    // `meta.labels_through` names the last log row whose derived rows are complete (every
    // older database has them all). The label of a document set is computed from the log
    // rows naming that set, read through this index.
    r#"
    CREATE INDEX decisions_target ON decisions(coder, target, id);
    INSERT OR REPLACE INTO meta(key, value)
        SELECT 'labels_through', coalesce(max(id), 0) FROM decisions;
    "#,
    // v6: the content text the detectors read by default (`extract::content`): written by
    // the ingest post-pass once a site's pages are in. No row: the same as the visible text
    // (or not computed yet: `meta.content_rule` names the rule the stored texts follow, and
    // the next ingest computes them when it differs, as after this migration). A table of
    // its own, not a column of `documents`: rewriting a document row rewrites its long
    // visible text too, which made the pass three times slower. Derived data, rewritten by
    // every pass: no foreign key, so nothing that removes documents has to know about it.
    r#"
    CREATE TABLE content_texts (
        doc_id INTEGER PRIMARY KEY,             -- documents.id
        text   TEXT NOT NULL
    );
    DELETE FROM meta WHERE key = 'content_rule';
    "#,
    // v7: the merged queue. One entry per candidate group built from the latest run of every
    // detector together (`model::entries`): `review_clusters` now holds entries (run_id 0,
    // cluster = entry number) with their detectors, agreement, triaged noise, captures and
    // weakest link; members and merged pairs get tables of their own. All three are derived
    // (dropped and rebuilt); the statuses are recomputed from the labels, which name
    // document sets and are untouched.
    r#"
    DROP TABLE review_clusters;
    CREATE TABLE review_clusters (
        run_id          INTEGER NOT NULL,       -- 0: an entry of the merged queue
        cluster         INTEGER NOT NULL,       -- the entry number
        method          TEXT NOT NULL,          -- the agreement: "2 of 3 detectors", "imatch only"
        latest          INTEGER NOT NULL,
        size            INTEGER NOT NULL,       -- members (one per set of byte-identical captures)
        min_score       REAL,
        max_score       REAL,
        members_key     TEXT NOT NULL,
        title           TEXT NOT NULL,
        disagree        INTEGER NOT NULL DEFAULT 0, -- not every detector found it
        detectors       TEXT NOT NULL DEFAULT '[]', -- JSON: the detectors that found a pair in it
        agreement       INTEGER NOT NULL DEFAULT 0, -- how many
        detectors_total INTEGER NOT NULL DEFAULT 0, -- detectors with a finished run
        noise           TEXT,                   -- the triage rule that keeps it out of the default queue
        captures        INTEGER NOT NULL DEFAULT 0, -- documents its members stand for
        bridge_a        INTEGER,
        bridge_b        INTEGER,
        bridge_score    REAL,
        rank_size_desc  INTEGER NOT NULL,
        rank_size_asc   INTEGER NOT NULL,
        rank_score_desc INTEGER NOT NULL,
        rank_score_asc  INTEGER NOT NULL,
        rank_agreement_desc INTEGER NOT NULL,
        PRIMARY KEY (run_id, cluster)
    );
    CREATE INDEX review_clusters_key ON review_clusters(members_key);
    CREATE TABLE review_entry_members (
        entry    INTEGER NOT NULL,
        doc_id   INTEGER NOT NULL,
        captures INTEGER NOT NULL,              -- byte-identical documents it stands for (≥ 1)
        PRIMARY KEY (entry, doc_id)
    ) WITHOUT ROWID;
    CREATE INDEX review_entry_members_doc ON review_entry_members(doc_id);
    CREATE TABLE review_entry_pairs (
        entry     INTEGER NOT NULL,
        a         INTEGER NOT NULL,
        b         INTEGER NOT NULL,
        score     REAL NOT NULL,                -- the best detector score
        detectors TEXT NOT NULL,                -- JSON: {"method": score}
        PRIMARY KEY (entry, a, b)
    ) WITHOUT ROWID;
    DELETE FROM review_status;
    DELETE FROM meta WHERE key = 'review_queue_runs';
    "#,
    // The language of every document (`text::lang::identify` on its content text: an ISO
    // 639-1 code, or `und`). Written by the ingest's content pass for the texts it computes;
    // a document with no row (one stored before this migration) gets one the next time a
    // command reads the languages (`Store::fill_missing_langs`). Derived data like
    // `content_texts`: no foreign key.
    r#"
    CREATE TABLE document_langs (
        doc_id INTEGER PRIMARY KEY,             -- documents.id
        lang   TEXT NOT NULL
    );
    "#,
    // Main-content extraction became opt-in (`ingest --main`): readers of the main text ask
    // whether any document has one, which this partial index answers without a table scan
    // (it holds only the documents that do).
    r#"
    CREATE INDEX IF NOT EXISTS documents_with_main ON documents(id) WHERE main_text IS NOT NULL;
    "#,
    // Provenance of the decision log rows `spotcheck merge` brought in from coders' copies:
    // the database each row was first written in and its id there. Rows written here have
    // no entry. Part of the log (the truth), never derived or rebuilt.
    r#"
    CREATE TABLE IF NOT EXISTS decision_origins (
        decision_id INTEGER PRIMARY KEY REFERENCES decisions(id),
        origin      TEXT NOT NULL,              -- the copy's path as given to `merge`
        origin_id   INTEGER NOT NULL,           -- the row's id there
        merged_at   TEXT NOT NULL
    );
    "#,
    // Estimation samples (`spotcheck sample`, `model::sample`): the strata with their
    // populations, the drawn pairs in labeling order, and each run's pairs per stratum as
    // they were when the sample was drawn (run_id 0: the pairs of any run), which the
    // estimates weight by. Labels of the pairs are ordinary decisions on two-document sets.
    r#"
    CREATE TABLE IF NOT EXISTS samples (
        id         INTEGER PRIMARY KEY,
        created_at TEXT NOT NULL,
        seed       INTEGER NOT NULL,
        params     TEXT NOT NULL,               -- JSON: size or width, candidate generator, runs
        documents  INTEGER NOT NULL,
        blind      INTEGER NOT NULL DEFAULT 1,  -- 1: coders are not shown the scores
        coder      TEXT                         -- the coder it is queued for (NULL: anyone)
    );
    CREATE TABLE IF NOT EXISTS sample_strata (
        sample_id  INTEGER NOT NULL REFERENCES samples(id),
        stratum    INTEGER NOT NULL,
        name       TEXT NOT NULL,
        population INTEGER NOT NULL,            -- pairs of the collection in the stratum
        drawn      INTEGER NOT NULL,
        PRIMARY KEY (sample_id, stratum)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS sample_pairs (
        sample_id INTEGER NOT NULL REFERENCES samples(id),
        position  INTEGER NOT NULL,             -- labeling order, from 1
        stratum   INTEGER NOT NULL,
        a         INTEGER NOT NULL,
        b         INTEGER NOT NULL,
        score     REAL,                         -- best candidate score (NULL: random stratum)
        PRIMARY KEY (sample_id, position)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS sample_run_counts (
        sample_id INTEGER NOT NULL REFERENCES samples(id),
        run_id    INTEGER NOT NULL,             -- 0: the pairs any run proposed
        stratum   INTEGER NOT NULL,
        pairs     INTEGER NOT NULL,
        PRIMARY KEY (sample_id, run_id, stratum)
    ) WITHOUT ROWID;
    "#,
    // The active-learning queue order (`model::queue::teach_score`): one more rank column
    // of the derived queue table, filled by the next refresh.
    r#"
    ALTER TABLE review_clusters ADD COLUMN rank_active INTEGER NOT NULL DEFAULT 0;
    DELETE FROM meta WHERE key = 'review_queue_runs';
    "#,
    // Adjudication (`store::adjudication`) looks up every coder's label of one pair and
    // joins coders' labels pair by pair: an index by pair, since the key leads with coder.
    r#"
    CREATE INDEX IF NOT EXISTS pair_labels_pair ON pair_labels(a, b, coder);
    "#,
    // `query`'s signature index: each document's signature as the run's method signed it
    // (before collection-wide filtering), so a query signs only the outside documents.
    r#"
    CREATE TABLE IF NOT EXISTS run_signatures (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        doc_id INTEGER NOT NULL REFERENCES documents(id),
        sig    BLOB NOT NULL,                   -- the method's signature, JSON bytes
        PRIMARY KEY (run_id, doc_id)
    ) WITHOUT ROWID;
    "#,
    // The structure of each document's visible-text blocks (`extract::structure`: link
    // share and boilerplate containers, two bytes a non-empty line), taken at ingest where
    // the markup is at hand, for the per-page content text. No row: no block carries a
    // signal, or the document was stored before this table (its content text is then made
    // without them, as before; `block_signals_from` in `meta` is the first document id
    // stored with signals, so the content pass can say how many pages lack them). Derived
    // from the page like `content_texts`: no foreign key.
    r#"
    CREATE TABLE IF NOT EXISTS block_signals (
        doc_id  INTEGER PRIMARY KEY,            -- documents.id
        signals BLOB NOT NULL
    );
    INSERT OR REPLACE INTO meta(key, value)
        SELECT 'block_signals_from', coalesce(max(id), 0) + 1 FROM documents;
    "#,
    // Client-side redirect stubs (`extract::redirect_stub`), decided at ingest where the
    // markup is at hand, for triage's `client-redirect` rule: 1 a stub, 0 not, NULL a
    // document stored before this column (not known: never triaged by that rule; a fresh
    // ingest marks them).
    r#"
    ALTER TABLE documents ADD COLUMN redirect_stub INTEGER;
    "#,
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

pub(super) fn migrate(conn: &mut Connection) -> Result<()> {
    let current: usize =
        conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as usize;
    if current > SCHEMA_VERSION {
        bail!(
            "database schema version {current} is newer than this spotcheck understands \
             ({SCHEMA_VERSION}); use a newer spotcheck"
        );
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(current) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('schema_version', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [(i + 1).to_string()],
        )?;
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('tool_version', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [env!("CARGO_PKG_VERSION")],
        )?;
        tx.commit()?;
    }
    Ok(())
}
