//! `spotcheck demo`: the bundled crawl in `assets/demo/` → a temporary database → the
//! pipeline as far as it exists.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::DemoArgs;
use crate::cmd::ingest::{ingest_paths, IngestOptions};
use crate::store::Store;

/// Where the bundled demo crawl lives (inside the source tree).
pub fn demo_crawl_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join("demo")
}

pub fn run(a: &DemoArgs) -> Result<ExitCode> {
    let tmp = tempfile::tempdir()?;
    let db = a.db.clone().unwrap_or_else(|| tmp.path().join("demo.db"));
    println!(
        "spotcheck demo: ingesting the bundled crawl {}",
        demo_crawl_dir().display()
    );
    let summary = ingest_paths(&db, &[demo_crawl_dir()], &IngestOptions::default())?;
    println!("{}", summary.line());
    let store = Store::open_existing(&db)?;
    print!("{}", crate::cmd::stats::render(&store.stats()?));
    if a.db.is_some() {
        println!("database kept at {}", db.display());
    }
    Ok(ExitCode::SUCCESS)
}
