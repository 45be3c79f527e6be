//! Read-only queries behind `stats`, `docs` and `errors`, streamed row by row so a listing
//! of a million documents never sits in memory.

use std::collections::BTreeMap;

use anyhow::Result;
use rusqlite::OptionalExtension;
use serde::Serialize;

use super::Store;

/// The numbers `spotcheck stats` prints.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Stats {
    pub sources: u64,
    pub sources_partial: u64,
    pub records_by_type: BTreeMap<String, u64>,
    pub documents: u64,
    /// Groups of two or more documents with identical visible text.
    pub exact_duplicate_groups: u64,
    /// Documents that are not the first of their exact-duplicate group.
    pub exact_duplicates: u64,
    pub revisits_resolved: u64,
    pub revisits_unresolved: u64,
    pub errors: u64,
    pub errors_by_reason: BTreeMap<String, u64>,
    /// Documents per identified language (`text::lang`: ISO 639-1, `und` for unknown).
    pub languages: BTreeMap<String, u64>,
}

/// One line of `spotcheck docs`.
#[derive(Debug, Clone, Serialize)]
pub struct DocListing {
    pub id: i64,
    pub url: String,
    pub title: String,
    pub chars: u64,
    pub dup_group: Option<i64>,
    pub source: String,
    /// The capture date, ISO 8601 UTC (`2016-03-01T12:34:56Z`), when the input gave one.
    pub fetch_time: Option<String>,
    /// The HTTP status of the capture (None for files and JSONL).
    pub http_status: Option<i64>,
    /// The identified language of its content text (`und`: unknown; None: not identified
    /// yet, see `Store::fill_missing_langs`).
    pub lang: Option<String>,
}

/// One line of `spotcheck errors`.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorListing {
    pub source: String,
    pub offset: u64,
    pub reason: String,
}

/// The part of an error reason before the first `:`, used to group errors by kind.
fn reason_kind(reason: &str) -> &str {
    reason.split(':').next().unwrap_or(reason).trim()
}

impl Store {
    /// How many documents the database holds.
    pub fn stats_documents(&self) -> Result<u64> {
        Ok(self
            .conn()
            .query_row("SELECT count(*) FROM documents", [], |r| r.get::<_, i64>(0))?
            as u64)
    }

    /// Documents whose visible text equals an earlier document's.
    pub fn exact_duplicate_count(&self) -> Result<u64> {
        Ok(self.conn().query_row(
            "SELECT count(*) - count(DISTINCT text_hash) FROM documents",
            [],
            |r| r.get::<_, i64>(0),
        )? as u64)
    }

    pub fn stats(&self) -> Result<Stats> {
        let c = self.conn();
        let one =
            |sql: &str| -> Result<u64> { Ok(c.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
        let mut s = Stats {
            sources: one("SELECT count(*) FROM sources")?,
            sources_partial: one("SELECT count(*) FROM sources WHERE status != 'complete'")?,
            documents: one("SELECT count(*) FROM documents")?,
            exact_duplicate_groups: one(
                "SELECT count(*) FROM (SELECT 1 FROM documents GROUP BY text_hash HAVING count(*) > 1)",
            )?,
            exact_duplicates: self.exact_duplicate_count()?,
            revisits_resolved: one(
                "SELECT count(*) FROM captures WHERE record_type='revisit' AND revisit_status='resolved'",
            )?,
            revisits_unresolved: one(
                "SELECT count(*) FROM captures WHERE record_type='revisit' AND revisit_status='unresolved'",
            )?,
            errors: one("SELECT count(*) FROM ingest_errors")?,
            ..Stats::default()
        };
        let mut st = c.prepare(
            "SELECT record_type, sum(count) FROM record_counts GROUP BY record_type ORDER BY 1",
        )?;
        for row in st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
            let (t, n) = row?;
            s.records_by_type.insert(t, n as u64);
        }
        let mut st = c.prepare("SELECT reason FROM ingest_errors")?;
        for row in st.query_map([], |r| r.get::<_, String>(0))? {
            *s.errors_by_reason
                .entry(reason_kind(&row?).to_string())
                .or_default() += 1;
        }
        s.languages = self.lang_counts()?;
        Ok(s)
    }

    /// Calls `f` for every document in id order.
    pub fn for_each_document(&self, mut f: impl FnMut(DocListing) -> Result<()>) -> Result<()> {
        let mut st = self.conn().prepare(
            "SELECT d.id, d.url, d.title, length(d.visible_text), d.dup_group, s.path,
               d.http_status, l.lang, d.fetch_time
             FROM documents d JOIN sources s ON s.id = d.source_id
               LEFT JOIN document_langs l ON l.doc_id = d.id ORDER BY d.id",
        )?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            f(DocListing {
                id: r.get(0)?,
                url: r.get(1)?,
                title: r.get(2)?,
                chars: r.get::<_, i64>(3)? as u64,
                dup_group: r.get(4)?,
                source: r.get(5)?,
                http_status: r.get(6)?,
                lang: r.get(7)?,
                fetch_time: r.get(8)?,
            })?;
        }
        Ok(())
    }

    /// The capture dates (`documents.fetch_time`, ISO 8601 UTC, so they sort as text) of
    /// documents `ids`; documents without one are left out. The one accessor for capture
    /// dates: listings, exports, replay links and the group view read them here.
    pub fn capture_dates(&self, ids: &[i64]) -> Result<std::collections::HashMap<i64, String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT fetch_time FROM documents WHERE id = ?1")?;
        let mut out = std::collections::HashMap::new();
        for &id in ids {
            let date: Option<Option<String>> = st.query_row([id], |r| r.get(0)).optional()?;
            if let Some(Some(d)) = date {
                out.insert(id, d);
            }
        }
        Ok(out)
    }

    /// Every coder's pair labels in force: (coder, a, b, label), a < b as stored.
    pub fn all_pair_labels(&self) -> Result<Vec<(String, i64, i64, String)>> {
        let mut st = self
            .conn()
            .prepare("SELECT coder, a, b, label FROM pair_labels ORDER BY a, b, coder")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Calls `f` for every stored ingest error, by source and offset.
    pub fn for_each_error(&self, mut f: impl FnMut(ErrorListing) -> Result<()>) -> Result<()> {
        let mut st = self.conn().prepare(
            "SELECT source_path, offset, reason FROM ingest_errors ORDER BY source_path, offset, id",
        )?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            f(ErrorListing {
                source: r.get(0)?,
                offset: r.get::<_, i64>(1)? as u64,
                reason: r.get(2)?,
            })?;
        }
        Ok(())
    }
}

/// Per-file numbers, for `stats --sources` and for checking an ingest against a manifest.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct SourceSummary {
    pub path: String,
    pub format: String,
    pub status: String,
    pub records_by_type: BTreeMap<String, u64>,
    pub documents: u64,
    /// Documents from HTTP responses (WARC `response` or ARC records) with an HTML type.
    pub html_responses: u64,
    pub distinct_html_urls: u64,
    pub errors: u64,
}

impl Store {
    /// One summary per source, in ingest order.
    pub fn source_summaries(&self) -> Result<Vec<SourceSummary>> {
        let c = self.conn();
        let mut st = c.prepare(
            "SELECT s.id, s.path, s.format, s.status,
               (SELECT count(*) FROM documents d WHERE d.source_id = s.id),
               (SELECT count(*) FROM documents d WHERE d.source_id = s.id
                  AND d.record_type IN ('response', 'arc') AND d.content_type LIKE '%html%'),
               (SELECT count(DISTINCT url) FROM documents d WHERE d.source_id = s.id
                  AND d.record_type IN ('response', 'arc') AND d.content_type LIKE '%html%'),
               (SELECT count(*) FROM ingest_errors e WHERE e.source_id = s.id)
             FROM sources s ORDER BY s.id",
        )?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                SourceSummary {
                    path: r.get(1)?,
                    format: r.get(2)?,
                    status: r.get(3)?,
                    documents: r.get::<_, i64>(4)? as u64,
                    html_responses: r.get::<_, i64>(5)? as u64,
                    distinct_html_urls: r.get::<_, i64>(6)? as u64,
                    errors: r.get::<_, i64>(7)? as u64,
                    ..SourceSummary::default()
                },
            ))
        })?;
        let mut out = Vec::new();
        let mut counts = c.prepare(
            "SELECT record_type, count FROM record_counts WHERE source_id = ?1 ORDER BY 1",
        )?;
        for row in rows {
            let (id, mut s) = row?;
            for r in
                counts.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
            {
                let (t, n) = r?;
                s.records_by_type.insert(t, n as u64);
            }
            out.push(s);
        }
        Ok(out)
    }
}
