//! `spotcheck stage …`: the stages of detection for more than one machine
//! (`detect::staged`), each reading and writing files so it runs on one shard anywhere:
//! `count` and `sign` per shard database, `stats` and `match` over every shard's files,
//! `import` into a review database.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::detect::staged::{import, staged_method, StagedRun};
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

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let f = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    serde_json::from_reader(BufReader::new(f))
        .with_context(|| format!("{}: not the file this stage expects", path.display()))
}

fn write_json(path: &Path, v: &impl serde::Serialize) -> Result<()> {
    let f = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut w = BufWriter::new(f);
    serde_json::to_writer(&mut w, v)?;
    w.write_all(b"\n")?;
    w.flush()?;
    Ok(())
}

fn stats_of(path: &Option<PathBuf>) -> Result<Option<DocFreqs>> {
    match path {
        Some(p) => read_json::<Option<DocFreqs>>(p),
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
            write_json(out, &counts)?;
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
                if let Some(c) = read_json::<Option<DocFreqs>>(p)? {
                    total.get_or_insert_with(DocFreqs::default).merge(c);
                }
            }
            write_json(out, &total)?;
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
            let f =
                File::create(out).with_context(|| format!("cannot create {}", out.display()))?;
            let mut w = BufWriter::new(f);
            let n = staged_method(method)?.sign(params, dfs.as_ref(), &store, &mut w)?;
            w.flush()?;
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
            let mut inputs = signed.iter().map(|p| -> Result<Box<dyn BufRead>> {
                let f = File::open(p).with_context(|| format!("cannot open {}", p.display()))?;
                Ok(Box::new(BufReader::new(f)))
            });
            let run =
                staged_method(method)?.match_rows(params, dfs.as_ref(), &mut inputs, &scratch)?;
            write_json(out, &run)?;
            eprintln!(
                "match {method}: {} documents, {} pairs, {} clusters; {:.1}s",
                run.documents,
                run.pairs.len(),
                run.clusters.len(),
                run.seconds
            );
        }
        StageConfig::Import { db, run } => {
            let staged: StagedRun = read_json(run)?;
            let mut store = Store::open_existing(db)?;
            let id = import(&mut store, &staged)?;
            // A closed stdout is success (the contract), not a `println!` panic.
            crate::cmd::outln!(
                "imported {} run {id}: {} pairs, {} clusters",
                staged.method,
                staged.pairs.len(),
                staged.clusters.len()
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
