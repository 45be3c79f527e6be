//! The command line: clap definitions of the contract in DESIGN.md §4, and the mapping of
//! results to exit codes (0 success, 1 failure, 2 usage error). A broken pipe
//! (`spotcheck docs | head`) is success, as in ripgrep.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::cmd;
use crate::cmd::adjudicate::{AdjudicateAction, AdjudicateConfig};
use crate::cmd::demo::DemoConfig;
use crate::cmd::eval::{EvalConfig, SampleEvalConfig};
use crate::cmd::export::{ExportConfig, ExportFormat as ExportFormatConfig};
use crate::cmd::ingest::IngestConfig;
use crate::cmd::listing::ListConfig;
use crate::cmd::merge::MergeConfig;
use crate::cmd::query::QueryConfig;
use crate::cmd::queue::{QueueConfig, SampleQueueConfig};
use crate::cmd::results::{RunSelectConfig, RunsConfig, SigsConfig};
use crate::cmd::review::ReviewConfig;
use crate::cmd::sample::SampleConfig;
use crate::cmd::stage::StageConfig;
use crate::cmd::stats::StatsConfig;
use crate::cmd::train::TrainConfig;
use crate::learn::andd::TrainOptions;
use crate::learn::robust::RobustOptions;
use crate::sig::andd::Similarity;
use crate::store::TextKind;

mod detect_args;
pub use detect_args::DetectArgs;

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
    /// WARC/ARC/WET files (.gz or not), WACZ files, folders of .html/.htm/.txt pages,
    /// JSONL(.gz), CSV(.gz) and Parquet page tables (AUT/ARCH derivative folders too).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Also extract the readability-style main-content text (dom_smoothie; about five
    /// times slower). Only `--text main`, the review's `v` cycle and ANDD models on `main`
    /// read it.
    #[arg(long, conflicts_with = "no_main")]
    pub main: bool,
    /// Page tables (CSV, Parquet): the column holding the page URL [default: the first of
    /// url, uri, target_uri, warc_target_uri, link, page_url].
    #[arg(long, value_name = "NAME")]
    pub url_column: Option<String>,
    /// Page tables: the column holding the page's HTML [default: the first of html,
    /// raw_html, html_content, body_html, page_html].
    #[arg(long, value_name = "NAME", conflicts_with = "text_column")]
    pub html_column: Option<String>,
    /// Page tables: the column holding the page's plain text, used when there is no HTML
    /// column [default: the first of text, content, raw_content, plain_text, body, page_text].
    #[arg(long, value_name = "NAME")]
    pub text_column: Option<String>,
    /// Page tables: the column holding the capture date (ISO 8601, 14 or 8 digits, or a
    /// Parquet date/timestamp) [default: the first of date, crawl_date, capture_date,
    /// fetch_time, timestamp, warc_date, crawl_time, fetch_date].
    #[arg(long, value_name = "NAME")]
    pub date_column: Option<String>,
    /// Page tables: the column holding the page title [default: title, page_title].
    #[arg(long, value_name = "NAME")]
    pub title_column: Option<String>,
    /// Do not extract the main-content text (the default; kept as its explicit spelling).
    #[arg(long)]
    pub no_main: bool,
    /// Skip the content text (site templates removed): detectors then read the visible
    /// text. Only for measuring what the content text costs, or a quick look; a later
    /// ingest into the same database without it makes every document's content text.
    #[arg(long)]
    pub no_content: bool,
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
pub struct QueryArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Outside documents: WARC/ARC files, folders of pages, single pages, JSONL files.
    #[arg(value_name = "PATH", required_unless_present = "stdin")]
    pub paths: Vec<PathBuf>,
    /// Read JSONL records ({"url":…,"html":…} or "text") from stdin.
    #[arg(long)]
    pub stdin: bool,
    #[arg(long, value_enum, default_value_t = ListFormat::Jsonl)]
    pub format: ListFormat,
    /// Only this method (repeatable); default: every method with a finished run.
    #[arg(long = "method", value_name = "M", value_parser = clap::builder::PossibleValuesParser::new(crate::detect::method_names()))]
    pub methods: Vec<String>,
    /// Only the pages of the given files whose URL is listed in FILE (one URL a line; `#`
    /// comments): a URL list selects pages of crawl files or folders, it is never fetched.
    #[arg(long, value_name = "FILE")]
    pub urls: Option<PathBuf>,
}

impl QueryArgs {
    pub fn config(&self) -> QueryConfig {
        QueryConfig {
            db: self.db.db.clone(),
            paths: self.paths.clone(),
            stdin: self.stdin,
            format: self.format.into(),
            methods: self.methods.clone(),
            urls: self.urls.clone(),
        }
    }
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Coders' copies of the database (same corpus: documents are matched by URL and
    /// content hash), merged in this order.
    #[arg(long, required = true, num_args = 1.., value_name = "OTHER.db")]
    pub from: Vec<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

impl MergeArgs {
    pub fn config(&self) -> MergeConfig {
        MergeConfig {
            db: self.db.db.clone(),
            from: self.from.clone(),
            json: self.json,
        }
    }
}

#[derive(Debug, Args)]
pub struct AdjudicateArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// List the pairs coders disagree on, with every coder's verdict and note (the
    /// default action).
    #[arg(long, conflicts_with_all = ["decide", "agreement"])]
    pub list: bool,
    /// With --list: the adjudicated disagreements too.
    #[arg(long, requires = "list")]
    pub all: bool,
    /// Record the final label of the pair of document ids A,B (needs --label and
    /// --adjudicator).
    #[arg(long, value_name = "A,B", requires_all = ["label", "adjudicator"])]
    pub decide: Option<String>,
    /// The final label: same or different.
    #[arg(long, value_enum, requires = "decide")]
    pub label: Option<AdjudicatedLabel>,
    /// Who adjudicates: logged as coder `adjudicator:NAME`.
    #[arg(long, value_name = "NAME", requires = "decide")]
    pub adjudicator: Option<String>,
    /// A note kept with the final label.
    #[arg(long, value_name = "TEXT", requires = "decide")]
    pub note: Option<String>,
    /// Cohen's kappa of every pair of coders before and after adjudication.
    #[arg(long, conflicts_with = "decide")]
    pub agreement: bool,
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AdjudicatedLabel {
    Same,
    Different,
}

impl AdjudicateArgs {
    pub fn config(&self) -> Result<AdjudicateConfig, String> {
        let action = match (&self.decide, self.label, &self.adjudicator) {
            (Some(pair), Some(label), Some(name)) => {
                let ids: Vec<Option<i64>> =
                    pair.split(',').map(|x| x.trim().parse().ok()).collect();
                let [Some(a), Some(b)] = ids[..] else {
                    return Err(format!(
                        "--decide takes two document ids as A,B (e.g. 3,17), got {:?}",
                        cmd::tsv_cell(pair)
                    ));
                };
                if name.trim().is_empty() {
                    return Err("--adjudicator needs a name".into());
                }
                AdjudicateAction::Decide {
                    a,
                    b,
                    label: match label {
                        AdjudicatedLabel::Same => crate::model::PairLabel::Same,
                        AdjudicatedLabel::Different => crate::model::PairLabel::Different,
                    },
                    adjudicator: name.clone(),
                    note: self.note.clone(),
                }
            }
            _ if self.agreement => AdjudicateAction::Agreement,
            _ => AdjudicateAction::List { all: self.all },
        };
        Ok(AdjudicateConfig {
            db: self.db.db.clone(),
            action,
            json: self.json,
        })
    }
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
pub struct DocsArgs {
    #[command(flatten)]
    pub list: ListArgs,
    /// Only documents captured at or after this date (UTC; 2016-03-01,
    /// 2016-03-01T12:00:00Z, 20160301120000); documents without a date are left out.
    #[arg(long, value_name = "DATE", value_parser = parse_capture_date)]
    pub since: Option<String>,
    /// Only documents captured before this date (UTC; same forms as --since).
    #[arg(long, value_name = "DATE", value_parser = parse_capture_date)]
    pub until: Option<String>,
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
#[command(after_help = queue_after_help())]
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
    /// Stay on an entry after a verdict instead of moving on to the next (Ctrl-a toggles).
    #[arg(long)]
    pub no_auto_advance: bool,
    /// Show each member's replay URL under this base (BASE + 14-digit capture timestamp +
    /// `/` + URL), e.g. a local pywb `http://localhost:8080/my-coll/` or
    /// `https://web.archive.org/web/`; `W` copies it (OSC 52).
    #[arg(long, value_name = "BASE", value_parser = parse_replay_base)]
    pub replay_url: Option<String>,
    /// The queue order to start in: `size` (largest first, the default) or `active` (the
    /// entries whose label would teach most first: detectors disagreeing, weakest link
    /// nearest a threshold). The sort key cycles through every order.
    #[arg(long, value_enum, default_value_t = OrderArg::Size)]
    pub order: OrderArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    Size,
    Active,
}

impl OrderArg {
    pub fn sort(self) -> crate::model::QueueSort {
        match self {
            OrderArg::Size => crate::model::QueueSort::SizeDesc,
            OrderArg::Active => crate::model::QueueSort::Active,
        }
    }
}

fn parse_replay_base(s: &str) -> Result<String, String> {
    let t = s.trim();
    if !(t.starts_with("http://") || t.starts_with("https://")) || t.chars().any(char::is_control) {
        return Err(format!(
            "expected an http:// or https:// base URL, got {s:?}"
        ));
    }
    Ok(t.to_string())
}

#[derive(Debug, Args)]
#[command(after_help = queue_after_help())]
pub struct QueueArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Whose statuses decide which entries are closed; default: $USER, else "coder".
    #[arg(long, value_name = "NAME")]
    pub coder: Option<String>,
    /// Also the triaged noise and the entries the coder has closed.
    #[arg(long)]
    pub all: bool,
    /// The estimation sample's pairs to label (`spotcheck sample`), in labeling order,
    /// instead of the review queue; blind samples show no scores.
    #[arg(long)]
    pub sample: bool,
    /// The queue order: `size` (the workbench's default) or `active` (see `review --order`).
    #[arg(long, value_enum, default_value_t = OrderArg::Size, conflicts_with = "sample")]
    pub order: OrderArg,
    #[arg(long, value_enum, default_value_t = ListFormat::Jsonl)]
    pub format: ListFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlotWhatArg {
    /// Histograms of each detector run's pair scores with its threshold.
    Scores,
    /// How many groups have 2, 3, 4, 5–9, … members.
    Sizes,
    /// Decisions per day (or hour) from the decision log.
    Progress,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PeriodArg {
    Hour,
    Day,
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Which figure.
    #[arg(long, value_enum)]
    pub what: PlotWhatArg,
    /// Only this detector's latest run (sizes: its clusters instead of the merged queue).
    #[arg(long, value_name = "M")]
    pub method: Option<String>,
    /// Whose labels and decisions count (default: every coder's).
    #[arg(long, value_name = "NAME")]
    pub coder: Option<String>,
    /// Scores: also mark this what-if threshold, with the pairs, groups, precision and
    /// recall it would give.
    #[arg(long, value_name = "F", value_parser = parse_unit_interval)]
    pub threshold: Option<f64>,
    /// Progress: decisions per day or per hour.
    #[arg(long, value_enum, default_value_t = PeriodArg::Day)]
    pub per: PeriodArg,
    /// The SVG file to write.
    #[arg(long, value_name = "FILE.svg")]
    pub out: PathBuf,
}

/// A number in [0, 1].
fn parse_unit_interval(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("expected a number in [0, 1], got {s:?}")),
    }
}

impl PlotArgs {
    pub fn config(&self) -> cmd::plot::PlotConfig {
        cmd::plot::PlotConfig {
            db: self.db.db.clone(),
            what: match self.what {
                PlotWhatArg::Scores => cmd::plot::PlotWhat::Scores,
                PlotWhatArg::Sizes => cmd::plot::PlotWhat::Sizes,
                PlotWhatArg::Progress => cmd::plot::PlotWhat::Progress,
            },
            method: self.method.clone(),
            coder: self.coder.clone(),
            threshold: self.threshold,
            period: match self.per {
                PeriodArg::Hour => crate::chart::Period::Hour,
                PeriodArg::Day => crate::chart::Period::Day,
            },
            out: self.out.clone(),
        }
    }
}

/// The triage rules under `queue --help` (from the rule table).
fn queue_after_help() -> String {
    format!(
        "Noise triage (kept out of the default queue; --all or the X key shows them):\n{}",
        crate::model::triage_help()
    )
}

/// The `--method` of `pairs` and `clusters`: one row of the method table (not `all`).
fn one_method() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::detect::METHODS.iter().map(|m| m.name()))
}

#[derive(Debug, Args)]
pub struct RunSelect {
    #[command(flatten)]
    pub db: DbArg,
    /// Which method's latest finished run to show.
    #[arg(long, value_parser = one_method())]
    pub method: String,
    /// Show this run instead of the latest (`spotcheck runs` lists them).
    #[arg(long, value_name = "ID")]
    pub run: Option<i64>,
    #[arg(long, value_enum, default_value_t = ListFormat::Jsonl)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct SigsArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Only these documents (repeatable); all documents by default.
    #[arg(long, value_name = "URL")]
    pub url: Vec<String>,
    #[arg(long, value_enum, default_value_t = ListFormat::Jsonl)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextArg {
    /// All visible text of the page (boilerplate included).
    Visible,
    /// The readability main content (visible text where none was found).
    Main,
    /// The content text: site-template blocks removed, or per-page extraction on sites
    /// with few pages (computed at ingest; visible text in a database without it).
    Content,
}

impl TextArg {
    /// The stored text this names.
    pub fn kind(self) -> crate::store::TextKind {
        match self {
            TextArg::Visible => crate::store::TextKind::Visible,
            TextArg::Main => crate::store::TextKind::Main,
            TextArg::Content => crate::store::TextKind::Content,
        }
    }
}

fn parse_range(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("expected MIN,MAX, got {s:?}"))?;
    let lo: f64 = a.trim().parse().map_err(|_| format!("bad number {a:?}"))?;
    let hi: f64 = b.trim().parse().map_err(|_| format!("bad number {b:?}"))?;
    if !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) || lo > hi {
        return Err(format!("expected 0 <= MIN <= MAX <= 1, got {s}"));
    }
    Ok((lo, hi))
}

#[derive(Debug, Subcommand)]
pub enum LexiconCommand {
    /// Build an I-Match lexicon from this collection and save it for use on another.
    Build(LexiconBuildArgs),
}

#[derive(Debug, Args)]
pub struct LexiconBuildArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Normalized-idf window (default 0.2,0.8, the papers' web setting).
    #[arg(long, value_name = "MIN,MAX", value_parser = parse_range)]
    pub idf: Option<(f64, f64)>,
    #[arg(long, value_enum, default_value_t = TextArg::Main)]
    pub text: TextArg,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Gold clustering: `url<TAB>cluster` lines, `#` comments; or `labels`: the clustering
    /// the coders' labels imply (only labeled documents count).
    #[arg(long, value_name = "FILE|labels", required_unless_present = "sample")]
    pub gold: Option<PathBuf>,
    /// With `--gold labels`: only this coder's labels (default: every coder's, pairs they
    /// disagree on left out).
    #[arg(long, value_name = "NAME")]
    pub coder: Option<String>,
    /// Estimate every run's precision, recall and F1 over the whole collection, with 95%
    /// intervals, from the labeled sample `spotcheck sample` drew (the newest one).
    #[arg(long, conflicts_with_all = ["gold", "coder"])]
    pub sample: bool,
    /// With `--sample`: this sample instead of the newest.
    #[arg(long, value_name = "ID", requires = "sample")]
    pub sample_id: Option<i64>,
    /// One JSON object per run (with `--sample`: one object for the whole estimate).
    #[arg(long)]
    pub json: bool,
}

fn parse_width(s: &str) -> Result<f64, String> {
    let f: f64 = s.trim().parse().map_err(|_| format!("bad number {s:?}"))?;
    if !(f > 0.0 && f <= 1.0) {
        return Err(format!("expected a width above 0 and at most 1, got {s}"));
    }
    Ok(f)
}

fn parse_size(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("expected a number of pairs of 1 or more, got {s}")),
    }
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The report file: `.html` (figures inline) or `.md`.
    #[arg(long, value_name = "FILE.html|FILE.md")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct SampleArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Pairs to draw in all, spread evenly over the strata (with --pilot: allocated by Neyman
    /// allocation) [default: sized from --width].
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub size: Option<u64>,
    /// Seed of the draw (the same database and seed give the same sample).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Target width of each stratum's 95% interval of its share of true pairs; sets each
    /// stratum's size (ignored with --size).
    #[arg(long, value_name = "W", default_value_t = crate::model::sample::DEFAULT_WIDTH, value_parser = parse_width)]
    pub width: f64,
    /// The coder the sample is queued for [default: anyone].
    #[arg(long, value_name = "NAME")]
    pub coder: Option<String>,
    /// Show the coders the candidate scores (the sample is labeled blind by default).
    #[arg(long)]
    pub show_scores: bool,
    /// A labeled pilot sample (its ID): the new sample keeps the pilot's pairs and spreads
    /// the rest of the total (--size, or what --width would draw) over the candidate strata
    /// by Neyman allocation from the pilot's labels; draw the pilot with `--width 0.4`.
    #[arg(long, value_name = "ID")]
    pub pilot: Option<i64>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Training pairs for ANDD, one JSON object per line.
    AnddJsonl,
    /// The gold clustering the labels imply, `url<TAB>cluster`.
    GoldTsv,
    /// One folder per gold cluster holding its pages (the SpotSigs gold-set layout).
    GoldDirs,
    /// A table (--what docs|pairs|clusters) as Parquet, with typed columns.
    Parquet,
    /// A table (--what docs|pairs|clusters) as CSV (header, RFC 4180 quoting, UTF-8).
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WhatArg {
    /// One row per document: id, url, date, title, site, language, chars, dup_group,
    /// cluster (the coders'), labels, source.
    Docs,
    /// One row per pair a detector proposed or a coder labeled: ids, urls, a score column
    /// per method (its latest run), the agreed label and every coder's.
    Pairs,
    /// One row per cluster of each method's latest run: method, run_id, cluster, size,
    /// urls, labels.
    Clusters,
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    let f: f64 = s.trim().parse().map_err(|_| format!("bad number {s:?}"))?;
    if !(0.0..=1.0).contains(&f) {
        return Err(format!("expected a fraction between 0 and 1, got {s}"));
    }
    Ok(f)
}

fn parse_ratio(s: &str) -> Result<f64, String> {
    let f: f64 = s.trim().parse().map_err(|_| format!("bad number {s:?}"))?;
    if !f.is_finite() || f < 0.0 {
        return Err(format!("expected a number of 0 or more, got {s}"));
    }
    Ok(f)
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Output file (andd-jsonl, gold-tsv; `-` = standard output) or directory (gold-dirs,
    /// must be missing or empty). An existing file is kept unless `--force`.
    #[arg(long, value_name = "FILE|DIR")]
    pub out: PathBuf,
    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,
    /// Only this coder's labels (default: every coder's; pairs they disagree on are left
    /// out and reported).
    #[arg(long, value_name = "NAME")]
    pub coder: Option<String>,
    /// andd-jsonl: URLs and ids only, no titles and texts.
    #[arg(long)]
    pub no_text: bool,
    /// Which text to write (andd-jsonl, gold-dirs) [default: visible].
    #[arg(long, value_enum)]
    pub text: Option<TextArg>,
    /// andd-jsonl: negatives (labeled + sampled) per positive on each side of the split;
    /// 0 = no sampled negatives [default: 1].
    #[arg(long, value_name = "N", value_parser = parse_ratio)]
    pub negatives_per_positive: Option<f64>,
    /// andd-jsonl: seed of the train/test split and of the negative sampling [default: a
    /// fixed seed, so the same labels give the same file].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// andd-jsonl: fraction of the labeled documents (whole clusters) on the test side
    /// [default: 0.2].
    #[arg(long, value_name = "F", value_parser = parse_fraction)]
    pub test_fraction: Option<f64>,
    /// Write the pairs the coders disagree on to this TSV file (url_a, url_b, coders who
    /// said same, coders who said different).
    #[arg(long, value_name = "FILE")]
    pub conflicts: Option<PathBuf>,
    /// parquet, csv: which table to write [default: docs].
    #[arg(long, value_enum)]
    pub what: Option<WhatArg>,
    /// Print the summary on stderr as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimilarityArg {
    Cosine,
    /// Extended Jaccard (Tanimoto) of the weighted vectors.
    Jaccard,
}

fn parse_k(s: &str) -> Result<usize, String> {
    match s.trim() {
        "1" => Ok(1),
        "3" => Ok(3),
        _ => Err(format!("k must be 1 or 3, got {s}")),
    }
}

fn parse_l2(s: &str) -> Result<f64, String> {
    let f: f64 = s.trim().parse().map_err(|_| format!("bad number {s:?}"))?;
    if !f.is_finite() || f < 0.0 {
        return Err(format!("expected a number of 0 or more, got {s}"));
    }
    Ok(f)
}

#[derive(Debug, Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Where to write the model [default: DB with the extension `.andd.json`].
    #[arg(long, value_name = "MODEL")]
    pub out: Option<PathBuf>,
    /// k-gram length: 1 (words, the paper's default) or 3.
    #[arg(long, value_name = "1|3", default_value = "1", value_parser = parse_k)]
    pub k: usize,
    /// Similarity of the weighted vectors.
    #[arg(long, value_enum, default_value_t = SimilarityArg::Cosine)]
    pub similarity: SimilarityArg,
    /// Strength α of the L2 pull toward TF·IDF weights [default: 1].
    #[arg(long, value_name = "F", value_parser = parse_l2)]
    pub l2: Option<f64>,
    /// Choose α by 3-fold cross-validation on the labels (F1 at each fold model's own
    /// threshold; α from 0.01, 0.1, 1, 10, 100; too few labels for the folds: 100).
    #[arg(long, conflicts_with = "l2")]
    pub l2_cv: bool,
    /// Hard negatives mined among the labeled documents per labeled near-duplicate pair:
    /// the pairs TF·IDF ranks highest that the labels put in different clusters; 0 = none
    /// [default: 1].
    #[arg(long, value_name = "F", value_parser = parse_l2)]
    pub hard_negatives: Option<f64>,
    /// Synthetic edited copies per labeled document, each a near-duplicate positive of its
    /// original (end cut off, a paragraph inserted, words substituted); 0 = none, at most 3
    /// [default: 1].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=3))]
    pub edited_copies: Option<u64>,
    /// Seed of the negative sampling (labels and seed fix the model).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Only this coder's labels (default: every coder's; pairs they disagree on left out).
    #[arg(long, value_name = "NAME")]
    pub coder: Option<String>,
    /// Which stored text the model reads [default: content].
    #[arg(long, value_enum)]
    pub text: Option<TextArg>,
    /// Most L-BFGS iterations [default: 100].
    #[arg(long, value_name = "N")]
    pub max_iters: Option<u64>,
    /// Print the summary as one JSON object (progress still goes to stderr).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load WARC/ARC files, folders of pages and JSONL into the database.
    Ingest(IngestArgs),
    /// Run near-duplicate detectors (the method table's, or all defaults) and store the runs.
    Detect(Box<DetectArgs>),
    /// I-Match lexicons (`lexicon build --db DB --out FILE`).
    #[command(subcommand)]
    Lexicon(LexiconCommand),
    /// The pairs of a detector run: {"a":URL,"b":URL,"score":F}.
    Pairs(RunSelect),
    /// The clusters of a detector run: {"cluster":ID,"urls":[URL,...]}.
    Clusters(RunSelect),
    /// The signatures documents were matched on, per method's latest run.
    Sigs(SigsArgs),
    /// Detector runs with their parameters.
    Runs(RunsArgs),
    /// Counts of sources, records by type, documents, duplicate groups and errors.
    Stats(StatsArgs),
    /// One line per document: url, title, chars, dup_group, source, date.
    Docs(DocsArgs),
    /// The stored ingest errors: source, offset, reason.
    Errors(ListArgs),
    /// The review workbench (terminal UI).
    Review(ReviewArgs),
    /// The review queue's entries as the workbench shows them, in its order (JSONL or TSV).
    Queue(QueueArgs),
    /// A figure as SVG: score histograms with thresholds (and a what-if), group sizes, progress.
    Plot(PlotArgs),
    /// Export labels: ANDD training pairs (andd-jsonl), gold sets (gold-tsv, gold-dirs);
    /// or documents, pairs or clusters as tables (parquet, csv).
    Export(ExportArgs),
    /// Score detector runs against a gold file (pairwise P/R/F1, Max-F1), or estimate them
    /// with intervals from a labeled sample (`--sample`).
    Eval(EvalArgs),
    /// Draw a stratified sample of document pairs (unproposed ones too) to label for
    /// estimates over the whole collection.
    Sample(SampleArgs),
    /// Write a methods report (HTML or Markdown): corpus counts, runs and parameters,
    /// estimated P/R/F1 with intervals, score histograms, agreement.
    Report(ReportArgs),
    /// Train the ANDD similarity from the coders' labels.
    Train(TrainArgs),
    /// Resolve the coders' disagreements: list them with every verdict and note, record
    /// an adjudicator's final label of a pair, kappa before and after adjudication.
    Adjudicate(AdjudicateArgs),
    /// Ingest the bundled demo crawl into a temporary database and show the pipeline.
    Demo(DemoArgs),
    /// Bring the decisions of coders' copies of this corpus into this database, then report
    /// kappa and the pairs they label differently.
    Merge(MergeArgs),
    /// Outside documents → the stored documents each detector's latest run would pair them
    /// with, with scores and shared signatures (the database is only read).
    Query(QueryArgs),
    /// Staged detection for more than one machine: count, stats, sign, match, import.
    #[command(subcommand)]
    Stage(StageCommand),
}

/// The stages (README, "More than one machine").
#[derive(Debug, Subcommand)]
pub enum StageCommand {
    /// Per shard: the term document frequencies the method's signing needs.
    Count(StageShardArgs),
    /// Sums the shards' counts into the collection's statistics.
    Stats {
        /// The count stage's files.
        #[arg(required = true, value_name = "COUNTS")]
        counts: Vec<PathBuf>,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Per shard: one Parquet row per document with its signature.
    Sign(StageShardArgs),
    /// Every shard's signed rows → the pairs and clusters (one Parquet file).
    Match {
        #[arg(long, value_name = "M")]
        method: String,
        /// The run parameters as stored (`spotcheck runs --json`), e.g. '{"tau":0.5}'.
        #[arg(long, value_name = "JSON", default_value = "{}")]
        params: String,
        /// The stats stage's file (I-Match, Cooper).
        #[arg(long, value_name = "FILE")]
        stats: Option<PathBuf>,
        /// The sign stage's files.
        #[arg(required = true, value_name = "SIGNED")]
        signed: Vec<PathBuf>,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// The match stage's run into a review database holding the documents.
    Import {
        #[command(flatten)]
        db: DbArg,
        /// The match stage's file, or a directory of Parquet files (the Spark job's).
        #[arg(long, value_name = "FILE")]
        run: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct StageShardArgs {
    /// The shard's database (`spotcheck ingest` of the shard's files).
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long, value_name = "M")]
    pub method: String,
    /// The run parameters as stored (`spotcheck runs --json`), e.g. '{"tau":0.5}'.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub params: String,
    /// The stats stage's file (sign: I-Match, Cooper).
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

fn parse_params(s: &str) -> Result<serde_json::Value, String> {
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(v) if v.is_object() => Ok(v),
        _ => Err(format!("--params: not a JSON object: {s}")),
    }
}

impl StageCommand {
    pub fn config(&self) -> Result<StageConfig, String> {
        Ok(match self {
            StageCommand::Count(a) => StageConfig::Count {
                db: a.db.db.clone(),
                method: a.method.clone(),
                params: parse_params(&a.params)?,
                out: a.out.clone(),
            },
            StageCommand::Stats { counts, out } => StageConfig::Stats {
                counts: counts.clone(),
                out: out.clone(),
            },
            StageCommand::Sign(a) => StageConfig::Sign {
                db: a.db.db.clone(),
                method: a.method.clone(),
                params: parse_params(&a.params)?,
                stats: a.stats.clone(),
                out: a.out.clone(),
            },
            StageCommand::Match {
                method,
                params,
                stats,
                signed,
                out,
            } => StageConfig::Match {
                method: method.clone(),
                params: parse_params(params)?,
                stats: stats.clone(),
                signed: signed.clone(),
                out: out.clone(),
            },
            StageCommand::Import { db, run } => StageConfig::Import {
                db: db.db.clone(),
                run: run.clone(),
            },
        })
    }
}

// The edge: raw flags become the plain, validated configs the commands take. Only this
// file knows clap; a combination the flags' own parsers cannot see is refused here as a
// usage error (exit 2) naming the flag.

impl From<ListFormat> for cmd::ListFormat {
    fn from(f: ListFormat) -> Self {
        match f {
            ListFormat::Jsonl => cmd::ListFormat::Jsonl,
            ListFormat::Tsv => cmd::ListFormat::Tsv,
        }
    }
}

impl IngestArgs {
    pub fn config(&self) -> IngestConfig {
        IngestConfig {
            db: self.db.db.clone(),
            paths: self.paths.clone(),
            main: self.main && !self.no_main,
            no_content: self.no_content,
            max_page_bytes: self.max_page_bytes,
            columns: crate::ingest::table::ColumnMap {
                url: self.url_column.clone(),
                text: self.text_column.clone(),
                html: self.html_column.clone(),
                date: self.date_column.clone(),
                title: self.title_column.clone(),
            },
            json: self.json,
            quiet: self.quiet,
        }
    }
}

impl StatsArgs {
    pub fn config(&self) -> StatsConfig {
        StatsConfig {
            db: self.db.db.clone(),
            json: self.json,
            sources: self.sources,
        }
    }
}

impl ListArgs {
    pub fn config(&self) -> ListConfig {
        ListConfig {
            db: self.db.db.clone(),
            format: self.format.into(),
            since: None,
            until: None,
        }
    }
}

/// A capture-date bound: any form ingest reads (ISO 8601, `YYYYMMDD[hhmmss]`), kept in the
/// stored form.
fn parse_capture_date(s: &str) -> Result<String, String> {
    crate::ingest::date::normalize(s).ok_or_else(|| {
        format!("not a date: {s:?} (use 2016-03-01, 2016-03-01T12:00:00Z or 20160301120000)")
    })
}

impl DocsArgs {
    pub fn config(&self) -> ListConfig {
        ListConfig {
            since: self.since.clone(),
            until: self.until.clone(),
            ..self.list.config()
        }
    }
}

impl ReviewArgs {
    pub fn config(&self) -> ReviewConfig {
        ReviewConfig {
            db: self.db.db.clone(),
            coder: self.coder.clone(),
            blind: self.blind,
            keymap: self.keymap.clone(),
            order: self.order.sort(),
            auto_advance: !self.no_auto_advance,
            replay_url: self.replay_url.clone(),
        }
    }
}

impl QueueArgs {
    pub fn sample_config(&self) -> SampleQueueConfig {
        SampleQueueConfig {
            db: self.db.db.clone(),
            coder: self.coder.clone(),
            all: self.all,
            format: self.format.into(),
        }
    }

    pub fn config(&self) -> QueueConfig {
        QueueConfig {
            db: self.db.db.clone(),
            coder: self.coder.clone(),
            all: self.all,
            format: self.format.into(),
            order: self.order.sort(),
        }
    }
}

impl RunSelect {
    pub fn config(&self) -> RunSelectConfig {
        RunSelectConfig {
            db: self.db.db.clone(),
            method: self.method.clone(),
            run: self.run,
            format: self.format.into(),
        }
    }
}

impl SigsArgs {
    pub fn config(&self) -> SigsConfig {
        SigsConfig {
            db: self.db.db.clone(),
            url: self.url.clone(),
            format: self.format.into(),
        }
    }
}

impl RunsArgs {
    pub fn config(&self) -> RunsConfig {
        RunsConfig {
            db: self.db.db.clone(),
            json: self.json,
        }
    }
}

impl EvalArgs {
    /// The gold evaluation (clap requires `--gold` unless `--sample`).
    pub fn config(&self) -> Result<EvalConfig, String> {
        Ok(EvalConfig {
            db: self.db.db.clone(),
            gold: self
                .gold
                .clone()
                .ok_or("--gold FILE|labels or --sample is required")?,
            coder: self.coder.clone(),
            json: self.json,
        })
    }

    pub fn sample_config(&self) -> SampleEvalConfig {
        SampleEvalConfig {
            db: self.db.db.clone(),
            sample: self.sample_id,
            json: self.json,
        }
    }
}

impl SampleArgs {
    pub fn config(&self) -> SampleConfig {
        SampleConfig {
            db: self.db.db.clone(),
            size: self.size,
            seed: self.seed,
            width: self.width,
            coder: self.coder.clone(),
            show_scores: self.show_scores,
            pilot: self.pilot,
            json: self.json,
        }
    }
}

impl ExportArgs {
    /// Options that belong to another format are usage errors, not silently ignored.
    pub fn config(&self) -> Result<ExportConfig, String> {
        let a = self;
        let andd_only = [
            (
                "--negatives-per-positive",
                a.negatives_per_positive.is_some(),
            ),
            ("--test-fraction", a.test_fraction.is_some()),
            ("--seed", a.seed.is_some()),
            ("--no-text", a.no_text),
        ];
        if a.format != ExportFormat::AnddJsonl {
            if let Some((name, _)) = andd_only.iter().find(|(_, given)| *given) {
                return Err(format!("{name} applies to --format andd-jsonl only"));
            }
        }
        let table = matches!(a.format, ExportFormat::Parquet | ExportFormat::Csv);
        if a.what.is_some() && !table {
            return Err("--what applies to --format parquet and csv only".into());
        }
        if table && a.text.is_some() {
            return Err("--text applies to --format andd-jsonl and gold-dirs only".into());
        }
        if table && a.conflicts.is_some() {
            return Err(
                "--conflicts applies to --format andd-jsonl, gold-tsv and gold-dirs".into(),
            );
        }
        if a.format == ExportFormat::GoldTsv && a.text.is_some() {
            return Err("--text applies to --format andd-jsonl and gold-dirs only".into());
        }
        if a.no_text && a.text.is_some() {
            return Err("--no-text and --text exclude each other".into());
        }
        if a.format == ExportFormat::GoldDirs && a.out.as_os_str() == "-" {
            return Err(
                "--format gold-dirs writes a directory; --out - (standard output) is for files"
                    .into(),
            );
        }
        Ok(ExportConfig {
            db: a.db.db.clone(),
            format: match a.format {
                ExportFormat::AnddJsonl => ExportFormatConfig::AnddJsonl,
                ExportFormat::GoldTsv => ExportFormatConfig::GoldTsv,
                ExportFormat::GoldDirs => ExportFormatConfig::GoldDirs,
                ExportFormat::Parquet => ExportFormatConfig::Parquet,
                ExportFormat::Csv => ExportFormatConfig::Csv,
            },
            what: match a.what.unwrap_or(WhatArg::Docs) {
                WhatArg::Docs => crate::cmd::export_table::TableKind::Docs,
                WhatArg::Pairs => crate::cmd::export_table::TableKind::Pairs,
                WhatArg::Clusters => crate::cmd::export_table::TableKind::Clusters,
            },
            out: a.out.clone(),
            force: a.force,
            coder: a.coder.clone(),
            no_text: a.no_text,
            text: a.text.map(TextArg::kind),
            negatives_per_positive: a.negatives_per_positive,
            seed: a.seed,
            test_fraction: a.test_fraction,
            conflicts: a.conflicts.clone(),
            json: a.json,
        })
    }
}

impl TrainArgs {
    pub fn config(&self) -> TrainConfig {
        let defaults = TrainOptions::default();
        let robust_defaults = RobustOptions::default();
        TrainConfig {
            db: self.db.db.clone(),
            out: self.out.clone(),
            options: TrainOptions {
                k: self.k,
                similarity: match self.similarity {
                    SimilarityArg::Cosine => Similarity::Cosine,
                    SimilarityArg::Jaccard => Similarity::Jaccard,
                },
                l2: self.l2.unwrap_or(defaults.l2),
                seed: self.seed.unwrap_or(defaults.seed),
                max_iters: self.max_iters.unwrap_or(defaults.max_iters),
                ..defaults
            },
            // The model reads the content text (site templates removed) unless told
            // otherwise.
            text: match self.text {
                Some(TextArg::Visible) => TextKind::Visible,
                Some(TextArg::Main) => TextKind::Main,
                _ => TextKind::Content,
            },
            coder: self.coder.clone(),
            l2_cv: self.l2_cv,
            robust: RobustOptions {
                mined_per_positive: self
                    .hard_negatives
                    .unwrap_or(robust_defaults.mined_per_positive),
                edited_per_document: self
                    .edited_copies
                    .map_or(robust_defaults.edited_per_document, |n| n as usize),
                ..robust_defaults
            },
            json: self.json,
        }
    }
}

/// Runs a command on a validated config, or reports the usage error (exit 2).
fn with_config<C>(
    config: Result<C, String>,
    command: impl FnOnce(&C) -> anyhow::Result<ExitCode>,
) -> anyhow::Result<ExitCode> {
    match config {
        Ok(c) => command(&c),
        Err(message) => cmd::usage_error(&message),
    }
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Ingest(a) => cmd::ingest::run(&a.config()),
        Command::Stats(a) => cmd::stats::run(&a.config()),
        Command::Docs(a) => cmd::listing::docs(&a.config()),
        Command::Errors(a) => cmd::listing::errors(&a.config()),
        Command::Demo(a) => cmd::demo::run(&DemoConfig {
            db: a.db.clone(),
            no_review: a.no_review,
        }),
        Command::Detect(a) => cmd::detect::run(&a.request),
        Command::Lexicon(LexiconCommand::Build(a)) => {
            cmd::detect::lexicon_build(&cmd::detect::LexiconBuild {
                db: a.db.db.clone(),
                out: a.out.clone(),
                idf: a.idf,
                text: a.text.kind(),
            })
        }
        Command::Pairs(a) => cmd::results::pairs(&a.config()),
        Command::Clusters(a) => cmd::results::clusters(&a.config()),
        Command::Sigs(a) => cmd::results::sigs(&a.config()),
        Command::Runs(a) => cmd::results::runs(&a.config()),
        Command::Review(a) => cmd::review::run(&a.config()),
        Command::Queue(a) if a.sample => cmd::queue::run_sample(&a.sample_config()),
        Command::Queue(a) => cmd::queue::run(&a.config()),
        Command::Plot(a) => cmd::plot::run(&a.config()),
        Command::Export(a) => with_config(a.config(), cmd::export::run),
        Command::Eval(a) if a.sample => cmd::eval::run_sample(&a.sample_config()),
        Command::Eval(a) => with_config(a.config(), cmd::eval::run),
        Command::Sample(a) => cmd::sample::run(&a.config()),
        Command::Report(a) => cmd::report::run(&cmd::report::ReportConfig {
            db: a.db.db.clone(),
            out: a.out.clone(),
        }),
        Command::Train(a) => cmd::train::run(&a.config()),
        Command::Adjudicate(a) => with_config(a.config(), cmd::adjudicate::run),
        Command::Merge(a) => cmd::merge::run(&a.config()),
        Command::Query(a) => cmd::query::run(&a.config()),
        Command::Stage(s) => match s.config() {
            Ok(c) => cmd::stage::run(&c),
            Err(e) => cmd::usage_error(&e),
        },
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // An error can quote crawled text (a URL, a title, a record header): it goes to a
            // terminal through the same sanitizer as everything else.
            eprintln!(
                "spotcheck: error: {}",
                crate::review::sanitize_line(&format!("{e:#}"))
            );
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
