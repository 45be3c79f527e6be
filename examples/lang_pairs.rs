//! Why two documents are or are not a pair across languages: for each pair of URLs read
//! from standard input (`URL<TAB>URL` per line, e.g. `spotcheck pairs --format tsv`'s
//! lines), their stored languages, their language profiles (units per language, lines
//! identified one by one) and the verdict of `text::lang::across_languages`.
//!
//! ```text
//! spotcheck pairs --db DB --method spotsigs --format tsv | tail -n +2 |
//!     cargo run --release --example lang_pairs -- DB
//! ```

use std::io::BufRead;
use std::path::Path;

use spotcheck::review::sanitize::sanitize_line;
use spotcheck::store::Store;
use spotcheck::text::lang::{across_languages, Profile};

fn main() -> anyhow::Result<()> {
    let Some(db) = std::env::args().nth(1) else {
        anyhow::bail!("usage: lang_pairs DB < pairs.tsv");
    };
    let store = Store::open_existing(Path::new(&db))?;
    let mut by_url = std::collections::HashMap::new();
    store.for_each_document(|d| {
        by_url.insert(d.url.clone(), (d.id, d.lang.clone().unwrap_or_default()));
        Ok(())
    })?;
    let show = |p: &Profile| {
        p.languages()
            .iter()
            .map(|(c, u)| format!("{c}:{u}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let mut f = line.split('\t');
        let (Some(a), Some(b)) = (f.next(), f.next()) else {
            continue;
        };
        let (Some(da), Some(db)) = (by_url.get(a), by_url.get(b)) else {
            continue;
        };
        let texts = store.language_texts(&[da.0, db.0])?;
        let [(_, ta), (_, tb)] = texts.as_slice() else {
            continue;
        };
        let (pa, pb) = (Profile::of(ta), Profile::of(tb));
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}",
            da.1,
            db.1,
            across_languages(&da.1, &pa, &db.1, &pb),
            show(&pa),
            show(&pb),
            // URLs are crawled text: no control byte reaches the terminal.
            sanitize_line(a),
            sanitize_line(b)
        );
    }
    Ok(())
}
