//! Hostile input: random bytes and random mutations of real news pages never panic, never
//! fail, and always give clean UTF-8 text (no control characters but `\n`, trimmed lines, at
//! most one blank line in a row).

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use spotcheck::extract::{extract, ExtractOptions, Extracted};

/// `html`: lines are also trimmed (plain text keeps its indentation).
fn assert_clean(x: &Extracted, html: bool) {
    for text in [Some(&x.title), Some(&x.visible_text), x.main_text.as_ref()]
        .into_iter()
        .flatten()
    {
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "control character in {text:?}"
        );
    }
    assert!(!x.title.contains('\n'));
    if html {
        assert!(!x.visible_text.contains("\n\n\n"));
        for line in x.visible_text.lines() {
            assert_eq!(line, line.trim(), "untrimmed line {line:?}");
        }
    }
}

/// A few real pages to mutate (empty when the corpus is absent).
fn seeds() -> &'static Vec<Vec<u8>> {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/corpus/news"
        ));
        if !dir.is_dir() {
            if std::env::var("SPOTCHECK_REQUIRE_CORPUS").as_deref() == Ok("1") {
                panic!("corpus not found at {}", dir.display());
            }
            eprintln!("skipping real-page mutations: corpus not found");
            return Vec::new();
        }
        [
            "newspaper/cnn_article.html",
            "newspaper/chinese_article.html",
            "newspaper/japanese_article.html",
            "readability/qq.html",
            "readability/001.html",
        ]
        .iter()
        .filter_map(|f| std::fs::read(dir.join(f)).ok())
        .collect()
    })
}

/// Fragments that stress the tokenizer and the extractor when spliced into a page.
const FRAGMENTS: &[&str] = &[
    "<script>",
    "</script>",
    "<style>",
    "<!--",
    "-->",
    "<svg>",
    "</svg>",
    "<title>",
    "<textarea>",
    "<plaintext>",
    "<![CDATA[",
    "<template>",
    "<pre>",
    "&#27;[31m",
    "\u{1b}[2J",
    "&#x202e;",
    "<div><div><div><div>",
    "</div></div></div>",
    "<table><tr><td>",
    "<meta charset=shift_jis>",
    "\u{0}",
    "\r",
    "\u{feff}",
];

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    FlipByte(usize, u8),
    Splice(usize, usize),
    DeleteRange(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::FlipByte(at, b)),
        (any::<usize>(), 0..FRAGMENTS.len()).prop_map(|(at, f)| Mutation::Splice(at, f)),
        (any::<usize>(), 0usize..5000).prop_map(|(at, n)| Mutation::DeleteRange(at, n)),
    ]
}

fn apply(page: &mut Vec<u8>, m: &Mutation) {
    if page.is_empty() {
        return;
    }
    match *m {
        Mutation::Truncate(at) => page.truncate(at % page.len()),
        Mutation::FlipByte(at, b) => {
            let i = at % page.len();
            page[i] = b;
        }
        Mutation::Splice(at, f) => {
            let i = at % page.len();
            page.splice(i..i, FRAGMENTS[f].bytes());
        }
        Mutation::DeleteRange(at, n) => {
            let i = at % page.len();
            let end = (i + n).min(page.len());
            page.drain(i..end);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_extract_cleanly(
        body in proptest::collection::vec(any::<u8>(), 0..4096),
        is_text in any::<bool>(),
        header in proptest::option::of(prop_oneof![
            Just("utf-8"), Just("shift_jis"), Just("utf-16le"), Just("bogus"), Just("gbk")
        ]),
    ) {
        let x = extract(&body, header, is_text, &ExtractOptions::default())
            .expect("random bytes never fail");
        assert_clean(&x, !is_text);
    }

    #[test]
    fn random_markup_soup_extracts_cleanly(
        parts in proptest::collection::vec(
            prop_oneof![
                (0..FRAGMENTS.len()).prop_map(|i| FRAGMENTS[i].to_owned()),
                "[a-z <>/=\"'&#;!\\-\\n\\t\\x00-\\x1f\\u{80}-\\u{9f}]{0,12}",
            ],
            0..64,
        ),
    ) {
        let body = parts.concat();
        let x = extract(body.as_bytes(), None, false, &ExtractOptions::default())
            .expect("markup soup never fails");
        assert_clean(&x, true);
    }
}

proptest! {
    // The main-content extractor builds a DOM: fewer, costlier cases.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn mutated_real_pages_extract_cleanly(
        seed in any::<usize>(),
        mutations in proptest::collection::vec(mutation(), 1..12),
    ) {
        let seeds = seeds();
        if seeds.is_empty() {
            return Ok(());
        }
        let mut page = seeds[seed % seeds.len()].clone();
        for m in &mutations {
            apply(&mut page, m);
        }
        let x = extract(&page, None, false, &ExtractOptions::default())
            .expect("mutated pages never fail");
        assert_clean(&x, true);
    }
}
