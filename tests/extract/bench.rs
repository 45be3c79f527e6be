//! Throughput of extraction on the news pages (ignored by default; run in release mode):
//! `cargo test --release --test extract -- --ignored --nocapture bench::`.
//! It prints numbers and asserts nothing about time (machines differ).

use std::path::Path;
use std::time::Instant;

use spotcheck::extract::main_content::{main_text, MainLimits};
use spotcheck::extract::visible::{visible_text, visible_text_html5ever, VisibleLimits};
use spotcheck::extract::{extract, ExtractOptions};

/// The news pages, or up to 3,000 `.html` files of the folder `SPOTCHECK_BENCH_PAGES`
/// names (e.g. `~/.cache/spotcheck/dd-bench/html`).
fn news_pages() -> Option<Vec<Vec<u8>>> {
    if let Some(dir) = std::env::var_os("SPOTCHECK_BENCH_PAGES") {
        let mut paths = Vec::new();
        let mut stack = vec![std::path::PathBuf::from(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("bench dir") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "html") {
                    paths.push(p);
                }
            }
        }
        paths.sort();
        let step = (paths.len() / 3000).max(1);
        let pages = paths
            .iter()
            .step_by(step)
            .map(|p| std::fs::read(p).expect("read"));
        return Some(pages.collect());
    }
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/news"
    ));
    if !dir.is_dir() {
        if std::env::var("SPOTCHECK_REQUIRE_CORPUS").as_deref() == Ok("1") {
            panic!("corpus not found at {}", dir.display());
        }
        crate::common::skip(&format!("corpus not found at {}", dir.display()));
        return None;
    }
    let mut pages = Vec::new();
    for sub in ["newspaper", "readability"] {
        let mut paths: Vec<_> = std::fs::read_dir(dir.join(sub))
            .expect("news dir")
            .map(|e| e.expect("entry").path())
            .collect();
        paths.sort();
        for p in paths {
            pages.push(std::fs::read(&p).expect("read page"));
        }
    }
    Some(pages)
}

/// CPU seconds used by this process so far (all threads), from `/proc/self/stat`; the
/// machine is shared, so wall time alone would measure the neighbours too.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

struct Clock {
    wall: Instant,
    cpu: Option<f64>,
}

fn start() -> Clock {
    Clock {
        wall: Instant::now(),
        cpu: cpu_seconds(),
    }
}

fn report(what: &str, bytes: usize, pages: usize, clock: Clock) {
    let wall = clock.wall.elapsed().as_secs_f64();
    let mb = bytes as f64 / 1e6;
    let cpu = clock.cpu.zip(cpu_seconds()).map(|(a, b)| b - a);
    eprintln!(
        "{what}: {mb:.1} MB; wall {wall:.2} s = {:.1} MB/s; cpu {} ({:.2} ms/page wall)",
        mb / wall,
        cpu.map_or("n/a".to_owned(), |c| format!(
            "{c:.2} s = {:.1} MB/s",
            mb / c
        )),
        1e3 * wall / pages as f64
    );
}

#[test]
#[ignore = "benchmark: run explicitly in release mode"]
fn extraction_throughput_on_news_pages() {
    let Some(pages) = news_pages() else { return };
    let html: Vec<String> = pages
        .iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let bytes: usize = html.iter().map(String::len).sum();
    eprintln!("{} pages, {:.1} MB of HTML", html.len(), bytes as f64 / 1e6);

    let rounds = 10;
    let clock = start();
    let mut sink = 0usize;
    for _ in 0..rounds {
        for h in &html {
            sink += visible_text(h, VisibleLimits::default()).text.len();
        }
    }
    report(
        "visible text (scanner)",
        bytes * rounds,
        html.len() * rounds,
        clock,
    );

    let clock = start();
    for _ in 0..rounds {
        for h in &html {
            sink += visible_text_html5ever(h, VisibleLimits::default())
                .text
                .len();
        }
    }
    report(
        "visible text (html5ever tokenizer, the reference)",
        bytes * rounds,
        html.len() * rounds,
        clock,
    );

    let no_main = ExtractOptions {
        main_content: false,
        ..ExtractOptions::default()
    };
    let clock = start();
    for _ in 0..rounds {
        for p in &pages {
            sink += extract(p, None, false, &no_main)
                .expect("ok")
                .visible_text
                .len();
        }
    }
    report(
        "extract, no main content",
        bytes * rounds,
        pages.len() * rounds,
        clock,
    );

    let rounds = 2;
    let clock = start();
    for _ in 0..rounds {
        for h in &html {
            sink += main_text(h, MainLimits::default())
                .expect("no panic")
                .map_or(0, |t| t.len());
        }
    }
    report(
        "main content (dom_smoothie)",
        bytes * rounds,
        html.len() * rounds,
        clock,
    );

    let clock = start();
    for _ in 0..rounds {
        for p in &pages {
            sink += extract(p, None, false, &ExtractOptions::default())
                .expect("ok")
                .visible_text
                .len();
        }
    }
    report("full extract", bytes * rounds, pages.len() * rounds, clock);
    assert!(sink > 0);
}
