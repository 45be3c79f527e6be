//! Ingest benchmark: spotcheck's ingest of one WARC against Python's warcio merely
//! iterating the same file and reading every payload, in the same run, with wall time and
//! peak memory (`/usr/bin/time`). Prints Markdown rows for BENCHMARKS.md.
//!
//! Run: `cargo build --release && cargo run --release --example bench_ingest -- CRAWL.warc.gz`
//! (`--visible-only` skips the main-content run). Prints the load average before and after,
//! and the CPU time of each run beside its wall time.
//! Needs python3 with warcio (`pip install warcio`) and GNU time at /usr/bin/time.

use std::path::{Path, PathBuf};
use std::process::Command;

const WARCIO: &str = r#"
import sys
from warcio.archiveiterator import ArchiveIterator
records = payload = 0
with open(sys.argv[1], 'rb') as f:
    for rec in ArchiveIterator(f):
        records += 1
        payload += len(rec.content_stream().read())
print(records, payload)
"#;

struct Measured {
    seconds: f64,
    /// User + system CPU seconds (all threads): less sensitive than wall time to other
    /// work on a shared machine.
    cpu_seconds: f64,
    peak_mb: f64,
    stdout: String,
}

/// Runs `cmd` under GNU time and returns wall seconds, peak RSS and stdout.
fn measure(cmd: Command) -> Result<Measured, String> {
    let mut timed = Command::new("/usr/bin/time");
    timed
        .arg("-f")
        .arg("TIME %e %M %U %S")
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            timed.env(k, v);
        }
    }
    let out = timed.output().map_err(|e| format!("cannot run: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("command failed: {stderr}"));
    }
    let line = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("TIME "))
        .ok_or("no timing line")?;
    let mut parts = line.split_whitespace().skip(1);
    let seconds: f64 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or("bad time")?;
    let kb: f64 = parts.next().and_then(|s| s.parse().ok()).ok_or("bad rss")?;
    let mut cpu = || -> Result<f64, String> {
        parts
            .next()
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| "bad cpu time".to_string())
    };
    let cpu_seconds = cpu()? + cpu()?;
    Ok(Measured {
        seconds,
        cpu_seconds,
        peak_mb: kb / 1024.0,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
    })
}

fn spotcheck_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/spotcheck")
}

fn ingest(crawl: &Path, db: &Path, main_content: bool) -> Result<(Measured, u64), String> {
    let _ = std::fs::remove_file(db);
    let mut c = Command::new(spotcheck_bin());
    c.args(["ingest", "--quiet", "--json", "--db"])
        .arg(db)
        .arg(crawl);
    if !main_content {
        c.arg("--no-main");
    }
    let m = measure(c)?;
    let v: serde_json::Value = serde_json::from_str(m.stdout.trim()).map_err(|e| e.to_string())?;
    let docs = v["documents_added"].as_u64().unwrap_or(0);
    Ok((m, docs))
}

/// The 1-minute load average (the machine may be shared; report it with the numbers).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "n/a".into())
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `--visible-only` skips the (slow) main-content run.
    let visible_only = args.iter().any(|a| a == "--visible-only");
    let crawl = PathBuf::from(
        args.iter()
            .find(|a| !a.starts_with("--"))
            .ok_or("usage: bench_ingest [--visible-only] CRAWL.warc.gz")?,
    );
    let size_mb = std::fs::metadata(&crawl).map_err(|e| e.to_string())?.len() as f64 / 1e6;
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    // Warm the page cache so that no contestant pays for the first read from disk.
    std::fs::read(&crawl).map_err(|e| e.to_string())?;

    let load_before = load_average();
    let mut py = Command::new("python3");
    py.arg("-c").arg(WARCIO).arg(&crawl);
    let warcio = measure(py)?;
    let (visible, docs) = ingest(&crawl, &tmp.path().join("visible.db"), false)?;
    let full = if visible_only {
        None
    } else {
        Some(ingest(&crawl, &tmp.path().join("full.db"), true)?.0)
    };

    println!(
        "file: {} ({size_mb:.1} MB), HTML documents: {docs}; load average {load_before} before, {} after",
        crawl.display(),
        load_average()
    );
    println!(
        "| run | seconds | MB/s (file) | pages/s | peak RSS MB | speed vs warcio | CPU s (user+sys) |"
    );
    println!("|---|---|---|---|---|---|---|");
    let row = |name: &str, m: &Measured| {
        println!(
            "| {name} | {:.2} | {:.1} | {:.0} | {:.0} | {:.2}x | {:.2} |",
            m.seconds,
            size_mb / m.seconds,
            docs as f64 / m.seconds,
            m.peak_mb,
            warcio.seconds / m.seconds,
            m.cpu_seconds
        );
    };
    row("warcio: iterate + read payloads", &warcio);
    row("spotcheck ingest --no-main (visible text)", &visible);
    if let Some(full) = full {
        row("spotcheck ingest (visible + main content)", &full);
        println!(
            "main-content extraction costs {:.2} s extra ({:.0}% of the visible-text ingest)",
            full.seconds - visible.seconds,
            100.0 * (full.seconds - visible.seconds) / visible.seconds
        );
    }
    Ok(())
}
