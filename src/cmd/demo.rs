//! `spotcheck demo`: the bundled crawl in `assets/demo/` → a temporary database → ingest,
//! the three detectors, a summary → the bundled labels recorded as a coder's decisions and
//! the detectors scored against them → the review workbench (unless `--no-review` or stdout
//! is not a terminal).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::cmd::eval::{evaluate_runs, load_gold, read_gold_file, write_table};
use crate::cmd::ingest::{ingest_paths, IngestOptions};
use crate::cmd::review::ReviewConfig;
use crate::detect::DetectConfig;
use crate::review::oracle::{Oracle, OracleOptions};
use crate::store::Store;

/// The coder the bundled labels are recorded under.
pub const DEMO_CODER: &str = "demo";

/// Where the bundled demo crawl lives (inside the source tree).
pub fn demo_crawl_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join("demo")
}

/// Where the demo keeps its database and whether it ends in the review.
#[derive(Debug, Clone, Default)]
pub struct DemoConfig {
    /// Keep the database here instead of a temporary file.
    pub db: Option<PathBuf>,
    pub no_review: bool,
}

pub fn run(a: &DemoConfig) -> Result<ExitCode> {
    let tmp = tempfile::tempdir()?;
    let db = a.db.clone().unwrap_or_else(|| tmp.path().join("demo.db"));
    crate::cmd::outln!(
        "spotcheck demo: ingesting the bundled crawl {}",
        demo_crawl_dir().display()
    )?;
    let summary = ingest_paths(&db, &[demo_crawl_dir()], &IngestOptions::default())?;
    crate::cmd::outln!("{}", summary.line())?;
    let mut store = Store::open_existing(&db)?;
    crate::cmd::out!("{}", crate::cmd::stats::render(&store.stats()?))?;
    crate::cmd::outln!("\ndetecting near-duplicates:")?;
    let shared = crate::detect::Shared::default();
    for planned in DetectConfig::defaults().runs() {
        let report = planned.run(&mut store, &shared, &|_| {})?;
        crate::cmd::outln!("  {}", report.line())?;
    }
    crate::cmd::outln!("\nlargest SpotSigs clusters:")?;
    let run = store.resolve_run("spotsigs", None)?;
    let mut shown = 0;
    store.for_each_run_cluster(run.id, |id, urls| {
        if shown < 4 {
            crate::cmd::outln!(
                "  cluster {id}: {}",
                crate::review::sanitize_line(&urls.join("  "))
            )?;
            shown += 1;
        }
        Ok(())
    })?;
    apply_demo_labels(&mut store)?;
    drop(store);
    if a.db.is_some() {
        crate::cmd::outln!("database kept at {}", db.display())?;
    }
    if a.no_review || !std::io::stdout().is_terminal() {
        crate::cmd::outln!(
            "\nnext: spotcheck review --db {} (the demo opens it itself in a terminal)",
            db.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    crate::cmd::review::run(&ReviewConfig {
        db,
        coder: None,
        blind: false,
        keymap: None,
        order: crate::model::QueueSort::default(),
        auto_advance: true,
        replay_url: None,
    })
}

/// Records `assets/demo/labels.tsv` as decisions of the coder "demo" through the scripted
/// coder (the gold clusters confirmed, then every proposed cluster the labels cover
/// confirmed, split or rejected), and prints the detectors' scores against those labels.
fn apply_demo_labels(store: &mut Store) -> Result<()> {
    let path = demo_crawl_dir().join("labels.tsv");
    let rows = read_gold_file(&path)?;
    let mut oracle = Oracle::new(store, &rows, DEMO_CODER)?;
    let opts = OracleOptions::default();
    let gold = oracle.confirm_gold(store, &opts)?;
    let queue = oracle.label_queue(store, &opts)?;
    crate::cmd::outln!(
        "\nlabels: {} recorded as decisions of coder \"{DEMO_CODER}\": {} gold clusters \
         confirmed; of the proposed clusters {} confirmed ({} more were gold clusters \
         already), {} split, {} rejected, {} not covered by the labels; {} documents labeled",
        path.display(),
        gold.confirmed,
        queue.confirmed,
        queue.skipped_labeled,
        queue.split,
        queue.rejected,
        queue.skipped_unknown,
        oracle.labeled_documents().len()
    )?;
    let loaded = load_gold(store, std::path::Path::new("labels"), Some(DEMO_CODER))?;
    let evals = evaluate_runs(store, &loaded.gold)?;
    crate::cmd::outln!(
        "\nhow the detectors do against these labels (spotcheck eval --gold labels):\n{}",
        loaded.description
    )?;
    let mut out = std::io::stdout().lock();
    write_table(&mut out, &evals)?;
    Ok(())
}
