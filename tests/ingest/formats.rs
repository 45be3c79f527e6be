//! Web-archive formats in and out, on a real WARC: its HTML pages written as WET, WACZ
//! (Browsertrix layout), an AUT-style Spark CSV directory and a Parquet page table by
//! `examples/formats/make_samples.py` (warcio, pyarrow; built here, never committed) must
//! ingest to the same URLs and capture dates; damaged WACZs and a CSV with a broken row keep
//! the rest; `export --format parquet|csv` is read back by pyarrow, polars and pandas
//! (`examples/formats/check_export.py`). The Python venv comes from
//! `examples/formats/venv.sh`; without it the tests skip, saying why.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common;

const WARC: &str = "warc/real/IAH-20080430204825-00000-blackbook.warc.gz";

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The venv's python, or why there is none.
fn python() -> Result<PathBuf, String> {
    let out = Command::new("bash")
        .arg(repo("examples/formats/venv.sh"))
        .output()
        .map_err(|e| format!("cannot run examples/formats/venv.sh: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "examples/formats/venv.sh failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

struct Samples {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    warc: PathBuf,
    python: PathBuf,
}

/// The samples, made once per test run (`None` after a recorded skip).
fn samples() -> Option<&'static Samples> {
    static SAMPLES: OnceLock<Result<Samples, String>> = OnceLock::new();
    let warc = common::corpus(WARC)?;
    let made = SAMPLES.get_or_init(|| {
        let python = python()?;
        let dir = tempfile::Builder::new()
            .prefix("spotcheck-formats-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let out = dir.path().join("s");
        let run = Command::new(&python)
            .arg(repo("examples/formats/make_samples.py"))
            .arg(&warc)
            .arg(&out)
            .output()
            .map_err(|e| e.to_string())?;
        if !run.status.success() {
            return Err(format!(
                "make_samples.py failed: {}",
                String::from_utf8_lossy(&run.stderr)
            ));
        }
        Ok(Samples {
            dir: out,
            _dir: dir,
            warc: warc.clone(),
            python,
        })
    });
    match made {
        Ok(s) => Some(s),
        Err(why) => {
            // A venv that cannot be made is a skip; a sample script that fails is a bug.
            assert!(!why.starts_with("make_samples"), "{why}");
            common::skip(why);
            None
        }
    }
}

/// (url, date) → count, from `docs --format jsonl`.
fn doc_dates(db: &Path) -> BTreeMap<(String, String), usize> {
    let (out, _) = common::spotcheck_ok(&["docs", "--db", db.to_str().unwrap()]);
    let mut m = BTreeMap::new();
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let key = (
            v["url"].as_str().unwrap().to_string(),
            v["date"].as_str().unwrap_or("").to_string(),
        );
        *m.entry(key).or_default() += 1;
    }
    m
}

fn expected(s: &Samples) -> BTreeMap<(String, String), usize> {
    let text = std::fs::read_to_string(s.dir.join("expected.tsv")).unwrap();
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let (url, date) = line.split_once('\t').unwrap();
        *m.entry((url.to_string(), date.to_string())).or_default() += 1;
    }
    m
}

fn ingest(paths: &[&Path]) -> (tempfile::TempDir, PathBuf, String) {
    let (dir, db) = common::temp_db();
    let mut args = vec!["ingest", "--quiet", "--db", db.to_str().unwrap()];
    args.extend(paths.iter().map(|p| p.to_str().unwrap()));
    let (out, _) = common::spotcheck_ok(&args);
    (dir, db, out)
}

fn errors(db: &Path) -> Vec<String> {
    let (out, _) = common::spotcheck_ok(&["errors", "--db", db.to_str().unwrap()]);
    out.lines().map(str::to_string).collect()
}

fn same_pages_as_the_warc(sample: &str) {
    let Some(s) = samples() else { return };
    let want = expected(s);
    assert!(want.len() > 100, "the WARC has {} HTML pages", want.len());
    let (_d, db, _) = ingest(&[&s.dir.join(sample)]);
    assert_eq!(doc_dates(&db), want, "{sample}");
    assert_eq!(errors(&db), Vec::<String>::new(), "{sample}");
}

#[test]
fn wet_ingests_to_the_warcs_html_pages() {
    same_pages_as_the_warc("pages.wet.gz");
}

#[test]
fn aut_csv_directory_ingests_to_the_warcs_html_pages() {
    same_pages_as_the_warc("aut-webpages");
}

#[test]
fn parquet_page_table_ingests_to_the_warcs_html_pages() {
    same_pages_as_the_warc("pages.parquet");
}

#[test]
fn wacz_ingests_to_the_same_documents_as_its_warc_with_page_titles() {
    let Some(s) = samples() else { return };
    let (_d, warc_db, _) = ingest(&[&s.warc]);
    let (_e, wacz_db, _) = ingest(&[&s.dir.join("pages.wacz")]);
    let from_wacz = doc_dates(&wacz_db);
    assert_eq!(from_wacz, doc_dates(&warc_db));
    // Every HTML page is among them, with its date.
    for key in expected(s).keys() {
        assert!(from_wacz.contains_key(key), "{key:?}");
    }
    assert_eq!(errors(&wacz_db), Vec::<String>::new());
    // A second ingest of the same WACZ adds nothing.
    let (out, _) = common::spotcheck_ok(&[
        "ingest",
        "--quiet",
        "--db",
        wacz_db.to_str().unwrap(),
        s.dir.join("pages.wacz").to_str().unwrap(),
    ]);
    assert!(out.contains("1 already present"), "{out}");
}

#[test]
fn damaged_waczs_report_the_entry_and_keep_the_rest() {
    let Some(s) = samples() else { return };
    let (_d, warc_db, _) = ingest(&[&s.warc]);
    let all = doc_dates(&warc_db);
    for (file, reason) in [
        (
            "damaged-hash.wacz",
            "pages/pages.jsonl: hash mismatch: datapackage.json says sha256:",
        ),
        ("damaged-entry.wacz", "pages/pages.jsonl: bad zip entry"),
    ] {
        let (_e, db, _) = ingest(&[&s.dir.join(file)]);
        let errs = errors(&db);
        assert!(
            errs.iter().any(|e| e.contains(file) && e.contains(reason)),
            "{file}: {errs:?}"
        );
        assert_eq!(doc_dates(&db), all, "{file}: the WARC inside still goes in");
    }
}

#[test]
fn a_csv_with_a_broken_row_reports_it_and_keeps_the_rest() {
    let Some(s) = samples() else { return };
    let (_d, db, _) = ingest(&[&s.dir.join("broken-row.csv")]);
    let errs = errors(&db);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("broken-row.csv")
            && errs[0].contains("row 2 (line 3): 3 fields, expected 4"),
        "{errs:?}"
    );
    assert_eq!(doc_dates(&db).len(), 5);
}

#[test]
fn formats_mix_in_one_ingest_and_dates_filter() {
    let Some(s) = samples() else { return };
    let (_d, db, _) = ingest(&[&s.dir.join("pages.wet.gz"), &s.dir.join("pages.parquet")]);
    let n = expected(s).values().sum::<usize>();
    let (out, _) = common::spotcheck_ok(&["docs", "--db", db.to_str().unwrap()]);
    assert_eq!(out.lines().count(), 2 * n);
    let (late, _) = common::spotcheck_ok(&[
        "docs",
        "--db",
        db.to_str().unwrap(),
        "--since",
        "2008-04-30T20:50:00Z",
    ]);
    let late: Vec<&str> = late.lines().collect();
    assert!(!late.is_empty() && late.len() < 2 * n, "{}", late.len());
    assert!(late
        .iter()
        .all(|l| l.contains("\"date\":\"2008-04-30T2") && !l.contains("T20:4")));
}

#[test]
fn exports_are_read_back_by_pyarrow_polars_and_pandas() {
    let Some(s) = samples() else { return };
    let (dir, db, _) = ingest(&[&s.warc]);
    let db = db.to_str().unwrap();
    common::spotcheck_ok(&["detect", "--db", db]);
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (format, what, file) in [
        ("parquet", "docs", "docs.parquet"),
        ("csv", "docs", "docs.csv"),
        ("parquet", "pairs", "pairs.parquet"),
        ("csv", "clusters", "clusters.csv"),
    ] {
        common::spotcheck_ok(&[
            "export",
            "--db",
            db,
            "--format",
            format,
            "--what",
            what,
            "--out",
            &out(file),
        ]);
    }
    let check = Command::new(&s.python)
        .arg(repo("examples/formats/check_export.py"))
        .args(["docs.parquet", "docs.csv", "pairs.parquet", "clusters.csv"].map(out))
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "check_export.py: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(said.starts_with("docs 177 pairs "), "{said}");
}
