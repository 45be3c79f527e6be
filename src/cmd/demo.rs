//! `spotcheck demo`: the bundled crawl in `assets/demo/` → a temporary database → ingest,
//! the three detectors, a summary → the review workbench (unless `--no-review` or stdout is
//! not a terminal).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{DbArg, DemoArgs, ReviewArgs};
use crate::cmd::detect::{
    detect_cooper, detect_imatch, detect_spotsigs, CooperSettings, IMatchSettings, SpotSigsSettings,
};
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
    let mut store = Store::open_existing(&db)?;
    print!("{}", crate::cmd::stats::render(&store.stats()?));
    println!("\ndetecting near-duplicates:");
    for report in [
        detect_spotsigs(&mut store, &SpotSigsSettings::default())?,
        detect_imatch(&mut store, &IMatchSettings::default())?,
        detect_cooper(&mut store, &CooperSettings::default())?,
    ] {
        println!("  {}", report.line());
    }
    println!("\nlargest SpotSigs clusters:");
    let run = store.resolve_run("spotsigs", None)?;
    let mut shown = 0;
    store.for_each_run_cluster(run.id, |id, urls| {
        if shown < 4 {
            println!("  cluster {id}: {}", urls.join("  "));
            shown += 1;
        }
        Ok(())
    })?;
    drop(store);
    if a.db.is_some() {
        println!("database kept at {}", db.display());
    }
    if a.no_review || !std::io::stdout().is_terminal() {
        println!(
            "\nnext: spotcheck review --db {} (the demo opens it itself in a terminal)",
            db.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    crate::cmd::review::run(&ReviewArgs {
        db: DbArg { db },
        coder: None,
        blind: false,
        keymap: None,
    })
}
