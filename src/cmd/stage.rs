//! `spotcheck stage …`: the stages of detection for more than one machine
//! (`detect::staged`), each reading and writing files so it runs on one shard anywhere:
//! `count` and `sign` per shard database, `stats` and `match` over every shard's files,
//! `import` into a review database. The files between
//! stages are Parquet (`detect::staged` has their columns).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::Value;

use crate::detect::staged::{
    import, read_counts, read_run, staged_method, write_counts, write_run,
};
use crate::sig::lexicon::DocFreqs;
use crate::store::Store;

/// One stage to run.
#[derive(Debug, Clone)]
pub enum StageConfig {
    Count {
        db: PathBuf,
        method: String,
        params: Value,
        out: PathBuf,
    },
    Stats {
        counts: Vec<PathBuf>,
        out: PathBuf,
    },
    Sign {
        db: PathBuf,
        method: String,
        params: Value,
        stats: Option<PathBuf>,
        out: PathBuf,
    },
    Match {
        method: String,
        params: Value,
        stats: Option<PathBuf>,
        signed: Vec<PathBuf>,
        out: PathBuf,
    },
    Import {
        db: PathBuf,
        run: PathBuf,
    },
}

fn stats_of(path: &Option<PathBuf>) -> Result<Option<DocFreqs>> {
    match path {
        Some(p) => read_counts(p, "stats"),
        None => Ok(None),
    }
}

pub fn run(c: &StageConfig) -> Result<ExitCode> {
    match c {
        StageConfig::Count {
            db,
            method,
            params,
            out,
        } => {
            let store = Store::open_read_only(db)?;
            let counts = staged_method(method)?.count(params, &store)?;
            write_counts(out, "counts", counts.as_ref())?;
            eprintln!(
                "count {}: {} documents, {} terms",
                db.display(),
                counts.as_ref().map_or(0, |c| c.n_docs),
                counts.as_ref().map_or(0, |c| c.df.len())
            );
        }
        StageConfig::Stats { counts, out } => {
            let mut total: Option<DocFreqs> = None;
            for p in counts {
                if let Some(c) = read_counts(p, "counts")? {
                    total.get_or_insert_with(DocFreqs::default).merge(c);
                }
            }
            write_counts(out, "stats", total.as_ref())?;
            eprintln!(
                "stats: {} documents, {} terms from {} shards",
                total.as_ref().map_or(0, |c| c.n_docs),
                total.as_ref().map_or(0, |c| c.df.len()),
                counts.len()
            );
        }
        StageConfig::Sign {
            db,
            method,
            params,
            stats,
            out,
        } => {
            let store = Store::open_read_only(db)?;
            let dfs = stats_of(stats)?;
            let n = staged_method(method)?.sign(params, dfs.as_ref(), &store, out)?;
            eprintln!("sign {}: {n} documents", db.display());
        }
        StageConfig::Match {
            method,
            params,
            stats,
            signed,
            out,
        } => {
            let dfs = stats_of(stats)?;
            let scratch_dir = tempfile::tempdir()?;
            let scratch = Store::open(&scratch_dir.path().join("scratch.db"))?;
            let run = staged_method(method)?.match_rows(params, dfs.as_ref(), signed, &scratch)?;
            write_run(out, &run)?;
            eprintln!(
                "match {method}: {} documents, {} pairs, {} clusters; {:.1}s",
                run.documents,
                run.pairs.len(),
                run.clusters.as_ref().map_or(0, Vec::len),
                run.seconds
            );
        }
        StageConfig::Import { db, run } => {
            let staged = read_run(run)?;
            let mut store = Store::open_existing(db)?;
            let (id, clusters) = import(&mut store, &staged)?;
            // A closed stdout is success (the contract), not a `println!` panic.
            crate::cmd::outln!(
                "imported {} run {id}: {} pairs, {clusters} clusters",
                staged.method,
                staged.pairs.len(),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
