//! `text::fast_lang` against whatlang on a database's texts: every document's text (its
//! first 16 KB, as `lang::identify` reads it) and every distinct line with at least 12
//! letters (as the across-languages rule's profiles read them), each identified both ways.
//! Prints how many answers differ (the claim is none) and the CPU seconds of each way on
//! one thread.
//!
//! ```text
//! cargo run --release --example fast_lang_equal -- DB [EVERY_NTH_DOCUMENT]
//! ```

use std::collections::HashSet;
use std::time::Instant;

use spotcheck::text::fast_lang::detect_lang;
use spotcheck::text::lang::{prefix, READ_BYTES};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(db) = args.first() else {
        anyhow::bail!("usage: fast_lang_equal DB [EVERY_NTH_DOCUMENT]");
    };
    let every: i64 = args.get(1).map_or(Ok(1), |s| s.parse())?;
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let mut st = conn.prepare(
        "SELECT coalesce(c.text, d.visible_text) FROM documents d
         LEFT JOIN content_texts c ON c.doc_id = d.id WHERE d.id % ?1 = 0 ORDER BY d.id",
    )?;
    let texts: Vec<String> = st
        .query_map([every], |r| r.get::<_, String>(0))?
        .map(|t| t.map(|t| prefix(&t, READ_BYTES).to_string()))
        .collect::<Result<_, _>>()?;
    let mut seen = HashSet::new();
    let lines: Vec<String> = texts
        .iter()
        .flat_map(|t| t.lines())
        .filter(|l| l.chars().filter(|c| c.is_alphabetic()).count() >= 12)
        .filter(|l| seen.insert(l.to_string()))
        .map(str::to_string)
        .collect();
    for (what, items) in [("document texts", &texts), ("distinct lines", &lines)] {
        let t = Instant::now();
        let slow: Vec<_> = items
            .iter()
            .map(|s| whatlang::detect(s).map(|i| i.lang()))
            .collect();
        let slow_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let fast: Vec<_> = items.iter().map(|s| detect_lang(s)).collect();
        let fast_s = t.elapsed().as_secs_f64();
        let differ = slow.iter().zip(&fast).filter(|(a, b)| a != b).count();
        for (s, (a, b)) in items.iter().zip(slow.iter().zip(&fast)) {
            if a != b {
                eprintln!("differs: whatlang {a:?} fast {b:?}: {:?}", prefix(s, 200));
            }
        }
        println!(
            "{what}: {} ({} MB); answers differing: {differ}; whatlang {slow_s:.2} s, fast_lang {fast_s:.2} s ({:.1}x)",
            items.len(),
            items.iter().map(String::len).sum::<usize>() / 1_000_000,
            slow_s / fast_s.max(1e-9)
        );
    }
    Ok(())
}
