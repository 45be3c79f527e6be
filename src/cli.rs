//! The command line: clap definitions of the contract in DESIGN.md §4, and the mapping of
//! results to exit codes (0 success, 1 failure, 2 usage or not implemented). A broken pipe
//! (`spotcheck docs | head`) is success, as in ripgrep.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::cmd;

#[derive(Debug, Parser)]
#[command(
    name = "spotcheck",
    version,
    about = "Near-duplicate review of web crawls: ingest, detect (SpotSigs, I-Match), review, export",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Jsonl,
    Tsv,
}

#[derive(Debug, Args)]
pub struct DbArg {
    /// The project's SQLite database (created by `ingest`).
    #[arg(long, value_name = "DB")]
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// WARC/ARC files (.gz or not), folders of .html/.htm/.txt pages, JSONL(.gz) files.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Skip main-content extraction (visible text only; much faster).
    #[arg(long)]
    pub no_main: bool,
    /// Pages larger than this many bytes (after decompression) are stored as errors.
    #[arg(long, default_value_t = crate::extract::DEFAULT_MAX_PAGE_BYTES, value_name = "BYTES")]
    pub max_page_bytes: usize,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Never draw a progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also list every source file with its records, documents and errors.
    #[arg(long)]
    pub sources: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long, value_enum, default_value_t = ListFormat::Jsonl)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the demo database at this path instead of a temporary file.
    #[arg(long, value_name = "DB")]
    pub db: Option<PathBuf>,
    /// Do not open the review UI at the end (for scripts and CI).
    #[arg(long)]
    pub no_review: bool,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Who is labeling (decisions are kept per coder); default: $USER, else "coder".
    #[arg(long, value_name = "NAME")]
    pub coder: Option<String>,
    /// Hide scores and detector evidence (for gold-set labeling).
    #[arg(long)]
    pub blind: bool,
    /// A keymap file (`MODE KEY ACTION` lines) merged over assets/keymap.txt.
    #[arg(long, value_name = "FILE")]
    pub keymap: Option<PathBuf>,
}

/// Arguments of commands that later issues implement: accepted as-is so scripts written
/// against the contract get "not implemented yet" rather than a usage error.
#[derive(Debug, Args)]
pub struct PendingArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub rest: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load WARC/ARC files, folders of pages and JSONL into the database.
    Ingest(IngestArgs),
    /// Run a near-duplicate detector (spotsigs, imatch, cooper, andd, all).
    Detect(PendingArgs),
    /// I-Match lexicons (`lexicon build --db DB --out FILE`).
    Lexicon(PendingArgs),
    /// The pairs of a detector run.
    Pairs(PendingArgs),
    /// The clusters of a detector run.
    Clusters(PendingArgs),
    /// The signatures of documents.
    Sigs(PendingArgs),
    /// Detector runs with their parameters.
    Runs(PendingArgs),
    /// Counts of sources, records by type, documents, duplicate groups and errors.
    Stats(StatsArgs),
    /// One line per document: url, title, chars, dup_group, source.
    Docs(ListArgs),
    /// The stored ingest errors: source, offset, reason.
    Errors(ListArgs),
    /// The review workbench (terminal UI).
    Review(ReviewArgs),
    /// Export labels (andd-jsonl, gold-tsv, gold-dirs).
    Export(PendingArgs),
    /// Score detector runs against a gold file.
    Eval(PendingArgs),
    /// Train the ANDD similarity from the coders' labels.
    Train(PendingArgs),
    /// Ingest the bundled demo crawl into a temporary database and show the pipeline.
    Demo(DemoArgs),
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Ingest(a) => cmd::ingest::run(&a),
        Command::Stats(a) => cmd::stats::run(&a),
        Command::Docs(a) => cmd::listing::docs(&a),
        Command::Errors(a) => cmd::listing::errors(&a),
        Command::Demo(a) => cmd::demo::run(&a),
        Command::Detect(_) => not_implemented("detect"),
        Command::Lexicon(_) => not_implemented("lexicon"),
        Command::Pairs(_) => not_implemented("pairs"),
        Command::Clusters(_) => not_implemented("clusters"),
        Command::Sigs(_) => not_implemented("sigs"),
        Command::Runs(_) => not_implemented("runs"),
        Command::Review(a) => cmd::review::run(&a),
        Command::Export(_) => not_implemented("export"),
        Command::Eval(_) => not_implemented("eval"),
        Command::Train(_) => not_implemented("train"),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spotcheck: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn not_implemented(name: &str) -> anyhow::Result<ExitCode> {
    eprintln!("spotcheck: `{name}` is not implemented yet");
    Ok(ExitCode::from(2))
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
