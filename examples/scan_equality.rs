//! Equality of the visible-text scanner and html5ever's tokenizer on real pages: every HTML
//! page of the named inputs (folders, WARC/ARC, JSONL, as `spotcheck ingest` reads them) is
//! decoded as ingest decodes it and passed through both; text, title, first h1, truncation
//! flag, element count and depth must be equal. Prints the counts (pages compared, identical,
//! different, declined by the scanner and so run by html5ever alone) and the summed time
//! of each path; exits non-zero on any difference.
//!
//! Run: `cargo run --release --example scan_equality -- PATH...`
//! (e.g. `~/.cache/spotcheck/dd-bench/html ~/.cache/spotcheck/dd-big/html
//! ../shared/corpus/news`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use spotcheck::extract::charset;
use spotcheck::extract::scan::{scan_visible_text, Declined};
use spotcheck::extract::visible::{visible_text_html5ever, Visible, VisibleLimits};
use spotcheck::ingest::{self, ReadItem, ReaderOptions};

#[derive(Default)]
struct Counts {
    pages: AtomicU64,
    identical: AtomicU64,
    different: AtomicU64,
    declined_nul: AtomicU64,
    truncated: AtomicU64,
    bytes: AtomicU64,
    html5ever_ns: AtomicU64,
    scanner_ns: AtomicU64,
}

/// The first field in which two results differ.
fn first_difference(a: &Visible, b: &Visible) -> &'static str {
    if a.text != b.text {
        "text"
    } else if a.title != b.title {
        "title"
    } else if a.first_h1 != b.first_h1 {
        "first_h1"
    } else if a.truncated != b.truncated {
        "truncated"
    } else if a.elements != b.elements {
        "elements"
    } else {
        "max_depth"
    }
}

fn compare(url: &str, body: &[u8], header_charset: Option<&str>, counts: &Counts) {
    let html = charset::decode(body, header_charset, true).text;
    let limits = VisibleLimits::default();
    let t0 = Instant::now();
    let reference = visible_text_html5ever(&html, limits);
    let t1 = Instant::now();
    let fast = scan_visible_text(&html, limits);
    let t2 = Instant::now();
    counts.pages.fetch_add(1, Ordering::Relaxed);
    counts.bytes.fetch_add(html.len() as u64, Ordering::Relaxed);
    counts
        .html5ever_ns
        .fetch_add((t1 - t0).as_nanos() as u64, Ordering::Relaxed);
    counts
        .scanner_ns
        .fetch_add((t2 - t1).as_nanos() as u64, Ordering::Relaxed);
    if reference.truncated {
        counts.truncated.fetch_add(1, Ordering::Relaxed);
    }
    match fast {
        Ok(fast) if fast == reference => {
            counts.identical.fetch_add(1, Ordering::Relaxed);
        }
        Ok(fast) => {
            counts.different.fetch_add(1, Ordering::Relaxed);
            eprintln!(
                "DIFFERENT {url}: {} (html5ever {} text bytes, scanner {})",
                first_difference(&fast, &reference),
                reference.text.len(),
                fast.text.len()
            );
        }
        Err(Declined::NulCharacter) => {
            counts.declined_nul.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn run(path: &PathBuf) -> Result<Counts, String> {
    let inputs = ingest::expand_inputs(std::slice::from_ref(path)).map_err(|e| e.to_string())?;
    let counts = Counts::default();
    let opts = ReaderOptions::default();
    // Single pages are compared in parallel file by file; crawl files in batches of records.
    inputs
        .par_iter()
        .try_for_each(|input| -> Result<(), String> {
            let reader = ingest::open_reader(input, &opts).map_err(|e| e.to_string())?;
            let mut batch = Vec::new();
            let flush = |batch: &mut Vec<_>| {
                std::mem::take(batch).into_par_iter().for_each(
                    |(url, body, charset): (String, Vec<u8>, Option<String>)| {
                        compare(&url, &body, charset.as_deref(), &counts)
                    },
                );
            };
            for item in reader {
                let ReadItem::Record(rec) = item else {
                    continue;
                };
                if rec.body_is_text {
                    continue;
                }
                if let Some(body) = rec.body {
                    batch.push((rec.url.unwrap_or_default(), body, rec.header_charset));
                    if batch.len() >= 256 {
                        flush(&mut batch);
                    }
                }
            }
            flush(&mut batch);
            Ok(())
        })?;
    Ok(counts)
}

fn main() -> Result<(), String> {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        return Err("usage: scan_equality PATH...".into());
    }
    println!(
        "| input | pages | identical | different | declined (NUL) | truncated | MB | html5ever s | scanner s | speed-up |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut any_different = false;
    for path in &paths {
        let c = run(path)?;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let (h, s) = (
            get(&c.html5ever_ns) as f64 / 1e9,
            get(&c.scanner_ns) as f64 / 1e9,
        );
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.0} | {h:.2} | {s:.2} | {:.1}x |",
            path.display(),
            get(&c.pages),
            get(&c.identical),
            get(&c.different),
            get(&c.declined_nul),
            get(&c.truncated),
            get(&c.bytes) as f64 / 1e6,
            h / s.max(1e-9)
        );
        any_different |= get(&c.different) > 0;
    }
    if any_different {
        return Err("the scanner differs from html5ever on some pages".into());
    }
    Ok(())
}
