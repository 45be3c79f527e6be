//! Language identification measured on a database's content texts: how many pages the
//! English function-word shortcut decides, where its answer differs from whatlang's, the
//! CPU time of both ways (one thread, each text identified `REPS` times), and, with a
//! `gold.tsv` (url, cluster), how many pages are identified in another language than the
//! majority of their cluster (the misidentification count of BENCHMARKS.md issue 14).
//!
//! ```text
//! cargo run --release --example lang_cost -- DB [GOLD.tsv]
//! ```

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use spotcheck::text::lang::{english_by_function_words, identify, identify_by_trigrams};

const REPS: usize = 3;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(db) = args.first() else {
        anyhow::bail!("usage: lang_cost DB [GOLD.tsv]");
    };
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let mut st = conn.prepare(
        "SELECT d.url, coalesce(c.text, d.visible_text) FROM documents d
         LEFT JOIN content_texts c ON c.doc_id = d.id ORDER BY d.id",
    )?;
    let docs: Vec<(String, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let time = |f: &dyn Fn(&str) -> &'static str| {
        let t = Instant::now();
        let mut out = Vec::new();
        for _ in 0..REPS {
            out = docs.iter().map(|(_, text)| f(text)).collect();
        }
        (out, t.elapsed().as_secs_f64() / REPS as f64)
    };
    let (old, old_s) = time(&identify_by_trigrams);
    let (new, new_s) = time(&identify);
    let (_, old_again_s) = time(&identify_by_trigrams);
    let shortcut = docs
        .iter()
        .filter(|(_, t)| english_by_function_words(t))
        .count();
    println!(
        "{} pages; shortcut decides {shortcut}; whatlang only {:.3} s / {:.3} s (before/after the new run), with shortcut {:.3} s (one thread, mean of {REPS})",
        docs.len(),
        old_s,
        old_again_s,
        new_s
    );
    let count = |langs: &[&'static str]| {
        let mut m: BTreeMap<&'static str, usize> = BTreeMap::new();
        for l in langs {
            *m.entry(l).or_default() += 1;
        }
        m
    };
    println!("whatlang only: {:?}", count(&old));
    println!("with shortcut: {:?}", count(&new));
    for (i, (url, _)) in docs.iter().enumerate() {
        if old[i] != new[i] {
            println!("  differs: {url}: {} -> {}", old[i], new[i]);
        }
    }
    if let Some(gold) = args.get(1) {
        let cluster: HashMap<String, String> = std::fs::read_to_string(gold)?
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let (u, c) = l.split_once('\t')?;
                Some((u.to_string(), c.to_string()))
            })
            .collect();
        for (name, langs) in [("whatlang only", &old), ("with shortcut", &new)] {
            let mut votes: HashMap<&str, HashMap<&str, usize>> = HashMap::new();
            for (i, (url, _)) in docs.iter().enumerate() {
                if let Some(c) = cluster.get(url) {
                    *votes.entry(c).or_default().entry(langs[i]).or_default() += 1;
                }
            }
            let majority: HashMap<&str, &str> = votes
                .iter()
                .filter_map(|(c, v)| {
                    let (l, _) = v
                        .iter()
                        .max_by_key(|(l, n)| (**n, std::cmp::Reverse(**l)))?;
                    Some((*c, *l))
                })
                .collect();
            let wrong = docs
                .iter()
                .enumerate()
                .filter(|(i, (url, _))| {
                    cluster
                        .get(url)
                        .is_some_and(|c| majority.get(c.as_str()) != Some(&langs[*i]))
                })
                .count();
            println!("{name}: {wrong} pages identified unlike their cluster's majority");
        }
    }
    Ok(())
}
