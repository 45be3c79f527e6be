//! Builds the users' own case from real article pages: one wire story on several sites,
//! each copy inside its own site's template and edited on the way (issue 14).
//!
//! Reads the pages of `../shared/corpus/news/{newspaper,readability}` (never copied into the
//! project: this builder reads them from there), finds each page's article body (its long
//! `<p>` paragraphs), and places a story's body into the template of other sites' pages:
//! the template's own long paragraphs give way to the story's, its `<title>` and first
//! `<h1>` get the story's headline; everything else of the template stays (navigation,
//! teasers, captions and short paragraphs of the template's own story: the noise a real
//! syndicated copy sits in). Each syndicated copy gets the edits syndication makes, drawn
//! from a seeded generator: truncation, a dateline, a trailer "(Reporting by …)", a
//! rewritten headline, a "related" paragraph, a few changed words. Pages of one site that
//! carry different stories are the same-template, different-story negatives.
//!
//! Two layouts, written side by side:
//! - `OUT/whole/`: whole sites. Every site (host) holds its own pages and the syndicated
//!   copies placed into its template, so each site contributes several pages.
//! - `OUT/single/`: one page per site, as a collection gathered by search would be. Each
//!   story is on its own site (the original page) and on a few other sites, each used once.
//!
//! Each layout has `html/<site>/<page>.html`, `gold.tsv` (`url<TAB>cluster`, the URL as
//! `spotcheck ingest --db DB OUT/whole/html` names it) and `stories.tsv` (`cluster<TAB>
//! language<TAB>copies<TAB>origin`; language is `en`, or `other` when under 15% of the
//! story's words are English stopwords: the non-English stories).
//!
//! Run: `cargo run --release --example make_news_corpus -- NEWS_DIR OUT [--seed N]
//! [--stories N] [--copies N] [--cross] [--web-edits] [--markup] [--comments] [--comment-markups] [--more-comment-markups]` (defaults: seed 14, 165 stories, 5 copies a story).
//! `--cross` places the articles of `newspaper/` only into the templates of `readability/`
//! sites and the other way round (a split no story of the default layout is built with: a
//! copy's frame always comes from the other collection), for a second, untuned corpus.
//! `--web-edits` adds, from a second seeded stream (so the corpora built without it stay
//! byte-identical), the edits a web copy of a story carries beside the wire service's:
//! a byline and an "Updated" line, an advertisement or "Story continues below" block, an
//! image with a caption, a "Read more:" link to another story, share-button text inside the
//! article, a middle paragraph cut by an editor, paragraphs split or merged, typographic
//! quotes and dashes, and words of the text wrapped in links (a held-out news corpus whose
//! edits no rule of the detectors was written against: news-v5).
//! `--markup` writes each syndicated copy's body, from a third seeded stream, in one of the
//! markups sites use besides `<p>` paragraphs: a `<div>` per paragraph, one `<div>` with
//! paragraphs parted by `<br><br>`, a layout table's cell with `<br>`s, `<span>`s in a
//! `<div>` parted by `<br>`, or `<p>`s inside `<section>`/`<div>` wrappers with classes that
//! say nothing (the template's own pages keep theirs): an article markup no page of the
//! fixtures has, for a held-out corpus of other layouts (news-v7).
//! `--comments` gives half the syndicated copies, from a fourth seeded stream, a reader
//! discussion right after the story and inside the same container: two to six comments,
//! each a name line and a paragraph of another story of the collection (long prose, unique
//! to the page, as real comments are), in a container named `comments` or in one whose
//! class says nothing, with a "Comments (N)" heading (news-v8).
//! `--comment-markups` (implies `--comments`, the same draws of which copies get one) writes
//! each discussion in one of seven markups instead: WordPress's (`#comments.comments-area`,
//! `ol.comment-list`), Disqus's (`#disqus_thread`), a section named by its `id` only, an
//! `article-comments` class, and three whose names say nothing (a `k-91` class, a CSS-module
//! class, none), each with its own heading and comment shape: a held-out corpus for the
//! content text's discussion rule, which was written looking at `--comments`' two (news-v10).
//! `--more-comment-markups` (implies `--comments`) writes them in ten other real-world
//! shapes, none named, written after the content text's heading rule to hold it out: some
//! headed as the rule reads, some not (a wrapped heading, a `<span>` heading, "Conversation",
//! no heading), with date lines and "Reply" links per comment (news-v11).
//! The same inputs and seed give byte-identical output.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use spotcheck::extract::{self, charset, ExtractOptions};
use spotcheck::text::WordList;

/// A paragraph counts as article body when its text has at least this many characters.
const MIN_BODY_PARAGRAPH: usize = 80;
/// A page is a usable story (and template) with at least this many body paragraphs.
const MIN_BODY_PARAGRAPHS: usize = 4;

/// splitmix64: small, seeded, and the same everywhere (no crate needed for a corpus tool).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// One real page and what the builder found in it.
struct Page {
    /// The site it belongs to (host for `newspaper/`, fixture name for `readability/`).
    site: String,
    /// The folder it came from: `newspaper` or `readability`.
    from: &'static str,
    /// File name without extension, for the output name.
    name: String,
    html: String,
    /// Byte ranges of the body paragraphs (whole `<p …>…</p>` elements).
    body_spans: Vec<(usize, usize)>,
    /// The text of those paragraphs (tags removed, white space collapsed).
    body: Vec<String>,
    headline: String,
}

/// ASCII-lowercased copy: byte offsets stay those of the original.
fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// Text of an HTML fragment: tags removed, white space collapsed (entities stay as written,
/// which is how the page had them).
fn strip_tags(fragment: &str) -> String {
    let mut out = String::with_capacity(fragment.len());
    let mut in_tag = false;
    for c in fragment.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Byte ranges of the elements whose content no reader sees as text (`<script>`, `<style>`,
/// `<template>`, `<noscript>`, `<textarea>`): a `<p>` written inside a script's string is not
/// the article body, and a story placed there would be invisible in every copy (the Guardian
/// pages keep their article's HTML in a script as well as in the page).
fn opaque_ranges(low: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for tag in ["script", "style", "template", "noscript", "textarea"] {
        let (open, close) = (format!("<{tag}"), format!("</{tag}"));
        let mut at = 0;
        while let Some(i) = low[at..].find(&open) {
            let start = at + i;
            let next = low.as_bytes().get(start + open.len()).copied();
            if !matches!(next, Some(b'>' | b' ' | b'\n' | b'\t' | b'\r' | b'/')) {
                at = start + open.len();
                continue;
            }
            let end = low[start..]
                .find(&close)
                .map_or(low.len(), |j| start + j + close.len());
            out.push((start, end));
            at = end;
        }
    }
    out
}

/// Whole `<p>` elements outside [`opaque_ranges`]: (start of `<p`, end after `</p>`, inner
/// text).
fn paragraphs(html: &str, low: &str) -> Vec<(usize, usize, String)> {
    let opaque = opaque_ranges(low);
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = low[at..].find("<p") {
        let start = at + i;
        if let Some(&(_, end)) = opaque.iter().find(|&&(a, b)| a <= start && start < b) {
            at = end;
            continue;
        }
        let after = low.as_bytes().get(start + 2).copied();
        if !matches!(after, Some(b'>' | b' ' | b'\n' | b'\t' | b'\r')) {
            at = start + 2;
            continue;
        }
        let Some(open_end) = low[start..].find('>').map(|j| start + j + 1) else {
            break;
        };
        let Some(close) = low[open_end..].find("</p>").map(|j| open_end + j) else {
            break;
        };
        // A paragraph that contains another `<p` was never closed: skip to the inner one.
        if let Some(inner) = low[open_end..close].find("<p") {
            at = open_end + inner;
            continue;
        }
        let end = close + 4;
        out.push((start, end, strip_tags(&html[open_end..close])));
        at = end;
    }
    out
}

/// Visible text of an HTML page, as ingest stores it.
fn visible(html: &str) -> String {
    let opts = ExtractOptions {
        main_content: false,
        ..ExtractOptions::default()
    };
    extract::extract(html.as_bytes(), Some("utf-8"), false, &opts)
        .map(|x| x.visible_text)
        .unwrap_or_default()
}

/// Whether the paragraph text `para` (as [`strip_tags`] gives it) is visible in `html`.
fn shows(html: &str, para: &str) -> bool {
    // Compared without white space: `strip_tags` puts a space where an inline tag was.
    let squeeze = |s: String| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let probe: String = squeeze(visible(&format!("<p>{para}</p>")))
        .chars()
        .take(40)
        .collect();
    !probe.is_empty() && squeeze(visible(html)).contains(&probe)
}

/// The inner range of the first `<tag …>…</tag>` element.
fn element_inner(low: &str, tag: &str) -> Option<(usize, usize)> {
    let open = format!("<{tag}");
    let mut at = 0;
    loop {
        let start = at + low[at..].find(&open)?;
        let next = low.as_bytes().get(start + open.len()).copied();
        if matches!(next, Some(b'>' | b' ' | b'\n' | b'\t' | b'\r')) {
            let inner = start + low[start..].find('>')? + 1;
            let close = inner + low[inner..].find(&format!("</{tag}>"))?;
            return Some((inner, close));
        }
        at = start + open.len();
    }
}

fn site_of(dir: &str, stem: &str) -> String {
    if dir == "newspaper" {
        // `al.com1` → `al.com`: the digits name the page of the site.
        stem.trim_end_matches(|c: char| c.is_ascii_digit())
            .to_string()
    } else {
        // `nytimes-3` → `nytimes`; fixtures without a number are sites of their own.
        match stem.rsplit_once('-') {
            Some((site, n)) if n.chars().all(|c| c.is_ascii_digit()) => site.to_string(),
            _ => stem.to_string(),
        }
    }
}

fn load_pages(news: &Path) -> Result<Vec<Page>, Box<dyn std::error::Error>> {
    let mut pages = Vec::new();
    for dir in ["newspaper", "readability"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(news.join(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "html"))
            .collect();
        files.sort();
        for path in files {
            let bytes = std::fs::read(&path)?;
            let html = charset::decode(&bytes, None, true).text;
            let low = lower(&html);
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let paras = paragraphs(&html, &low);
            let body: Vec<&(usize, usize, String)> = paras
                .iter()
                .filter(|(_, _, t)| t.chars().count() >= MIN_BODY_PARAGRAPH)
                .collect();
            // Placeholder text (the fixtures' "Lorem ipsum") is one story on many pages.
            if body.len() < MIN_BODY_PARAGRAPHS
                || body
                    .iter()
                    .any(|(_, _, t)| t.to_lowercase().contains("lorem ipsum"))
            {
                continue;
            }
            // The body must be what a reader sees: some pages keep their article in a
            // hidden element or a script and draw it later; their copies would be empty.
            if !shows(&html, &body[0].2) || !shows(&html, &body[body.len() - 1].2) {
                continue;
            }
            let headline = element_inner(&low, "title")
                .map(|(a, b)| strip_tags(&html[a..b]))
                .filter(|t| !t.is_empty())
                .or_else(|| element_inner(&low, "h1").map(|(a, b)| strip_tags(&html[a..b])))
                .unwrap_or_else(|| stem.clone());
            pages.push(Page {
                site: site_of(dir, &stem),
                from: dir,
                name: stem,
                body_spans: body.iter().map(|(a, b, _)| (*a, *b)).collect(),
                body: body.iter().map(|(_, _, t)| t.clone()).collect(),
                headline,
                html,
            });
        }
    }
    Ok(pages)
}

const CITIES: &[&str] = &[
    "WASHINGTON",
    "LONDON",
    "NEW YORK",
    "BRUSSELS",
    "TOKYO",
    "SAN FRANCISCO",
    "CHICAGO",
    "PARIS",
    "BERLIN",
    "SYDNEY",
];
const AGENCIES: &[&str] = &["(Reuters)", "(AP)", "(AFP)", "(Bloomberg)", "—"];
const NAMES: &[&str] = &[
    "Jane Doe",
    "Ana Ruiz",
    "Tom Berg",
    "Li Wei",
    "Sam Okafor",
    "Maria Rossi",
    "Ian Hale",
    "Nora Lind",
];
const FILLER: &[&str] = &[
    "reportedly",
    "also",
    "now",
    "officially",
    "recently",
    "still",
    "further",
    "meanwhile",
];

/// The edits one syndicated copy gets, and the copy's paragraphs and headline.
fn syndicate(story: &Page, related: &str, rng: &mut Rng) -> (Vec<String>, String) {
    let mut paras = story.body.clone();
    if rng.chance(0.4) {
        // Truncation: the first 40-80% of the paragraphs, at least two.
        let keep = (paras.len() as f64 * (0.4 + 0.4 * rng.unit())).ceil();
        paras.truncate((keep as usize).max(2));
    }
    if rng.chance(0.6) {
        // A few words changed: about 2 in 100 words replaced or dropped.
        for p in &mut paras {
            if !p.contains(' ') && p.chars().count() > 20 {
                // A paragraph of a script written without spaces (Chinese, Japanese) is
                // one "word" to `split(' ')`, and replacing that word with a filler threw
                // the whole paragraph away: no syndication edit does that, and it left two
                // copies of a Chinese story sharing two paragraphs of seven (session 22).
                // Such a paragraph loses one character instead (not one of an escaped
                // entity's), with the same draws as a one-word paragraph, so every other
                // story's copies stay byte for byte as they were.
                let mut chars: Vec<char> = p.chars().collect();
                let i = rng.below(chars.len());
                if rng.chance(0.5) {
                    rng.pick(FILLER);
                }
                if !chars[i].is_ascii() {
                    chars.remove(i);
                }
                *p = chars.into_iter().collect();
                continue;
            }
            let mut words: Vec<String> = p.split(' ').map(str::to_string).collect();
            let edits = (words.len() / 50).max(1);
            for _ in 0..edits {
                let i = rng.below(words.len());
                if rng.chance(0.5) {
                    words[i] = rng.pick(FILLER).to_string();
                } else if words.len() > 3 {
                    words.remove(i);
                }
            }
            *p = words.join(" ");
        }
    }
    if rng.chance(0.5) {
        let dateline = format!("{} {} - ", rng.pick(CITIES), rng.pick(AGENCIES));
        if let Some(first) = paras.first_mut() {
            first.insert_str(0, &dateline);
        }
    }
    if rng.chance(0.4) && paras.len() > 2 {
        let at = 1 + rng.below(paras.len() - 1);
        paras.insert(at, format!("Related: {related}"));
    }
    if rng.chance(0.5) {
        paras.push(format!(
            "(Reporting by {}; Editing by {})",
            rng.pick(NAMES),
            rng.pick(NAMES)
        ));
    }
    let mut headline = story.headline.clone();
    if rng.chance(0.7) {
        // Rewritten: the site name after a separator goes, a word or two change.
        let cut = headline
            .split([':', '|'])
            .next()
            .unwrap_or(&headline)
            .split(" - ")
            .next()
            .unwrap_or(&headline)
            .trim()
            .to_string();
        let mut words: Vec<&str> = cut.split(' ').collect();
        if words.len() > 4 {
            words.remove(rng.below(words.len()));
        }
        headline = match rng.below(3) {
            0 => format!("UPDATE 1-{}", words.join(" ")),
            1 => format!("{} - report", words.join(" ")),
            _ => words.join(" "),
        };
    }
    (paras, headline)
}

/// A byline for `--web-edits` copies.
const BYLINES: &[&str] = &[
    "By Maria Gonzalez, Staff Writer",
    "By The Associated Press",
    "By Jonathan Okafor | Reuters",
    "Staff and wire reports",
    "By Priya Natarajan, Correspondent",
];
/// Image captions for `--web-edits` copies.
const CAPTIONS: &[&str] = &[
    "People gather outside the building on Tuesday. (Photo: File)",
    "A view of the city skyline at dusk. Getty Images",
    "Officials speak to reporters during a news conference.",
    "The scene earlier this week, in a handout photo.",
];
/// In-article blocks a site's own markup puts between paragraphs.
const INSERTS: &[&str] = &[
    "<div class=\"ad-slot\">Advertisement</div>",
    "<div class=\"continue\">Story continues below advertisement</div>",
    "<aside class=\"newsletter\">Sign up for our daily newsletter to get the latest headlines in your inbox.</aside>",
    "<div class=\"share\">Share this article Facebook Twitter Email Print</div>",
];

/// `--web-edits`: what a site's web copy does to a wire story beyond the wire's own edits
/// (`syndicate`). The paragraphs come out as HTML blocks (`place` wraps plain text in `<p>`).
fn web_edits(mut paras: Vec<String>, other_headline: &str, rng: &mut Rng) -> Vec<String> {
    if rng.chance(0.3) && paras.len() > 4 {
        // An editor cuts a paragraph from the middle.
        let at = 1 + rng.below(paras.len() - 2);
        paras.remove(at);
    }
    if rng.chance(0.4) {
        // Paragraphs re-flowed: one split at a sentence end, or two merged.
        let i = rng.below(paras.len());
        if rng.chance(0.5) {
            if let Some(cut) = paras[i].find(". ").map(|c| c + 1) {
                let rest = paras[i][cut..].trim().to_string();
                paras[i].truncate(cut);
                if !rest.is_empty() {
                    paras.insert(i + 1, rest);
                }
            }
        } else if i + 1 < paras.len() {
            let next = paras.remove(i + 1);
            paras[i] = format!("{} {next}", paras[i]);
        }
    }
    if rng.chance(0.5) {
        // Typographic quotes and dashes.
        for p in &mut paras {
            let mut open = true;
            // The paragraphs hold escaped text: quotes come as entities.
            *p = p
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&#39;", "'")
                .chars()
                .map(|c| match c {
                    '"' => {
                        open = !open;
                        if open {
                            '\u{201D}'
                        } else {
                            '\u{201C}'
                        }
                    }
                    '\'' => '\u{2019}',
                    c => c,
                })
                .collect::<String>()
                .replace(" - ", " \u{2014} ");
        }
    }
    if rng.chance(0.4) {
        // Words of the text become links to the site's topic pages.
        for p in &mut paras {
            let words: Vec<&str> = p.split(' ').collect();
            if words.len() < 12 || !rng.chance(0.5) {
                continue;
            }
            let at = rng.below(words.len() - 2);
            let linked = format!(
                "<a href=\"/topic/{}\">{} {}</a>",
                rng.below(1000),
                words[at],
                words[at + 1]
            );
            let mut out: Vec<String> = words[..at].iter().map(|w| w.to_string()).collect();
            out.push(linked);
            out.extend(words[at + 2..].iter().map(|w| w.to_string()));
            *p = format!("<p>{}</p>", out.join(" "));
        }
    }
    if rng.chance(0.5) && paras.len() > 2 {
        let at = 1 + rng.below(paras.len() - 1);
        paras.insert(at, rng.pick(INSERTS).to_string());
    }
    if rng.chance(0.4) {
        let at = rng.below(paras.len().min(3) + 1);
        paras.insert(
            at,
            format!(
                "<figure><img src=\"/img/{}.jpg\" alt=\"\"><figcaption>{}</figcaption></figure>",
                rng.below(100_000),
                rng.pick(CAPTIONS)
            ),
        );
    }
    if rng.chance(0.3) && paras.len() > 3 {
        let at = 2 + rng.below(paras.len() - 2);
        paras.insert(
            at,
            format!(
                "<p class=\"read-more\"><a href=\"/story/{}\">Read more: {other_headline}</a></p>",
                rng.below(100_000)
            ),
        );
    }
    if rng.chance(0.5) {
        paras.insert(0, format!("<p class=\"byline\">{}</p>", rng.pick(BYLINES)));
    }
    if rng.chance(0.3) {
        paras.insert(
            1.min(paras.len()),
            format!(
                "<p class=\"dateline\">Updated {}:{:02} p.m. ET, {} {}</p>",
                1 + rng.below(11),
                rng.below(60),
                ["March", "June", "October", "December"][rng.below(4)],
                1 + rng.below(28)
            ),
        );
    }
    paras
}

/// A story's copy in `template`'s frame: the template's body paragraphs give way to
/// `paras` (all placed where its first one was), its title and first h1 to `headline`.
fn place(template: &Page, paras: &[String], headline: &str, markup: Markup) -> String {
    let html = &template.html;
    let low = lower(html);
    let mut cuts: Vec<(usize, usize, String)> = Vec::new();
    let body = markup.write(paras);
    for (i, &(a, b)) in template.body_spans.iter().enumerate() {
        cuts.push((a, b, if i == 0 { body.clone() } else { String::new() }));
    }
    if let Some((a, b)) = element_inner(&low, "title") {
        cuts.push((a, b, headline.to_string()));
    }
    if let Some((a, b)) = element_inner(&low, "h1") {
        // An h1 inside a replaced paragraph is gone with it.
        if !cuts.iter().any(|&(x, y, _)| a < y && b > x) {
            cuts.push((a, b, headline.to_string()));
        }
    }
    cuts.sort_by_key(|c| c.0);
    let mut out = String::with_capacity(html.len() + body.len());
    let mut at = 0;
    for (a, b, with) in cuts {
        if a < at {
            continue; // overlapping cut (a title inside a paragraph): keep the first
        }
        out.push_str(&html[at..a]);
        out.push_str(&with);
        at = b;
    }
    out.push_str(&html[at..]);
    out
}

/// Names that sign reader comments (`--comments`), written for this builder.
const COMMENTERS: &[&str] = &[
    "jk_1987",
    "Margaret H.",
    "northsider",
    "Paul from Leeds",
    "truthseeker42",
    "D. Okafor",
    "anon",
    "River City Dad",
    "lena.v",
    "OldHand",
];

/// One markup of a reader discussion (`--comment-markups`): the container's opening and
/// closing tags, the heading (`{n}`: the count), and a comment (`{who}`, `{said}`).
struct DiscussionMarkup {
    open: &'static str,
    heading: &'static str,
    item: &'static str,
    close: &'static str,
}

/// Discussions as real sites write them, written for this builder after the markup of
/// WordPress's default themes, Disqus's thread, and plain sites (named by `id` only, or by
/// a class of the article's), then three whose names say nothing (CSS-module classes, none).
const DISCUSSION_MARKUPS: [DiscussionMarkup; 7] = [
    DiscussionMarkup {
        open: "<div id=\"comments\" class=\"comments-area\">",
        heading: "<h2 class=\"comments-title\">{n} thoughts on this story</h2><ol class=\"comment-list\">",
        item: "<li class=\"comment even\"><article class=\"comment-body\"><div class=\"comment-meta\"><b class=\"fn\">{who}</b> says:</div><div class=\"comment-content\"><p>{said}</p></div></article></li>",
        close: "</ol></div>",
    },
    DiscussionMarkup {
        open: "<div id=\"disqus_thread\"><div class=\"post-list\">",
        heading: "<div class=\"nav-tab\">{n} Comments</div>",
        item: "<div class=\"post\"><span class=\"author\">{who}</span><div class=\"post-message\"><p>{said}</p></div></div>",
        close: "</div></div>",
    },
    DiscussionMarkup {
        open: "<section id=\"comments\">",
        heading: "<h3>Reader comments ({n})</h3>",
        item: "<div class=\"entry\"><strong>{who}</strong><p>{said}</p></div>",
        close: "</section>",
    },
    DiscussionMarkup {
        open: "<div class=\"article-comments\">",
        heading: "<h4>Join the discussion: {n} comments</h4>",
        item: "<div class=\"c\"><div class=\"who\">{who} wrote:</div><div class=\"said\">{said}</div></div>",
        close: "</div>",
    },
    DiscussionMarkup {
        open: "<div class=\"k-91\">",
        heading: "<h3>Comments ({n})</h3>",
        item: "<div class=\"c\"><div class=\"who\">{who} wrote:</div><div class=\"said\">{said}</div></div>",
        close: "</div>",
    },
    DiscussionMarkup {
        open: "<div class=\"_x3f9b\">",
        heading: "<h3>{n} responses</h3>",
        item: "<div class=\"_q1\"><span>{who}</span><p>{said}</p></div>",
        close: "</div>",
    },
    DiscussionMarkup {
        open: "<div>",
        heading: "<p><b>What readers say ({n})</b></p>",
        item: "<div><p><i>{who}:</i></p><p>{said}</p></div>",
        close: "</div>",
    },
];

/// Discussions for `--more-comment-markups` (news-v11), written after the content text's
/// heading rule ([`spotcheck::extract::structure::heading_names_discussion`]) to hold it
/// out: shapes of real sites none of which names its container, some that the rule reads
/// and some it cannot (a heading wrapped in its own division, a heading in a `<span>`, a
/// heading of other words, no heading at all), with per-comment lines of dates and
/// "Reply" links as real threads have. `{n}` the count, `{who}` a name, `{said}` the text.
const MORE_DISCUSSION_MARKUPS: [DiscussionMarkup; 10] = [
    // Medium's responses.
    DiscussionMarkup {
        open: "<div class=\"pw-r8x\">",
        heading: "<h2 class=\"bf\">Responses ({n})</h2>",
        item: "<div class=\"ab\"><div class=\"ac\"><a href=\"/u\">{who}</a><span>3 days ago</span></div><pre class=\"gx\">{said}</pre><button>Reply</button></div>",
        close: "</div>",
    },
    // Substack's thread under the post.
    DiscussionMarkup {
        open: "<div class=\"container-XLhH\">",
        heading: "<h4 class=\"header-anchor\">Discussion about this post</h4>",
        item: "<div class=\"thread-1A\"><div class=\"meta-2B\"><a>{who}</a> <span>Jan 12</span></div><div class=\"body-3C\"><p>{said}</p></div><div class=\"actions\"><a>Like</a> <a>Reply</a></div></div>",
        close: "</div>",
    },
    // A React site: the heading wrapped in its own division, the thread its sibling.
    DiscussionMarkup {
        open: "<div class=\"sc-bdnylx\"><div class=\"sc-gtsrHT\"><h3>{n} Comments</h3></div><div class=\"sc-dlnjPT\">",
        heading: "",
        item: "<div class=\"sc-hKFyIo\"><div><strong>{who}</strong> · 2h</div><p>{said}</p></div>",
        close: "</div></div>",
    },
    // A French daily's reactions.
    DiscussionMarkup {
        open: "<div class=\"r7\">",
        heading: "<h3>{n} réactions</h3>",
        item: "<div class=\"r7-i\"><p class=\"r7-a\">{who}, le 12 mars</p><p>{said}</p></div>",
        close: "</div>",
    },
    // A Spanish daily's.
    DiscussionMarkup {
        open: "<section class=\"s-3\">",
        heading: "<h2>Comentarios ({n})</h2>",
        item: "<div><p><b>{who}</b></p><p>{said}</p><p><a href=\"#\">Responder</a></p></div>",
        close: "</section>",
    },
    // A thread headed by other words.
    DiscussionMarkup {
        open: "<section class=\"thr\">",
        heading: "<h2>Conversation ({n})</h2>",
        item: "<div class=\"t\"><span>{who}</span><p>{said}</p></div>",
        close: "</section>",
    },
    // A heading in a span.
    DiscussionMarkup {
        open: "<div class=\"v-x\">",
        heading: "<span class=\"h\">Your views ({n})</span>",
        item: "<div><p>{who} said:</p><p>{said}</p></div>",
        close: "</div>",
    },
    // No heading: the thread's items alone.
    DiscussionMarkup {
        open: "<div class=\"zz\">",
        heading: "",
        item: "<div class=\"zz-i\"><div>{who} · 5 hours ago</div><div>{said}</div><div><a>Reply</a> · <a>Report</a></div></div>",
        close: "</div>",
    },
    // A German daily's count heading in a paragraph.
    DiscussionMarkup {
        open: "<div>",
        heading: "<p class=\"k\">{n} Kommentare</p>",
        item: "<div><p>{who} schreibt:</p><p>{said}</p></div>",
        close: "</div>",
    },
    // A blog's "Leave a reply" form after its thread, both in one unnamed division.
    DiscussionMarkup {
        open: "<div class=\"wrap-9\"><h3>{n} Replies to this story</h3>",
        heading: "",
        item: "<div class=\"x\"><cite>{who}</cite><p>{said}</p></div>",
        close: "<h3>Leave a Reply</h3><p>Your email address will not be published.</p></div>",
    },
];

/// A reader discussion after a story in one of [`MORE_DISCUSSION_MARKUPS`]
/// (`--more-comment-markups`), each as likely.
fn discussion_in_more_markups(pool: &[&str], rng: &mut Rng) -> String {
    let n = 2 + rng.below(5);
    let m = &MORE_DISCUSSION_MARKUPS[rng.below(MORE_DISCUSSION_MARKUPS.len())];
    let mut s = m.open.replace("{n}", &n.to_string());
    s.push_str(&m.heading.replace("{n}", &n.to_string()));
    s.push('\n');
    for _ in 0..n {
        let who = rng.pick::<&str>(COMMENTERS);
        let said = rng.pick::<&str>(pool);
        s.push_str(&m.item.replace("{who}", who).replace("{said}", said));
        s.push('\n');
    }
    s.push_str(m.close);
    s
}

/// A reader discussion after a story in one of [`DISCUSSION_MARKUPS`] (`--comment-markups`:
/// the first four, named, 60% of the time; the three unnamed ones otherwise).
fn discussion_in_markup(pool: &[&str], rng: &mut Rng) -> String {
    let n = 2 + rng.below(5);
    let m = if rng.chance(0.6) {
        &DISCUSSION_MARKUPS[rng.below(4)]
    } else {
        &DISCUSSION_MARKUPS[4 + rng.below(3)]
    };
    let mut s = String::from(m.open);
    s.push_str(&m.heading.replace("{n}", &n.to_string()));
    s.push('\n');
    for _ in 0..n {
        let who = rng.pick::<&str>(COMMENTERS);
        let said = rng.pick::<&str>(pool);
        let item = m.item.replace("{who}", who).replace("{said}", said);
        s.push_str(&item);
        s.push('\n');
    }
    s.push_str(m.close);
    s
}

/// A reader discussion after a story (`--comments`): `n` comments, each a name line and a
/// paragraph drawn from `pool` (other stories' body paragraphs).
fn comments(pool: &[&str], rng: &mut Rng) -> String {
    let n = 2 + rng.below(5);
    let class = if rng.chance(0.5) { "comments" } else { "k-91" };
    let mut s = format!("<div class=\"{class}\"><h3>Comments ({n})</h3>\n");
    for _ in 0..n {
        let _ = writeln!(
            s,
            "<div class=\"c\"><div class=\"who\">{} wrote:</div><div class=\"said\">{}</div></div>",
            rng.pick(COMMENTERS),
            rng.pick(pool)
        );
    }
    s.push_str("</div>");
    s
}

/// How a copy's body paragraphs are written (`--markup`).
#[derive(Clone, Copy)]
enum Markup {
    /// `<p>` per paragraph, as every fixture page has it.
    Paragraphs,
    /// `<div>` per paragraph.
    Divs,
    /// One `<div>`, paragraphs parted by `<br><br>`.
    Breaks,
    /// A layout table's one cell, paragraphs parted by `<br><br>`.
    TableCell,
    /// `<span>` per paragraph in one `<div>`, parted by `<br>`.
    Spans,
    /// `<p>`s inside nested `<section>`/`<div>` wrappers with uninformative classes.
    Wrapped,
}

impl Markup {
    const OTHERS: [Markup; 5] = [
        Markup::Divs,
        Markup::Breaks,
        Markup::TableCell,
        Markup::Spans,
        Markup::Wrapped,
    ];

    /// The body's HTML. `--web-edits` blocks come as HTML already and are written as they
    /// are, between the paragraphs; a wire paragraph is text.
    fn write(self, paras: &[String]) -> String {
        let mut s = String::new();
        let (open, close) = match self {
            Markup::Paragraphs => ("", ""),
            Markup::Divs => ("<div class=\"c-body\">\n", "</div>\n"),
            Markup::Breaks => ("<div class=\"txt\">\n", "</div>\n"),
            Markup::TableCell => (
                "<table width=\"100%\"><tr><td valign=\"top\">\n",
                "</td></tr></table>\n",
            ),
            Markup::Spans => ("<div class=\"x1\">\n", "</div>\n"),
            Markup::Wrapped => (
                "<section class=\"s-7\"><div class=\"r-2\"><div class=\"col\">\n",
                "</div></div></section>\n",
            ),
        };
        s.push_str(open);
        for (i, p) in paras.iter().enumerate() {
            if p.starts_with('<') {
                let _ = writeln!(s, "{p}");
                continue;
            }
            let last = i + 1 == paras.len();
            let _ = match self {
                Markup::Paragraphs | Markup::Wrapped => writeln!(s, "<p>{p}</p>"),
                Markup::Divs => writeln!(s, "<div class=\"c-para\">{p}</div>"),
                Markup::Breaks | Markup::TableCell if last => writeln!(s, "{p}"),
                Markup::Breaks | Markup::TableCell => writeln!(s, "{p}<br><br>"),
                Markup::Spans => writeln!(s, "<span class=\"t\">{p}</span><br>"),
            };
        }
        s.push_str(close);
        s
    }
}

/// `en`, or `other` when under 15% of the words are English stopwords.
fn language(page: &Page, stop: &WordList) -> &'static str {
    let text = page.body.join(" ").to_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let stops = words.iter().filter(|w| stop.contains(w)).count();
    if words.is_empty() || (stops as f64) < 0.15 * words.len() as f64 {
        "other"
    } else {
        "en"
    }
}

/// One output page: where it goes and which story it carries.
struct Out {
    site: String,
    file: String,
    html: String,
    story: usize,
}

fn write_layout(
    dir: &Path,
    pages: &[Page],
    stories: &[usize],
    outs: &[Out],
    stop: &WordList,
) -> Result<(), Box<dyn std::error::Error>> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    let mut gold = String::from("# url\tcluster  (one story in any site's frame = one cluster)\n");
    let mut copies: BTreeMap<usize, usize> = BTreeMap::new();
    for o in outs {
        let path = dir.join("html").join(&o.site).join(&o.file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, &o.html)?;
        let _ = writeln!(gold, "{}/{}\tstory{:03}", o.site, o.file, o.story);
        *copies.entry(o.story).or_default() += 1;
    }
    std::fs::write(dir.join("gold.tsv"), gold)?;
    let mut table = String::from("# cluster\tlanguage\tcopies\torigin\n");
    for (s, &page) in stories.iter().enumerate() {
        if let Some(n) = copies.get(&s) {
            let p = &pages[page];
            let _ = writeln!(
                table,
                "story{s:03}\t{}\t{n}\t{}/{}",
                language(p, stop),
                p.site,
                p.name
            );
        }
    }
    std::fs::write(dir.join("stories.tsv"), table)?;
    let sites: BTreeSet<&str> = outs.iter().map(|o| o.site.as_str()).collect();
    eprintln!(
        "{}: {} pages on {} sites, {} stories",
        dir.display(),
        outs.len(),
        sites.len(),
        copies.len()
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional = Vec::new();
    let (mut seed, mut n_stories, mut n_copies) = (14u64, 165usize, 5usize);
    let (mut cross, mut web, mut markup, mut discuss) = (false, false, false, false);
    let mut real_discussions = false;
    let mut more_discussions = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--seed" => seed = value()?.parse()?,
            "--stories" => n_stories = value()?.parse()?,
            "--copies" => n_copies = value()?.parse()?,
            "--cross" => cross = true,
            "--web-edits" => web = true,
            "--markup" => markup = true,
            "--comments" => discuss = true,
            "--comment-markups" => {
                discuss = true;
                real_discussions = true;
            }
            "--more-comment-markups" => {
                discuss = true;
                more_discussions = true;
            }
            _ => positional.push(PathBuf::from(a)),
        }
    }
    let [news, out] = positional.as_slice() else {
        return Err(
            "usage: make_news_corpus NEWS_DIR OUT [--seed N] [--stories N] [--copies N] [--cross] [--web-edits] [--markup] [--comments] [--comment-markups] [--more-comment-markups]"
                .into(),
        );
    };
    let stop = WordList::default_stopwords();
    let pages = load_pages(news)?;
    let mut rng = Rng(seed);
    // `--web-edits` draws from its own stream: the main stream's draws stay as without it.
    let mut web_rng = Rng(seed ^ 0x005E_ED0F_3EB5);
    // `--markup` too: a third stream.
    let mut markup_rng = Rng(seed ^ 0x3A2C_0B0D_1E50);
    // `--comments` too: a fourth.
    let mut comment_rng = Rng(seed ^ 0x0C03_3E47_5000);
    // Sites and their pages (templates), in a fixed order.
    let mut by_site: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, p) in pages.iter().enumerate() {
        by_site.entry(&p.site).or_default().push(i);
    }
    let sites: Vec<&str> = by_site.keys().copied().collect();
    // A page whose article is already another page's (the fixtures hold a few articles
    // twice) is no story of its own: a third of its paragraphs in an earlier page's.
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut candidates = Vec::new();
    for (i, p) in pages.iter().enumerate() {
        let shared = p
            .body
            .iter()
            .filter(|b| seen.contains_key(b.as_str()))
            .count();
        if shared * 3 < p.body.len() {
            candidates.push(i);
        }
        for b in &p.body {
            seen.entry(b.as_str()).or_insert(i);
        }
    }
    let mut stories: Vec<usize> = candidates;
    rng.shuffle(&mut stories);
    stories.truncate(n_stories);
    stories.sort_unstable();

    // Whole sites: every story on its own site (the original page) and on copies - 1
    // other sites, in one of their templates.
    let mut whole = Vec::new();
    let mut single_pool: Vec<Vec<Out>> = Vec::new();
    for (s, &page) in stories.iter().enumerate() {
        let story = &pages[page];
        let related = &pages[*rng.pick(&stories)].headline;
        let mut copies = vec![Out {
            site: story.site.clone(),
            file: format!("{}.html", story.name),
            html: story.html.clone(),
            story: s,
        }];
        // With --cross a copy's frame is a site of the other folder (a site's pages all
        // come from one folder, so its first page says which).
        let mut others: Vec<&str> = sites
            .iter()
            .copied()
            .filter(|&x| x != story.site)
            .filter(|&x| !cross || pages[by_site[x][0]].from != story.from)
            .collect();
        rng.shuffle(&mut others);
        for site in others.into_iter().take(n_copies.saturating_sub(1)) {
            let template = &pages[*rng.pick(&by_site[site])];
            let (mut paras, headline) = syndicate(story, related, &mut rng);
            if web {
                let other = &pages[*web_rng.pick(&stories)].headline;
                paras = web_edits(paras, other, &mut web_rng);
            }
            if discuss && comment_rng.chance(0.5) {
                // Other stories' paragraphs: long prose that is no part of this story.
                let pool: Vec<&str> = stories
                    .iter()
                    .filter(|&&other| other != page)
                    .flat_map(|&other| pages[other].body.iter().map(String::as_str))
                    .collect();
                paras.push(if more_discussions {
                    discussion_in_more_markups(&pool, &mut comment_rng)
                } else if real_discussions {
                    discussion_in_markup(&pool, &mut comment_rng)
                } else {
                    comments(&pool, &mut comment_rng)
                });
            }
            let body_markup = if markup {
                *markup_rng.pick(&Markup::OTHERS)
            } else {
                Markup::Paragraphs
            };
            copies.push(Out {
                site: site.to_string(),
                file: format!("syndicated-{s:03}.html"),
                html: place(template, &paras, &headline, body_markup),
                story: s,
            });
        }
        single_pool.push(
            copies
                .iter()
                .map(|o| Out {
                    site: o.site.clone(),
                    file: o.file.clone(),
                    html: o.html.clone(),
                    story: o.story,
                })
                .collect(),
        );
        whole.extend(copies);
    }
    write_layout(&out.join("whole"), &pages, &stories, &whole, &stop)?;

    // One page per site: stories in a seeded order take their copies on sites no earlier
    // story took; a story keeps its copies only when two or more survive (its original
    // comes first when its site is free), so every site holds exactly one page.
    let mut order: Vec<usize> = (0..single_pool.len()).collect();
    rng.shuffle(&mut order);
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut single = Vec::new();
    for s in order {
        let free: Vec<&Out> = single_pool[s]
            .iter()
            .filter(|o| !used.contains(&o.site))
            .collect();
        if free.len() < 2 {
            continue;
        }
        for o in free {
            used.insert(o.site.clone());
            single.push(Out {
                site: o.site.clone(),
                file: o.file.clone(),
                html: o.html.clone(),
                story: o.story,
            });
        }
    }
    single.sort_by_key(|o| o.story);
    write_layout(&out.join("single"), &pages, &stories, &single, &stop)?;
    Ok(())
}
