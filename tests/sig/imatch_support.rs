//! Helpers shared by the I-Match integration tests: locating the news corpus (skipping or
//! panicking per `SPOTCHECK_REQUIRE_CORPUS`) and a crude tag stripper, so the tests do not
//! depend on the real extractor being written in parallel.

use std::path::{Path, PathBuf};

pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")).join("news");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("SPOTCHECK_REQUIRE_CORPUS").as_deref() == Ok("1") {
        panic!(
            "corpus not found at {} but SPOTCHECK_REQUIRE_CORPUS=1",
            dir.display()
        );
    }
    crate::common::skip(&format!("corpus not found at {}", dir.display()));
    None
}

/// Crude visible text: drop tags, comments and the contents of script/style/noscript.
/// (The real extractor lives in `extract/`; this only needs words from real pages.)
pub fn crude_text(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let bytes = html.as_bytes();
    let mut out = String::with_capacity(html.len() / 2);
    let mut i = 0;
    let mut text_start = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        out.push_str(&html[text_start..i]);
        out.push(' ');
        let rest = &lower[i..];
        let skip_to = if rest.starts_with("<!--") {
            rest.find("-->").map(|e| i + e + 3)
        } else if let Some(tag) = ["script", "style", "noscript"]
            .iter()
            .find(|t| rest[1..].starts_with(**t))
        {
            let close = format!("</{tag}");
            rest.find(&close)
                .and_then(|e| lower[i + e..].find('>').map(|g| i + e + g + 1))
        } else {
            rest.find('>').map(|e| i + e + 1)
        };
        i = skip_to.unwrap_or(bytes.len());
        text_start = i;
    }
    if text_start < bytes.len() {
        out.push_str(&html[text_start..]);
    }
    out
}

/// Visible text of every news page, sorted by path, with the paths.
pub fn load_pages(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut paths = Vec::new();
    for sub in ["newspaper", "readability"] {
        if let Ok(entries) = std::fs::read_dir(dir.join(sub)) {
            paths.extend(entries.flatten().map(|e| e.path()));
        }
    }
    paths.sort();
    paths
        .iter()
        .filter_map(|p| Some((p.clone(), std::fs::read(p).ok()?)))
        .map(|(p, b)| (p, crude_text(&String::from_utf8_lossy(&b))))
        .collect()
}
