//! Estimation samples on disk (`model::sample`): a sample's strata, its pairs in labeling
//! order and each run's pairs per stratum, written in one transaction, and read back for
//! the labeling queue and for `eval --sample`.

use anyhow::{bail, Result};
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::Store;
use crate::model::sample::{SamplePair, Stratum};

/// A stored sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleInfo {
    pub id: i64,
    pub created_at: String,
    pub seed: u64,
    pub params: serde_json::Value,
    pub documents: u64,
    pub blind: bool,
    pub coder: Option<String>,
}

/// A sample to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSample<'a> {
    pub seed: u64,
    pub params: serde_json::Value,
    pub documents: u64,
    pub blind: bool,
    pub coder: Option<&'a str>,
    pub strata: &'a [Stratum],
    pub pairs: &'a [SamplePair],
    /// (run id, pairs per stratum); run id 0: the pairs of any run.
    pub run_counts: &'a [(i64, Vec<u64>)],
}

fn info(r: &rusqlite::Row) -> rusqlite::Result<SampleInfo> {
    Ok(SampleInfo {
        id: r.get(0)?,
        created_at: r.get(1)?,
        seed: r.get::<_, i64>(2)? as u64,
        params: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or_default(),
        documents: r.get::<_, i64>(4)? as u64,
        blind: r.get::<_, i64>(5)? != 0,
        coder: r.get(6)?,
    })
}

impl Store {
    /// Stores a drawn sample; returns its id.
    pub fn create_sample(&mut self, s: &NewSample) -> Result<i64> {
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO samples(created_at, seed, params, documents, blind, coder)
             VALUES (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?1, ?2, ?3, ?4, ?5)",
            params![
                s.seed as i64,
                s.params.to_string(),
                s.documents as i64,
                s.blind,
                s.coder
            ],
        )?;
        let id = tx.last_insert_rowid();
        {
            let mut st = tx.prepare(
                "INSERT INTO sample_strata(sample_id, stratum, name, population, drawn)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for h in s.strata {
                st.execute(params![
                    id,
                    h.index as i64,
                    h.name,
                    h.population as i64,
                    h.drawn as i64
                ])?;
            }
            let mut st = tx.prepare(
                "INSERT INTO sample_pairs(sample_id, position, stratum, a, b, score)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (i, p) in s.pairs.iter().enumerate() {
                st.execute(params![
                    id,
                    i as i64 + 1,
                    p.stratum as i64,
                    p.a,
                    p.b,
                    p.score
                ])?;
            }
            let mut st = tx.prepare(
                "INSERT INTO sample_run_counts(sample_id, run_id, stratum, pairs)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (run, counts) in s.run_counts {
                for (h, &n) in counts.iter().enumerate() {
                    st.execute(params![id, run, h as i64, n as i64])?;
                }
            }
        }
        tx.commit()?;
        Ok(id)
    }

    /// The newest sample, if any.
    pub fn latest_sample(&self) -> Result<Option<SampleInfo>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, created_at, seed, params, documents, blind, coder FROM samples
                 ORDER BY id DESC LIMIT 1",
                [],
                info,
            )
            .optional()?)
    }

    /// The sample with this id; an unknown id is an error naming the database.
    pub fn sample(&self, id: i64) -> Result<SampleInfo> {
        match self
            .conn()
            .query_row(
                "SELECT id, created_at, seed, params, documents, blind, coder FROM samples
                 WHERE id = ?1",
                [id],
                info,
            )
            .optional()?
        {
            Some(s) => Ok(s),
            None => bail!("no sample {id} in {}", self.path().display()),
        }
    }

    /// A sample's strata, in stratum order.
    pub fn sample_strata(&self, id: i64) -> Result<Vec<Stratum>> {
        let mut st = self.conn().prepare(
            "SELECT stratum, name, population, drawn FROM sample_strata WHERE sample_id = ?1
             ORDER BY stratum",
        )?;
        let rows = st.query_map([id], |r| {
            Ok(Stratum {
                index: r.get::<_, i64>(0)? as usize,
                name: r.get(1)?,
                population: r.get::<_, i64>(2)? as u64,
                drawn: r.get::<_, i64>(3)? as u64,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// A sample's pairs in labeling order.
    pub fn sample_pairs(&self, id: i64) -> Result<Vec<SamplePair>> {
        let mut st = self.conn().prepare(
            "SELECT a, b, stratum, score FROM sample_pairs WHERE sample_id = ?1 ORDER BY position",
        )?;
        let rows = st.query_map([id], |r| {
            Ok(SamplePair {
                a: r.get(0)?,
                b: r.get(1)?,
                stratum: r.get::<_, i64>(2)? as usize,
                score: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Each run's pairs per stratum as they were when the sample was drawn (run 0: any run),
    /// by run id.
    pub fn sample_run_counts(&self, id: i64) -> Result<Vec<(i64, Vec<u64>)>> {
        let mut st = self.conn().prepare(
            "SELECT run_id, stratum, pairs FROM sample_run_counts WHERE sample_id = ?1
             ORDER BY run_id, stratum",
        )?;
        let mut out: Vec<(i64, Vec<u64>)> = Vec::new();
        for row in st.query_map([id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)? as usize,
                r.get::<_, i64>(2)? as u64,
            ))
        })? {
            let (run, h, n) = row?;
            if out.last().map(|l| l.0) != Some(run) {
                out.push((run, Vec::new()));
            }
            if let Some(last) = out.last_mut() {
                if last.1.len() <= h {
                    last.1.resize(h + 1, 0);
                }
                last.1[h] = n;
            }
        }
        Ok(out)
    }

    /// Every document id, ascending.
    pub fn document_ids(&self) -> Result<Vec<i64>> {
        let mut st = self
            .conn()
            .prepare("SELECT id FROM documents ORDER BY id")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
