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
            crate::common::skip("real-page mutations: corpus not found");
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
        let x = extract(&body, header, is_text, &with_main())
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
        let x = extract(body.as_bytes(), None, false, &with_main())
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
        let x = extract(&page, None, false, &with_main())
            .expect("mutated pages never fail");
        assert_clean(&x, true);
    }
}

// The scanner (the fast path of the visible-text pass) must give exactly what html5ever's
// tokenizer gives: text, title, first h1, truncation flag, element count and depth.

use spotcheck::extract::scan::{scan_visible_text, Declined};
use spotcheck::extract::visible::{visible_text_html5ever, VisibleLimits};

/// Pieces of markup where the HTML tokenizer is subtle: every raw-text element, script
/// escapes, comment and CDATA ends, character references with and without `;`, attributes
/// that hide, duplicate and malformed attributes, self-closing flags, newlines.
const SCAN_FRAGMENTS: &[&str] = &[
    "<script>",
    "</script>",
    "<SCRIPT type=x>",
    "</script ",
    "</script/",
    "</scripts>",
    "<script/>",
    "<!--",
    "-->",
    "--!>",
    "<!-->",
    "<!--->",
    "--",
    "-",
    "<",
    ">",
    "</",
    "<!",
    "<?",
    "<![CDATA[",
    "]]>",
    "]]",
    "]",
    "<!DOCTYPE html>",
    "<!doctype",
    "<style>",
    "</style>",
    "<title>",
    "</title>",
    "</TITLE >",
    "<title/>",
    "<textarea>",
    "</textarea>",
    "<xmp>",
    "</xmp>",
    "<noscript>",
    "</noscript>",
    "<iframe>",
    "</iframe>",
    "<noembed>",
    "</noembed>",
    "<noframes>",
    "<plaintext>",
    "<svg>",
    "</svg>",
    "<svg/>",
    "<math>",
    "</math>",
    "<template>",
    "</template>",
    "<select>",
    "</select>",
    "<option>",
    "<object>",
    "</object>",
    "<datalist>",
    "<div>",
    "</div>",
    "<div/>",
    "<DIV HIDDEN>",
    "<div hidden>",
    "<div style='display:none'>",
    "<div style=display&colon;none>",
    "<div style='display:none'style='display:block'>",
    "<div style = display:none >",
    "<div style='display:block' style='display:none'>",
    "<div =hidden>",
    "<div a='",
    "<div style='display:&nbspnone'>",
    "<div style=\"display:&nbsp;none\">",
    "<span style=\"visibility: hidden !important\">",
    "</span>",
    "<p>",
    "</p>",
    "<p hidden>",
    "<h1>",
    "</h1>",
    "<h1 hidden>",
    "<h2>",
    "</h2>",
    "<pre>",
    "</pre>",
    "<br>",
    "<br/>",
    "</br>",
    "<hr>",
    "<td>",
    "<th>",
    "<tr>",
    "<table>",
    "</table>",
    "<li>",
    "<ul>",
    "</ul>",
    "<a href=x>",
    "<a href=x/>",
    "</a>",
    "<b>",
    "</b>",
    "<img src=x alt='a>b'>",
    "<input value=\"&amp;\">",
    "<x-custom>",
    "</X-CUSTOM>",
    "<body>",
    "<html>",
    "</body>",
    "&amp;",
    "&amp",
    "&AMP;",
    "&lt;",
    "&gt",
    "&nbsp;",
    "&#38;",
    "&#x26;",
    "&#X26",
    "&#",
    "&#x",
    "&#0;",
    "&#x80;",
    "&#x9d;",
    "&#13;",
    "&#10;",
    "&#xD800;",
    "&#x110000;",
    "&notin;",
    "&notit;",
    "&noti",
    "&eacute",
    "&eacutex",
    "&CounterClockwiseContourIntegral;",
    "&acE;",
    "&;",
    "&",
    "#",
    "x",
    ";",
    "\r\n",
    "\r",
    "\n",
    "\t",
    "\u{c}",
    " ",
    "\u{a0}",
    "\u{200b}",
    "\u{1b}[31m",
    "é",
    "中",
    "\u{feff}",
    "\u{85}",
    "\"",
    "'",
    "=",
    "/",
    "<script><!--",
    "<script><!-- <script>",
    "</scrip",
    "t>",
    "word",
    "Hello, World.",
];

fn scan_soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            3 => (0..SCAN_FRAGMENTS.len()).prop_map(|i| SCAN_FRAGMENTS[i].to_owned()),
            1 => "[a-zA-Z0-9 <>/=\"'&#;!?\\-\\[\\]\\r\\n\\t\\x0c]{0,10}",
        ],
        0..80,
    )
    .prop_map(|parts| parts.concat())
}

fn scan_limits() -> impl Strategy<Value = VisibleLimits> {
    prop_oneof![
        3 => Just(VisibleLimits::default()),
        1 => (1usize..40, 0usize..300).prop_map(|(max_tags, max_text_bytes)| VisibleLimits {
            max_tags,
            max_text_bytes,
        }),
    ]
}

fn assert_scanner_equals_html5ever(html: &str, limits: VisibleLimits) {
    let reference = visible_text_html5ever(html, limits);
    match scan_visible_text(html, limits) {
        Ok(fast) => assert_eq!(fast, reference, "scanner differs on {html:?}"),
        Err(Declined::NulCharacter) => assert!(html.contains('\0')),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn scanner_equals_html5ever_on_markup_soup(html in scan_soup(), limits in scan_limits()) {
        assert_scanner_equals_html5ever(&html, limits);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn scanner_equals_html5ever_on_mutated_real_pages(
        seed in any::<usize>(),
        mutations in proptest::collection::vec(mutation(), 0..12),
        limits in scan_limits(),
    ) {
        let seeds = seeds();
        if seeds.is_empty() {
            return Ok(());
        }
        let mut page = seeds[seed % seeds.len()].clone();
        for m in &mutations {
            apply(&mut page, m);
        }
        let html = String::from_utf8_lossy(&page);
        assert_scanner_equals_html5ever(&html, limits);
    }
}

#[test]
fn scanner_declines_only_pages_with_nul() {
    let limits = VisibleLimits::default();
    assert_eq!(
        scan_visible_text("<p>a\0b</p>", limits),
        Err(Declined::NulCharacter)
    );
    assert!(scan_visible_text("<p>a&#0;b</p>", limits).is_ok());
}

/// Every extractor on, the main-content one included (`ingest --main`): hostile input must
/// survive all of them.
fn with_main() -> ExtractOptions {
    ExtractOptions {
        main_content: true,
        ..ExtractOptions::default()
    }
}
