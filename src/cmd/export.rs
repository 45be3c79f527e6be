//! `spotcheck export`: the coders' labels out, as ANDD training pairs (`andd-jsonl`, one
//! JSON object per pair) or as a gold set (`gold-tsv`: `url<TAB>cluster`; `gold-dirs`: one
//! folder per cluster holding its pages); and the collection as tables (`parquet`, `csv`:
//! documents, pairs or clusters with dates, scores and labels; see `export_table`). The rules live in `learn::pairs` and
//! `learn::labels`; this module reads, writes and reports.
//!
//! Output is written to a temporary file (or folder) beside the target and moved into
//! place only when complete: a failed export leaves nothing half-written, an existing file
//! is replaced only with `--force`, and a gold-dirs folder is only ever created (or filled
//! when it exists and is empty), never cleared.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use serde_json::json;

use crate::cmd::eval::{check_coder, label_gold_for_store};
use crate::cmd::export_table::TableKind;
use crate::learn::labels::{Conflict, LabelGold};
use crate::learn::pairs::{training_pairs, PairOptions, TrainingSet};
use crate::review::sanitize_line;
use crate::store::TextKind;
use crate::store::{DocBrief, Store};

/// Conflicts listed on stderr when no `--conflicts FILE` is given.
const CONFLICTS_SHOWN: usize = 10;

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// Training pairs for ANDD, one JSON object per line.
    AnddJsonl,
    /// The gold clustering the labels imply, `url<TAB>cluster`.
    GoldTsv,
    /// One folder per gold cluster holding its pages.
    GoldDirs,
    /// A table (documents, pairs or clusters) as Parquet.
    Parquet,
    /// A table as CSV.
    Csv,
}

/// A validated export request (options of another format are refused at the edge).
#[derive(Debug, Clone)]
pub struct ExportConfig {
    pub db: PathBuf,
    pub format: ExportFormat,
    /// Output file (`-`: standard output) or directory (gold-dirs).
    pub out: PathBuf,
    /// Replace an existing output file.
    pub force: bool,
    /// Only this coder's labels.
    pub coder: Option<String>,
    /// andd-jsonl: URLs and ids only.
    pub no_text: bool,
    /// Which stored text to write (andd-jsonl, gold-dirs); `None`: visible.
    pub text: Option<TextKind>,
    pub negatives_per_positive: Option<f64>,
    pub seed: Option<u64>,
    pub test_fraction: Option<f64>,
    /// Write the conflicting pairs here.
    pub conflicts: Option<PathBuf>,
    /// parquet, csv: which table.
    pub what: TableKind,
    pub json: bool,
}

pub fn run(a: &ExportConfig) -> Result<ExitCode> {
    let mut store = Store::open_existing(&a.db)?;
    check_coder(&store, a.coder.as_deref())?;
    if matches!(a.format, ExportFormat::Parquet | ExportFormat::Csv) {
        // The docs table's language column: a database from before languages were stored
        // gets them now, as `docs` does.
        store.fill_missing_langs_or_warn()?;
    }
    let text = a.text.unwrap_or(TextKind::Visible);
    let summary = match a.format {
        ExportFormat::AnddJsonl => export_andd(&store, a, text)?,
        ExportFormat::Parquet | ExportFormat::Csv => export_table(&store, a)?,
        ExportFormat::GoldTsv | ExportFormat::GoldDirs => {
            let gold = label_gold_for_store(&store, a.coder.as_deref())?;
            if gold.clusters.is_empty() {
                bail!("{}", no_labels(&store, a)?);
            }
            let (summary, conflicts) = if a.format == ExportFormat::GoldTsv {
                (export_gold_tsv(&store, a, &gold)?, &gold.conflicts)
            } else {
                (export_gold_dirs(&store, a, &gold, text)?, &gold.conflicts)
            };
            report_conflicts(&store, a, conflicts)?;
            summary
        }
    };
    let mut err = std::io::stderr().lock();
    if a.json {
        super::write_json_line(&mut err, &summary.json)?;
    } else {
        write!(err, "{}", summary.text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The error for a database without labels to export.
fn no_labels(store: &Store, a: &ExportConfig) -> Result<String> {
    let who = match &a.coder {
        Some(c) => format!("coder {:?} has", sanitize_line(c)),
        None => "no coder has".to_string(),
    };
    Ok(format!(
        "nothing to export from {}: {who} confirmed, split or rejected any cluster \
         (label with `spotcheck review --db {}`; coders so far: {})",
        store.path().display(),
        store.path().display(),
        match store.coders()? {
            c if c.is_empty() => "none".to_string(),
            c => sanitize_line(&c.join(", ")),
        }
    ))
}

/// What an export says when it is done: text for people, JSON for scripts.
struct Summary {
    text: String,
    json: serde_json::Value,
}

// ------------------------------------------------------------------- output files

/// A file being written: standard output, or a temporary file renamed into place.
enum Output {
    Stdout,
    File {
        tmp: tempfile::NamedTempFile,
        dest: PathBuf,
        force: bool,
    },
}

impl Output {
    /// Checks the destination and opens a temporary file beside it.
    fn create(dest: &Path, force: bool) -> Result<Output> {
        if dest.as_os_str() == "-" {
            return Ok(Output::Stdout);
        }
        check_new_file(dest, force)?;
        let tmp = export_builder(0o666)
            .tempfile_in(parent_dir(dest)?)
            .with_context(|| format!("cannot write next to {}", dest.display()))?;
        Ok(Output::File {
            tmp,
            dest: dest.to_path_buf(),
            force,
        })
    }

    /// Writes through a buffer with `f`, then flushes.
    fn write_with(&mut self, f: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
        match self {
            Output::Stdout => {
                let mut w = BufWriter::new(std::io::stdout().lock());
                f(&mut w)?;
                w.flush()?;
            }
            Output::File { tmp, dest, .. } => {
                let mut w = BufWriter::new(tmp.as_file_mut());
                f(&mut w).with_context(|| format!("cannot write {}", dest.display()))?;
                w.flush()
                    .with_context(|| format!("cannot write {}", dest.display()))?;
            }
        }
        Ok(())
    }

    /// Moves the finished file into place (never over a file that appeared meanwhile,
    /// unless `--force`).
    fn commit(self) -> Result<()> {
        if let Output::File { tmp, dest, force } = self {
            tmp.as_file().sync_all()?;
            let persisted = if force {
                tmp.persist(&dest).map(drop)
            } else {
                tmp.persist_noclobber(&dest).map(drop)
            };
            persisted.map_err(|e| {
                anyhow::Error::new(e.error).context(format!("cannot create {}", dest.display()))
            })?;
        }
        Ok(())
    }

    fn name(dest: &Path) -> String {
        if dest.as_os_str() == "-" {
            "standard output".into()
        } else {
            dest.display().to_string()
        }
    }
}

/// Temporary files and folders beside the target, created with the usual permissions
/// (0666 / 0777 less the umask) rather than the private ones of temporary files, since
/// they become the export.
fn export_builder(mode: u32) -> tempfile::Builder<'static, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(".spotcheck-export-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    b
}

fn parent_dir(dest: &Path) -> Result<PathBuf> {
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        bail!(
            "cannot write {}: the directory {} does not exist",
            dest.display(),
            parent.display()
        );
    }
    Ok(parent)
}

fn check_new_file(dest: &Path, force: bool) -> Result<()> {
    if dest.is_dir() {
        bail!("{} is a directory; --out names a file here", dest.display());
    }
    if dest.exists() && !dest.is_file() {
        // A device or a pipe: renaming over it would replace it, --force or not.
        bail!(
            "{} is not a regular file; write to standard output with --out - and redirect",
            dest.display()
        );
    }
    if dest.exists() && !force {
        bail!(
            "{} already exists; spotcheck export does not overwrite files (pass --force to \
             replace it, or choose another --out)",
            dest.display()
        );
    }
    Ok(())
}

// ------------------------------------------------------------------- conflicts

/// Lists the pairs coders disagree on: all of them in `--conflicts FILE`, else the first
/// few on stderr.
fn report_conflicts(store: &Store, a: &ExportConfig, conflicts: &[Conflict]) -> Result<()> {
    let ids: Vec<i64> = conflicts
        .iter()
        .flat_map(|c| [c.a, c.b])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let briefs = store.doc_briefs(&ids)?;
    let url = |id: i64| briefs.get(&id).map_or("?", |b| b.url.as_str()).to_string();
    if let Some(path) = &a.conflicts {
        let mut out = Output::create(path, a.force)?;
        out.write_with(|w| {
            writeln!(w, "# url_a\turl_b\tsame\tdifferent")?;
            for c in conflicts {
                writeln!(
                    w,
                    "{}\t{}\t{}\t{}",
                    super::tsv_cell(&url(c.a)),
                    super::tsv_cell(&url(c.b)),
                    super::tsv_cell(&c.same.join(",")),
                    super::tsv_cell(&c.different.join(","))
                )?;
            }
            Ok(())
        })?;
        out.commit()?;
        return Ok(());
    }
    if conflicts.is_empty() {
        return Ok(());
    }
    let mut err = std::io::stderr().lock();
    writeln!(
        err,
        "{} pairs the coders disagree on were left out{}:",
        conflicts.len(),
        if conflicts.len() > CONFLICTS_SHOWN {
            format!(" (the first {CONFLICTS_SHOWN}; --conflicts FILE lists all)")
        } else {
            String::new()
        }
    )?;
    for c in conflicts.iter().take(CONFLICTS_SHOWN) {
        writeln!(
            err,
            "  {}  {}  same: {}  different: {}",
            sanitize_line(&url(c.a)),
            sanitize_line(&url(c.b)),
            sanitize_line(&c.same.join(", ")),
            sanitize_line(&c.different.join(", "))
        )?;
    }
    Ok(())
}

// ------------------------------------------------------------------- parquet, csv

fn export_table(store: &Store, a: &ExportConfig) -> Result<Summary> {
    let table = super::export_table::table(store, a.what, a.coder.as_deref())?;
    let format = if a.format == ExportFormat::Parquet {
        "parquet"
    } else {
        "csv"
    };
    // Written whole to memory first: the Parquet writer wants a `Send` sink, and the
    // table is in memory anyway.
    let mut bytes = Vec::new();
    if a.format == ExportFormat::Parquet {
        crate::columnar::write_parquet(&table, &mut bytes)?;
    } else {
        crate::columnar::write_csv(&table, &mut bytes)?;
    }
    let mut out = Output::create(&a.out, a.force)?;
    out.write_with(|w| Ok(w.write_all(&bytes)?))?;
    out.commit()?;
    let name = Output::name(&a.out);
    let columns: Vec<&str> = table.columns.iter().map(|(n, _)| n.as_str()).collect();
    Ok(Summary {
        text: format!(
            "{format}: {} {} rows written to {name} (columns: {})\n",
            table.rows(),
            a.what.as_str(),
            columns.join(", ")
        ),
        json: json!({
            "format": format, "what": a.what.as_str(), "rows": table.rows(),
            "columns": columns, "out": name,
        }),
    })
}

// ------------------------------------------------------------------- andd-jsonl

/// One line of the ANDD training file.
#[derive(Serialize)]
struct PairLine<'a> {
    a: &'a str,
    b: &'a str,
    label: u8,
    provenance: &'static str,
    hard: bool,
    split: &'static str,
    group: i64,
    group_b: i64,
    coders: &'a [String],
    tags: &'a [String],
    id_a: i64,
    id_b: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    title_a: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title_b: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text_a: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text_b: Option<&'a str>,
}

fn export_andd(store: &Store, a: &ExportConfig, text: TextKind) -> Result<Summary> {
    let defaults = PairOptions::default();
    let opts = PairOptions {
        coder: a.coder.clone(),
        negatives_per_positive: a
            .negatives_per_positive
            .unwrap_or(defaults.negatives_per_positive),
        seed: a.seed.unwrap_or(defaults.seed),
        test_fraction: a.test_fraction.unwrap_or(defaults.test_fraction),
    };
    let set = training_pairs(store, &opts)?;
    if set.pairs.is_empty() && set.conflicts.is_empty() {
        bail!("{}", no_labels(store, a)?);
    }
    let ids: Vec<i64> = set
        .pairs
        .iter()
        .flat_map(|p| [p.a, p.b])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let briefs = store.doc_briefs(&ids)?;
    let mut texts: HashMap<i64, String> = HashMap::new();
    if !a.no_text {
        for &id in &ids {
            texts.insert(id, store.doc_text(id, text)?.unwrap_or_default());
        }
    }
    let mut out = Output::create(&a.out, a.force)?;
    out.write_with(|w| write_pairs(w, &set, &briefs, &texts, a.no_text))?;
    out.commit()?;
    report_conflicts(store, a, &set.conflicts)?;
    Ok(andd_summary(&set, &opts, &Output::name(&a.out)))
}

fn write_pairs(
    w: &mut dyn Write,
    set: &TrainingSet,
    briefs: &HashMap<i64, DocBrief>,
    texts: &HashMap<i64, String>,
    no_text: bool,
) -> Result<()> {
    let missing = |id: i64| anyhow::anyhow!("document {id} is labeled but not in the database");
    for p in &set.pairs {
        let (ba, bb) = (
            briefs.get(&p.a).ok_or_else(|| missing(p.a))?,
            briefs.get(&p.b).ok_or_else(|| missing(p.b))?,
        );
        let line = PairLine {
            a: &ba.url,
            b: &bb.url,
            label: u8::from(p.label),
            provenance: p.provenance.as_str(),
            hard: p.hard,
            split: p.split.as_str(),
            group: p.group,
            group_b: p.group_b,
            coders: &p.coders,
            tags: &p.tags,
            id_a: p.a,
            id_b: p.b,
            title_a: (!no_text).then_some(ba.title.as_str()),
            title_b: (!no_text).then_some(bb.title.as_str()),
            text_a: texts.get(&p.a).map(String::as_str),
            text_b: texts.get(&p.b).map(String::as_str),
        };
        // Serialized first, so an I/O error (a closed pipe) reaches the caller as itself.
        let mut bytes = serde_json::to_vec(&line)?;
        bytes.push(b'\n');
        w.write_all(&bytes)?;
    }
    Ok(())
}

fn andd_summary(set: &TrainingSet, opts: &PairOptions, out: &str) -> Summary {
    let c = &set.counts;
    let mut text = format!(
        "andd-jsonl: {} pairs written to {out} (labels of {})\n",
        c.pairs,
        coders_text(&set.coders)
    );
    text.push_str(&format!(
        "  positives {:>7}  ({} judged as a pair, {} from clusters)\n",
        c.positives,
        c.direct_positives,
        c.positives - c.direct_positives
    ));
    text.push_str(&format!(
        "  negatives {:>7}  ({} hard: split or rejected by a coder; {} sampled across \
         clusters to reach {} per positive)\n",
        c.negatives, c.hard_negatives, c.sampled, opts.negatives_per_positive
    ));
    if c.sampled_short > 0 {
        text.push_str(&format!(
            "  {} sampled negatives short of the ratio: too few unlabeled cross-cluster pairs\n",
            c.sampled_short
        ));
    }
    text.push_str(&format!(
        "  train {:>7} pairs ({} positive), {} documents in {} labeled clusters\n",
        c.train_pairs, c.train_positives, c.train_documents, c.train_groups
    ));
    text.push_str(&format!(
        "  test  {:>7} pairs ({} positive), {} documents in {} labeled clusters \
         (test fraction {}, seed {})\n",
        c.test_pairs,
        c.test_positives,
        c.test_documents,
        c.test_groups,
        opts.test_fraction,
        opts.seed
    ));
    if c.conflicts > 0 || c.unsure > 0 {
        text.push_str(&format!(
            "  left out: {} pairs the coders disagree on, {} pairs only labeled unsure\n",
            c.conflicts, c.unsure
        ));
    }
    let json = json!({
        "format": "andd-jsonl",
        "out": out,
        "coders": set.coders,
        "counts": c,
        "negatives_per_positive": opts.negatives_per_positive,
        "test_fraction": opts.test_fraction,
        "seed": opts.seed,
    });
    Summary { text, json }
}

fn coders_text(coders: &[String]) -> String {
    match coders {
        [] => "no coder".into(),
        [one] => format!("coder {}", sanitize_line(one)),
        many => format!("coders {}", sanitize_line(&many.join(", "))),
    }
}

// ------------------------------------------------------------------- gold exports

/// Documents of the gold in writing order: (cluster index, id, url), one URL once.
struct GoldRows {
    rows: Vec<(usize, i64, String)>,
    /// URLs naming documents labeled into different clusters (written once, first
    /// cluster).
    collisions: usize,
    /// Documents sharing their URL with another document of their cluster (captures of
    /// one page), written once.
    same_url: usize,
    /// Documents whose URL a `url<TAB>cluster` line cannot carry (a tab, newline or
    /// control character, or a leading `#`).
    unwritable: usize,
}

fn gold_rows(store: &Store, gold: &LabelGold) -> Result<GoldRows> {
    let ids: Vec<i64> = gold.clusters.iter().flatten().copied().collect();
    let briefs = store.doc_briefs(&ids)?;
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = GoldRows {
        rows: Vec::new(),
        collisions: 0,
        same_url: 0,
        unwritable: 0,
    };
    for (i, cluster) in gold.clusters.iter().enumerate() {
        for &id in cluster {
            let Some(b) = briefs.get(&id) else {
                bail!("document {id} is labeled but not in the database");
            };
            match seen.get(&b.url) {
                Some(&c) if c == i => {
                    out.same_url += 1;
                    continue;
                }
                Some(_) => {
                    out.collisions += 1;
                    continue;
                }
                None => {}
            }
            seen.insert(b.url.clone(), i);
            out.rows.push((i, id, b.url.clone()));
        }
    }
    Ok(out)
}

fn tsv_safe(url: &str) -> bool {
    !url.is_empty() && !url.starts_with('#') && !url.chars().any(char::is_control)
}

/// Sizes of a clustering for the summaries.
fn cluster_line(gold: &LabelGold) -> String {
    let multi: Vec<&Vec<i64>> = gold.clusters.iter().filter(|c| c.len() >= 2).collect();
    format!(
        "{} documents in {} clusters ({} of two or more documents, holding {}; {} alone)",
        gold.documents(),
        gold.clusters.len(),
        multi.len(),
        multi.iter().map(|c| c.len()).sum::<usize>(),
        gold.clusters.len() - multi.len()
    )
}

fn gold_notes(gold: &LabelGold, rows: &GoldRows) -> String {
    let mut s = String::new();
    if !gold.conflicts.is_empty() {
        s.push_str(&format!(
            "  {} pairs the coders disagree on did not join clusters\n",
            gold.conflicts.len()
        ));
    }
    if !gold.inconsistent.is_empty() {
        s.push_str(&format!(
            "  {} pairs labeled different are in one cluster anyway, joined through other \
             labels (A = B, B = C, A ≠ C)\n",
            gold.inconsistent.len()
        ));
    }
    if rows.same_url > 0 {
        s.push_str(&format!(
            "  {} documents share their URL with another document of their cluster \
             (captures of one page): written once\n",
            rows.same_url
        ));
    }
    if rows.collisions > 0 {
        s.push_str(&format!(
            "  {} documents share a URL with a document of another cluster; the URL is \
             written once, with its first cluster\n",
            rows.collisions
        ));
    }
    if rows.unwritable > 0 {
        s.push_str(&format!(
            "  {} documents left out: a url<TAB>cluster line cannot carry their URL (control \
             character or leading '#')\n",
            rows.unwritable
        ));
    }
    s
}

fn gold_json(format: &str, out: &str, gold: &LabelGold, rows: &GoldRows) -> serde_json::Value {
    json!({
        "format": format,
        "out": out,
        "coders": gold.coders,
        "documents": gold.documents(),
        "clusters": gold.clusters.len(),
        "clusters_of_two_or_more": gold.clusters.iter().filter(|c| c.len() >= 2).count(),
        "written": rows.rows.len(),
        "conflicts": gold.conflicts.len(),
        "inconsistent": gold.inconsistent.len(),
        "url_collisions": rows.collisions,
        "same_url": rows.same_url,
        "unwritable_urls": rows.unwritable,
    })
}

fn export_gold_tsv(store: &Store, a: &ExportConfig, gold: &LabelGold) -> Result<Summary> {
    let mut rows = gold_rows(store, gold)?;
    let before = rows.rows.len();
    rows.rows.retain(|(_, _, url)| tsv_safe(url));
    rows.unwritable = before - rows.rows.len();
    let mut out = Output::create(&a.out, a.force)?;
    out.write_with(|w| {
        writeln!(
            w,
            "# spotcheck gold set from the labels of {} in {}: url<TAB>cluster",
            coders_text(&gold.coders),
            store.path().display()
        )?;
        writeln!(w, "# {}", cluster_line(gold))?;
        for (cluster, _, url) in &rows.rows {
            writeln!(w, "{url}\t{}", cluster + 1)?;
        }
        Ok(())
    })?;
    out.commit()?;
    let name = Output::name(&a.out);
    let text = format!(
        "gold-tsv: {} written to {name} (labels of {})\n{}",
        cluster_line(gold),
        coders_text(&gold.coders),
        gold_notes(gold, &rows)
    );
    Ok(Summary {
        text,
        json: gold_json("gold-tsv", &name, gold, &rows),
    })
}

/// A file name for a page from its URL: scheme dropped, characters other than letters,
/// digits, `.`, `-` and `_` replaced, at most 100 characters, `.txt` appended; made unique
/// within its folder with the document id.
fn page_file_name(url: &str, id: i64, used: &mut HashSet<String>) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let mut stem = String::new();
    for c in rest.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
            c
        } else {
            '_'
        };
        if !(c == '_' && stem.ends_with('_')) {
            stem.push(c);
        }
    }
    let stem: String = stem
        .trim_matches(|c| c == '_' || c == '.')
        .chars()
        .take(100)
        .collect();
    let stem = if stem.is_empty() { "page".into() } else { stem };
    let mut name = format!("{stem}.txt");
    if used.contains(&name) {
        name = format!("{stem}-{id}.txt");
    }
    used.insert(name.clone());
    name
}

fn export_gold_dirs(
    store: &Store,
    a: &ExportConfig,
    gold: &LabelGold,
    text_kind: TextKind,
) -> Result<Summary> {
    let dest = &a.out;
    if dest.exists() {
        if !dest.is_dir() {
            bail!(
                "{} exists and is not a directory; gold-dirs writes a new directory",
                dest.display()
            );
        }
        if fs::read_dir(dest)?.next().is_some() {
            bail!(
                "{} is not empty; spotcheck export never deletes files (choose a new \
                 directory, or empty this one)",
                dest.display()
            );
        }
    }
    let tmp = export_builder(0o777)
        .tempdir_in(parent_dir(dest)?)
        .with_context(|| format!("cannot write next to {}", dest.display()))?;
    let rows = gold_rows(store, gold)?;
    let width = gold.clusters.len().to_string().len().max(4);
    let mut used: HashMap<usize, HashSet<String>> = HashMap::new();
    let mut index =
        String::from("# page<TAB>cluster (page: the URL `spotcheck ingest DIR` gives)\n");
    let mut urls = String::from("# page<TAB>url<TAB>document id in the exported database\n");
    for (cluster, id, url) in &rows.rows {
        let folder = format!("{:0width$}", cluster + 1);
        let dir = tmp.path().join(&folder);
        if !dir.exists() {
            fs::create_dir(&dir)?;
        }
        let name = page_file_name(url, *id, used.entry(*cluster).or_default());
        let text = store.doc_text(*id, text_kind)?.unwrap_or_default();
        fs::write(dir.join(&name), text)
            .with_context(|| format!("cannot write {}/{folder}/{name}", dest.display()))?;
        index.push_str(&format!("{folder}/{name}\t{folder}\n"));
        urls.push_str(&format!(
            "{folder}/{name}\t{}\t{id}\n",
            super::tsv_cell(url)
        ));
    }
    fs::write(tmp.path().join("gold.tsv"), index)?;
    fs::write(tmp.path().join("urls.tsv"), urls)?;
    // Move the finished folder into place; an existing (empty) target is removed first.
    if dest.exists() {
        fs::remove_dir(dest).with_context(|| format!("cannot replace {}", dest.display()))?;
    }
    fs::rename(tmp.path(), dest).with_context(|| format!("cannot create {}", dest.display()))?;
    // The folder now lives at `dest`; keep the guard from deleting anything.
    let _ = tmp.keep();
    let name = dest.display().to_string();
    let text = format!(
        "gold-dirs: {} written to {name}/ (one folder per cluster, pages as {} text; \
         {name}/gold.tsv for `spotcheck ingest {name}` + `eval`, {name}/urls.tsv for the \
         original URLs; labels of {})\n{}",
        cluster_line(gold),
        match text_kind {
            TextKind::Visible => "visible",
            TextKind::Main => "main-content",
            TextKind::Content => "content",
        },
        coders_text(&gold.coders),
        gold_notes(gold, &rows)
    );
    Ok(Summary {
        text,
        json: gold_json("gold-dirs", &name, gold, &rows),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_names_are_safe_short_and_unique() {
        let mut used = HashSet::new();
        assert_eq!(
            page_file_name("https://sqlite.org/3.46/lockingv3.html", 7, &mut used),
            "sqlite.org_3.46_lockingv3.html.txt"
        );
        assert_eq!(
            page_file_name("https://sqlite.org/3.46/lockingv3.html", 9, &mut used),
            "sqlite.org_3.46_lockingv3.html-9.txt"
        );
        assert_eq!(
            page_file_name("../../etc/passwd", 1, &mut used),
            "etc_passwd.txt"
        );
        assert_eq!(page_file_name("///", 2, &mut used), "page.txt");
        let long = format!("http://x/{}", "a".repeat(500));
        assert_eq!(page_file_name(&long, 3, &mut used).len(), 104);
    }

    #[test]
    fn urls_a_gold_line_cannot_carry_are_detected() {
        assert!(tsv_safe("https://a.example/x"));
        assert!(!tsv_safe("#fragment-only"));
        assert!(!tsv_safe("a\tb"));
        assert!(!tsv_safe(""));
    }
}
