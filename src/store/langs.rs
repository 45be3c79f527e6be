//! The language of every document (`document_langs`: one ISO 639-1 code or `und` per
//! document, from `text::lang::identify` on its content text). The ingest's content pass
//! writes it with the content text; [`Store::fill_missing_langs`] computes it for documents
//! stored before the table existed, so every reader (`docs`, `stats`, the review) sees a
//! language for every document without a new ingest.

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;
use rusqlite::params;

use super::Store;
use crate::text::lang;

/// Documents identified per step of [`Store::fill_missing_langs`].
const LANG_CHUNK: usize = 2048;

/// Meta key: the schema version and documents' fingerprint at which every document had a
/// language (a new document or a migration makes the next call look again).
const LANGS_COMPLETE: &str = "langs_complete";

impl Store {
    /// Identifies the language of every document that has none stored yet (its content
    /// text, or its visible text where the content text is the same), in parallel a chunk at
    /// a time, and stores it. Returns how many were identified: 0 on every call after the
    /// first, at the cost of counting the documents.
    pub fn fill_missing_langs(&mut self) -> Result<u64> {
        let docs = self.documents_fingerprint()?;
        self.fill_missing_langs_for(&docs)
    }

    /// [`Store::fill_missing_langs`] for a listing (`stats`, `docs`, the tables' export):
    /// when the languages cannot be written because the disk is full or the file is read-only,
    /// says so on standard error and lists without them — a listing is how a coder looks at
    /// a database an ingest left on a full disk, and must still work there.
    pub fn fill_missing_langs_or_warn(&mut self) -> Result<()> {
        match self.fill_missing_langs() {
            Ok(_) => Ok(()),
            Err(e) if is_out_of_room(&e) => {
                eprintln!(
                    "spotcheck: warning: {}: cannot store the languages of documents without \
                     one ({e:#}); listed without them",
                    self.path().display()
                );
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// [`Store::fill_missing_langs`] with the documents' fingerprint the caller read
    /// ([`Store::documents_fingerprint`]): when every document had a language at that
    /// fingerprint (and schema version) nothing is read — the review's start, which reads
    /// the fingerprint for its queue anyway, saves the search for documents without a
    /// language (230 ms at a million pages).
    pub fn fill_missing_langs_for(&mut self, docs: &str) -> Result<u64> {
        use rayon::prelude::*;
        let complete = format!("{}|{docs}", super::SCHEMA_VERSION);
        if self.meta(LANGS_COMPLETE)?.as_deref() == Some(complete.as_str()) {
            return Ok(0);
        }
        let missing: i64 = self.conn().query_row(
            "SELECT count(*) FROM documents d
             WHERE NOT EXISTS (SELECT 1 FROM document_langs l WHERE l.doc_id = d.id)",
            [],
            |r| r.get(0),
        )?;
        if missing == 0 {
            // Every document read for `docs` (or added since) has a language.
            self.set_meta(LANGS_COMPLETE, &complete)?;
            return Ok(0);
        }
        let tx = self.conn.savepoint()?;
        let mut done = 0u64;
        {
            let mut put = tx.prepare_cached(
                "INSERT OR REPLACE INTO document_langs(doc_id, lang) VALUES (?1, ?2)",
            )?;
            let mut st = tx.prepare(
                "SELECT d.id, coalesce(c.text, d.visible_text)
                 FROM documents d LEFT JOIN content_texts c ON c.doc_id = d.id
                 WHERE NOT EXISTS (SELECT 1 FROM document_langs l WHERE l.doc_id = d.id)
                 ORDER BY d.id",
            )?;
            let mut rows = st.query([])?;
            let mut chunk: Vec<(i64, String)> = Vec::with_capacity(LANG_CHUNK);
            let mut flush = |chunk: &mut Vec<(i64, String)>| -> Result<()> {
                let found: Vec<(i64, &'static str)> = chunk
                    .par_iter()
                    .map(|(id, text)| (*id, lang::identify(text)))
                    .collect();
                for (id, code) in found {
                    put.execute(params![id, code])?;
                    done += 1;
                }
                chunk.clear();
                Ok(())
            };
            while let Some(r) = rows.next()? {
                chunk.push((r.get(0)?, r.get(1)?));
                if chunk.len() >= LANG_CHUNK {
                    flush(&mut chunk)?;
                }
            }
            flush(&mut chunk)?;
        }
        tx.execute(
            "INSERT INTO meta(key, value) VALUES (?1, ?2)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![LANGS_COMPLETE, complete],
        )?;
        tx.commit()?;
        Ok(done)
    }

    /// The stored language of one document (`None`: not identified yet).
    pub fn doc_lang(&self, doc_id: i64) -> Result<Option<String>> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn()
            .query_row(
                "SELECT lang FROM document_langs WHERE doc_id = ?1",
                [doc_id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Every document's stored language, by document id.
    pub fn doc_langs(&self) -> Result<HashMap<i64, String>> {
        let mut st = self
            .conn()
            .prepare("SELECT doc_id, lang FROM document_langs")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The language editions the stored pages' paths name (`extract::editions`): one scan of
    /// the URLs (most have no language tag and are dropped at once), then the identified
    /// languages of the tagged pages.
    pub fn language_editions(&self) -> Result<crate::extract::editions::Editions> {
        let mut tagged: Vec<(i64, String)> = Vec::new();
        {
            let mut st = self.conn().prepare("SELECT id, url FROM documents")?;
            let mut rows = st.query([])?;
            while let Some(row) = rows.next()? {
                if let rusqlite::types::ValueRef::Text(url) = row.get_ref(1)? {
                    let url = String::from_utf8_lossy(url);
                    if !crate::extract::editions::language_tags(&url).is_empty() {
                        tagged.push((row.get(0)?, url.into_owned()));
                    }
                }
            }
        }
        let mut builder = crate::extract::editions::EditionsBuilder::default();
        if tagged.is_empty() {
            return Ok(builder.finish());
        }
        let wanted: rustc_hash::FxHashSet<i64> = tagged.iter().map(|(id, _)| *id).collect();
        let mut langs: rustc_hash::FxHashMap<i64, String> = rustc_hash::FxHashMap::default();
        self.for_each_doc_lang(&wanted, |id, code| {
            langs.insert(id, code.to_string());
        })?;
        for (id, url) in &tagged {
            builder.add(*id, url, langs.get(id).map(String::as_str));
        }
        Ok(builder.finish())
    }

    /// Calls `f` with the stored language of every document in `wanted` (by document id),
    /// one scan of `document_langs` (a million rows cost under a second; a query per
    /// document would cost more when most documents are wanted).
    pub fn for_each_doc_lang(
        &self,
        wanted: &rustc_hash::FxHashSet<i64>,
        mut f: impl FnMut(i64, &str),
    ) -> Result<()> {
        let mut st = self
            .conn()
            .prepare("SELECT doc_id, lang FROM document_langs")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            if wanted.contains(&id) {
                f(id, r.get_ref(1)?.as_str()?);
            }
        }
        Ok(())
    }

    /// The text each document's language was identified on (its content text, or its
    /// visible text where it has none), for the documents `ids`, in that order (a document
    /// that is not stored is left out).
    pub fn language_texts(&self, ids: &[i64]) -> Result<Vec<(i64, String)>> {
        use rusqlite::OptionalExtension;
        let mut st = self.conn().prepare_cached(
            "SELECT coalesce(c.text, d.visible_text)
             FROM documents d LEFT JOIN content_texts c ON c.doc_id = d.id WHERE d.id = ?1",
        )?;
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            if let Some(text) = st.query_row([id], |r| r.get(0)).optional()? {
                out.push((id, text));
            }
        }
        Ok(out)
    }

    /// How many documents are in each language (documents not identified yet are not
    /// counted: call [`Store::fill_missing_langs`] first).
    pub fn lang_counts(&self) -> Result<BTreeMap<String, u64>> {
        let mut st = self.conn().prepare(
            "SELECT l.lang, count(*) FROM document_langs l
             JOIN documents d ON d.id = l.doc_id GROUP BY l.lang",
        )?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// Whether `e` is SQLite refusing a write for want of room or permission (a full disk, a
/// read-only file), rather than a fault of the database itself.
fn is_out_of_room(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<rusqlite::Error>(),
            Some(rusqlite::Error::SqliteFailure(f, _))
                if matches!(f.code, rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::ReadOnly)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_looked_for_again_only_when_documents_are_added() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("l.db")).unwrap();
        let text = "the harbour bridge opened to traffic on a windy morning in march";
        let a = s
            .insert_test_document("http://a.example/", "a", text, None)
            .unwrap();
        assert_eq!(s.fill_missing_langs().unwrap(), 1);
        assert_eq!(s.doc_lang(a).unwrap().as_deref(), Some("en"));
        // Complete at this fingerprint: the next call reads the marker only.
        let docs = s.documents_fingerprint().unwrap();
        assert_eq!(
            s.meta(LANGS_COMPLETE).unwrap(),
            Some(format!("{}|{docs}", crate::store::SCHEMA_VERSION))
        );
        assert_eq!(s.fill_missing_langs_for(&docs).unwrap(), 0);
        // A new document changes the fingerprint: it gets its language.
        let b = s
            .insert_test_document("http://b.example/", "b", "der hafen und die brücke", None)
            .unwrap();
        assert_eq!(s.fill_missing_langs().unwrap(), 1);
        assert!(s.doc_lang(b).unwrap().is_some());
        assert_eq!(s.fill_missing_langs().unwrap(), 0);
    }
}
