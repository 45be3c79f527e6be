//! What the detectors see on the pages of some languages in a database: per page, its
//! identified language, its content text's length, tokens and SpotSigs signatures as
//! extracted (default parameters, before the collection's idf window, which drops every
//! signature no other page has).
//!
//! ```text
//! cargo run --release --example lang_pages -- DB zh ja th   # pages identified as these
//! cargo run --release --example lang_pages -- DB zh --text  # …and their first 300 chars
//! ```

use std::path::Path;

use spotcheck::sig::spotsigs::{extract, SpotSigParams};
use spotcheck::store::Store;
use spotcheck::text::tokenize;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((db, langs)) = args.split_first() else {
        anyhow::bail!("usage: lang_pages DB LANG... [--text]");
    };
    let show_text = langs.iter().any(|a| a == "--text");
    let mut store = Store::open_existing(Path::new(db))?;
    store.fill_missing_langs()?;
    let mut docs = Vec::new();
    store.for_each_document(|d| {
        let lang = d.lang.clone().unwrap_or_default();
        if langs.contains(&lang) {
            docs.push((d.id, lang));
        }
        Ok(())
    })?;
    let params = SpotSigParams::default();
    println!("id\tlang\tchars\ttokens\tspotsigs\tdistinct\turl");
    for (id, lang) in docs {
        let Some(d) = store.review_document(id)? else {
            continue;
        };
        let text = d.content_text.as_deref().unwrap_or(&d.visible_text);
        let tokens = tokenize(text);
        let sigs = extract(&tokens, &params);
        let distinct: std::collections::HashSet<&str> =
            sigs.iter().map(|s| s.sig.as_str()).collect();
        println!(
            "{id}\t{lang}\t{}\t{}\t{}\t{}\t{}",
            text.chars().count(),
            tokens.len(),
            sigs.len(),
            distinct.len(),
            d.url
        );
        if show_text {
            let head: String = text.chars().take(300).collect();
            println!(
                "    {}",
                spotcheck::text::strip_escape_sequences(&head).replace('\n', " / ")
            );
        }
    }
    Ok(())
}
