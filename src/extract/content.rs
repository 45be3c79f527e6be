//! The content text: the per-document text the detectors read by default, made from the
//! stored visible text so it costs no second parse of the page.
//!
//! Two ways, chosen per site (the URL's host, or a folder ingest's first path segment):
//! - *Across pages* (a site with at least [`ContentRule::min_site_pages`] pages): the
//!   blocks of the visible text (its lines: paragraphs, list items, table rows, headings,
//!   menu entries) that repeat on many pages of the site are its template, whatever the
//!   page layout, and are removed. A hash per block and a count per site is all it takes.
//!   A block is the template's when it is on more pages of the site than
//!   `max(min_block_pages − 1, min(max_fraction · pages, max_pages))`: on a small news site
//!   that is "on nearly every page", on a large manual "on more than a few dozen pages",
//!   and never "on the three releases of one page" (a page's own text repeats once per
//!   release, which is what a detector must see). A block on more than
//!   [`ContentRule::max_names`] *differently named* pages (the URL's file name,
//!   [`file_name`]) is the template too, whatever the site's size: a page's copies keep its
//!   name, so its own text is on one name however many releases a crawl holds, while a
//!   heading a generator puts on every page of one index of one release (doxygen 1.9.8's
//!   "Here is a list of all functions with links to …" on 25 `functions_func_X` pages of a
//!   560-page site) is on many (issue 14, session 7).
//! - *Within a page* (a site with too few pages to learn a template from, e.g. a news
//!   collection gathered by search, one page per site): a jusText-like classification of
//!   the blocks by length and stopword density with its context rule (a short block
//!   between two good ones is good), and a stub guard: when what is kept is fewer than
//!   [`ContentRule::min_words`] words or less than [`ContentRule::min_share`] of the page's
//!   words (a footer or a caption taken for the article, the failure of readability-style
//!   extractors on documentation pages), the next, looser attempt is tried (short prose
//!   blocks as good, then length alone: [`per_page`]), and when every attempt keeps a stub
//!   the whole visible text is used instead.
//!
//! Pure functions; the store's ingest post-pass ([`crate::store::Store::update_content_texts`])
//! feeds them the site counts.

use rustc_hash::{FxHashMap, FxHashSet};

use super::structure::{self, BlockSignal};
use crate::text::WordList;

/// The parameters of the content text (stored with the database's ingest parameters).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ContentRule {
    /// Sites with fewer pages use the per-page extraction.
    pub min_site_pages: usize,
    /// A block on fewer pages than this is never template (a page in a few releases).
    pub min_block_pages: usize,
    /// A block on more than this fraction of a site's pages is template…
    pub max_fraction: f64,
    /// …or on more than this many of its pages, whatever the fraction…
    pub max_pages: usize,
    /// …or on pages of more than this many file names (counted up to [`NAMES_COUNTED`]).
    pub max_names: usize,
    /// Per-page extraction: fewer kept words than this is a stub.
    pub min_words: usize,
    /// Per-page extraction: a kept share of the page's words under this is a stub.
    pub min_share: f64,
    /// The per-page classification's version (2: the page's language judged on its prose
    /// blocks, and a second attempt for briefs of short paragraphs; issue 14 session 4; 3:
    /// the blocks' structure signals, [`super::structure`], session 5; 4: the same session,
    /// pages whose article is mostly prose of an unlisted language classed by length; 5: the
    /// context rule looks through one insert between two paragraphs, session 13; 7: the
    /// across-pages text drops the page's reader discussion, [`structure::DISCUSSION`],
    /// session 23, the name kept though it is no longer the per-page rule's alone; a
    /// database whose signals were stored by an earlier build has no discussion bit until
    /// its pages are ingested again, nor, from a build before session 24, the bit of a
    /// discussion named by its heading: the signals change, not this rule; 8: the per-page
    /// text drops a discussion that outweighs the story, session 25; 9: the across-pages
    /// text drops teaser links beside a page's prose, the same session; 10: a family of
    /// sites, `super::sites`, counts its blocks as one site, session 28). The
    /// structure signals themselves are stored at ingest and are not made again: a database
    /// made by a build of version 3 keeps its pages' link shares as that build took them
    /// (before long links counted as text) until its pages are ingested into a new one. The
    /// stored rule is compared as written: a database whose rule lacks this field (made by
    /// version 1) or names another version computes its texts again at its next ingest.
    pub per_page_version: u32,
}

impl Default for ContentRule {
    /// Measured on the syndication corpus and debian-docs families (BENCHMARKS.md,
    /// "Content text").
    fn default() -> Self {
        ContentRule {
            min_site_pages: 4,
            min_block_pages: 4,
            max_fraction: 0.2,
            max_pages: 30,
            // The lowest of 8, 12 and 20 that lowers no detector on the tuning corpus
            // (BENCHMARKS.md, "Issue 14 (session 7)").
            max_names: 20,
            min_words: 40,
            min_share: 0.1,
            per_page_version: 10,
        }
    }
}

impl ContentRule {
    /// Pages a block may be on, on a site of `pages` pages, and still be the page's own.
    pub fn block_limit(&self, pages: usize) -> usize {
        let by_size = (self.max_fraction * pages as f64).min(self.max_pages as f64);
        (by_size.floor() as usize).max(self.min_block_pages.saturating_sub(1))
    }
}

/// The site of a URL: its host, or for a relative path (a folder ingest) its first segment.
pub fn site_key(url: &str) -> &str {
    match url.split_once("://") {
        Some((_, rest)) => rest.split(['/', '?', '#']).next().unwrap_or(rest),
        None => url.split('/').next().unwrap_or(url),
    }
}

/// A block's hash (FNV-1a 64 of its bytes): in memory only, never stored.
pub fn block_hash(block: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in block.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A block's hash in a site's counts ([`SiteBlocks`], [`distinct_blocks`]; in memory only,
/// never stored): rustc-hash's byte hash, 8–16 bytes a step. FNV-1a ([`block_hash`]) takes
/// a byte a step, and hashing every line twice with it (at ingest for the counts, in the
/// content pass for the look-ups) was the content pass's largest cost (BENCHMARKS.md,
/// issue 16 session 8).
pub fn line_hash(block: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(block.as_bytes());
    h.finish()
}

/// The distinct block hashes ([`line_hash`]) of a text (non-empty lines), sorted.
pub fn distinct_blocks(text: &str) -> Vec<u64> {
    let mut hashes: Vec<u64> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(line_hash)
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

/// The file name of a URL: its path's last segment, without query or fragment (`""` for a
/// URL ending in `/` or a bare host). A page's copies (its releases, its captures) keep it.
pub fn file_name(url: &str) -> &str {
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |slash| &rest[slash..]),
        None => url,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    path.rsplit('/').next().unwrap_or(path)
}

/// How many differently named pages of a block [`SiteBlocks`] counts: past this, more
/// names change no rule (a [`ContentRule::max_names`] at or above it never fires).
pub const NAMES_COUNTED: usize = 64;

/// On how many pages of one site a block is, and under how many file names. Eight bytes, as
/// the page count alone was before names were counted (a map entry per distinct block of a
/// site: at 56,638 pages a wider count cost 61 MB more peak memory at ingest).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockCount {
    pub pages: u32,
    /// Distinct file names of those pages, counted up to [`NAMES_COUNTED`] + 1.
    pub names: u16,
    /// 16 bits of the first page's file name's hash: most blocks are on one name only, so
    /// the other names are kept apart, for the blocks seen under a second one. Two names
    /// of one block that share these bits count once (fewer names: less is removed).
    first_name: u16,
}

/// How many pages of one site each block is on, and under how many file names.
#[derive(Debug, Clone, Default)]
pub struct SiteBlocks {
    pub pages: usize,
    pub blocks: FxHashMap<u64, BlockCount>,
    /// (block, name) for the names after the first of each block seen under two or more.
    more_names: FxHashSet<(u64, u16)>,
    /// After [`SiteBlocks::keep_template_only`]: the blocks a rule removes, and that rule's
    /// block limit and `max_names`.
    template: Option<(usize, usize, FxHashSet<u64>)>,
}

impl SiteBlocks {
    /// Whether the block with [`line_hash`] `h` is the site's template under `rule` (on
    /// more of its pages than the rule's limit, or under more names than `max_names`).
    pub fn is_template(&self, h: u64, rule: &ContentRule) -> bool {
        let limit = rule.block_limit(self.pages);
        match &self.template {
            Some((frozen_limit, max_names, template)) => {
                debug_assert_eq!((*frozen_limit, *max_names), (limit, rule.max_names));
                template.contains(&h)
            }
            None => self
                .blocks
                .get(&h)
                .is_some_and(|n| n.pages as usize > limit || n.names as usize > rule.max_names),
        }
    }

    /// Keeps only the blocks `rule` removes (and forgets the others' counts): the content
    /// pass's look-ups, one per line of every page, then probe a set of a few thousand
    /// blocks that stays in the cache instead of a map of every block of the site (millions
    /// on a large site: a cache miss a line, most of the pass's time, BENCHMARKS.md issue
    /// 16 session 8). Afterwards [`SiteBlocks::is_template`] answers for `rule` only, and no
    /// page may be added.
    pub fn keep_template_only(&mut self, rule: &ContentRule) {
        let limit = rule.block_limit(self.pages);
        let template = self
            .blocks
            .iter()
            .filter(|(_, n)| n.pages as usize > limit || n.names as usize > rule.max_names)
            .map(|(&h, _)| h)
            .collect();
        self.template = Some((limit, rule.max_names, template));
        self.blocks = FxHashMap::default();
        self.more_names = FxHashSet::default();
    }

    /// Takes in `other`'s counts, as if its pages had been added to these after this
    /// site's own (the counts a family of sites has as one site, `extract::sites`).
    pub fn absorb(&mut self, other: SiteBlocks) {
        debug_assert!(
            self.template.is_none() && other.template.is_none(),
            "counts absorbed after keep_template_only"
        );
        self.pages += other.pages;
        // The other's names after the first of each block.
        let mut other_names: FxHashMap<u64, Vec<u16>> = FxHashMap::default();
        for (h, name) in other.more_names {
            other_names.entry(h).or_default().push(name);
        }
        for (h, theirs) in other.blocks {
            let names = std::iter::once(theirs.first_name)
                .chain(other_names.remove(&h).unwrap_or_default());
            match self.blocks.entry(h) {
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(theirs);
                    for name in names.skip(1) {
                        self.more_names.insert((h, name));
                    }
                }
                std::collections::hash_map::Entry::Occupied(mut slot) => {
                    let count = slot.get_mut();
                    count.pages += theirs.pages;
                    for name in names {
                        count_name(&mut self.more_names, h, count, name);
                    }
                }
            }
        }
    }

    /// Counts one page's distinct blocks; `url` is the page's, for its [`file_name`].
    pub fn add_page(&mut self, url: &str, distinct: &[u64]) {
        debug_assert!(
            self.template.is_none(),
            "a page added after keep_template_only"
        );
        self.pages += 1;
        let name = block_hash(file_name(url)) as u16;
        for &h in distinct {
            let count = self.blocks.entry(h).or_insert(BlockCount {
                pages: 0,
                names: 0,
                first_name: name,
            });
            count.pages += 1;
            if count.names == 0 {
                count.names = 1;
                continue;
            }
            count_name(&mut self.more_names, h, count, name);
        }
    }
}

/// Which way a document's content text was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentWay {
    /// Site-template blocks removed across the site's pages.
    Template,
    /// Per-page extraction (jusText-like).
    PerPage,
    /// Per-page extraction found only a stub: the visible text.
    Visible,
}

/// The words whose share in a block tells prose from menus: the English stopwords and
/// the function words of de, fr, es, it, pt, nl, ru and ar (`assets/function-words.txt`).
pub fn function_words() -> &'static WordList {
    static WORDS: std::sync::OnceLock<WordList> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        let mut all = String::from(include_str!("../../assets/stopwords.txt"));
        for line in include_str!("../../assets/function-words.txt").lines() {
            let line = line.split('#').next().unwrap_or("");
            for word in line.split_whitespace() {
                all.push('\n');
                all.push_str(word);
            }
        }
        WordList::parse(&all)
    })
}

/// The content text of a page with visible text `visible` on a site with `site` counts,
/// without structure signals (see [`content_text_with`]).
pub fn content_text(
    visible: &str,
    site: Option<&SiteBlocks>,
    rule: &ContentRule,
    stopwords: &WordList,
) -> (String, ContentWay) {
    content_text_with(visible, &[], site, rule, stopwords)
}

/// The content text of a page with visible text `visible`, its blocks' structure
/// `signals` (one per non-empty line, or none: a page stored before they were kept, or one
/// whose blocks carry none) on a site with `site` counts.
pub fn content_text_with(
    visible: &str,
    signals: &[BlockSignal],
    site: Option<&SiteBlocks>,
    rule: &ContentRule,
    stopwords: &WordList,
) -> (String, ContentWay) {
    if let Some(site) = template_site(site, rule) {
        let own = |line: &str| !site.is_template(line_hash(line), rule);
        let kept = match own_lines_kept(visible, signals, own, rule) {
            Some(keep) => {
                let mut i = 0;
                keep_lines(visible, |_| {
                    i += 1;
                    keep.get(i - 1).copied().unwrap_or(false)
                })
            }
            None => keep_lines(visible, own),
        };
        return (kept, ContentWay::Template);
    }
    match per_page(visible, signals, rule, stopwords) {
        Some(text) => (text, ContentWay::PerPage),
        None => (visible.to_string(), ContentWay::Visible),
    }
}

/// On a page whose signals name a reader discussion ([`structure::DISCUSSION`]) or hold
/// teaser links ([`is_teaser`]), which of its non-empty lines the across-pages content text
/// keeps: its own lines (those `own` keeps: not the site's template), less the discussion's
/// and the teasers' when the own lines outside them hold at least [`ContentRule::min_words`]
/// words. A page's discussion is on that page only, so the site's counts never remove it,
/// and a copy of a story with six comments quoting other stories is another text to every
/// detector (news-v8/v9 whole, BENCHMARKS.md issue 14 session 23). Teasers go only when the
/// page's other own lines hold at least [`TEASER_PROSE_RATIO`] times their words: a related
/// story list beside an article, not a table of contents around one paragraph (a manual's
/// `index.html`, whose links are its text). The guard keeps a page that is all discussion, or
/// whose article sits inside a container a comment word names, whole. `None` (`own` alone
/// decides) when the signals name neither or do not match the lines one for one.
fn own_lines_kept(
    visible: &str,
    signals: &[BlockSignal],
    own: impl Fn(&str) -> bool,
    rule: &ContentRule,
) -> Option<Vec<bool>> {
    let lines: Vec<&str> = visible.lines().filter(|l| !l.is_empty()).collect();
    if lines.len() != signals.len() {
        return None;
    }
    let discussion = |i: usize| signals[i].flags & structure::DISCUSSION != 0;
    // Most pages have neither (a teaser's signal is looked at before its words).
    if !(0..lines.len()).any(|i| discussion(i) || is_teaser(lines[i], signals[i])) {
        return None;
    }
    let own: Vec<bool> = lines.iter().map(|l| own(l)).collect();
    let teaser: Vec<bool> = (0..lines.len())
        .map(|i| own[i] && is_teaser(lines[i], signals[i]))
        .collect();
    if !(0..lines.len()).any(|i| own[i] && (discussion(i) || teaser[i])) {
        return Some(own);
    }
    let words = |i: usize| estimated_words(lines[i], lines[i].split_whitespace().count()).0;
    // The own lines' words up to `enough` (counting a long manual page's every line cost
    // a seventh of a documentation ingest's CPU; the rule needs only to know the bounds met).
    let words_up_to = |keep: &dyn Fn(usize) -> bool, enough: usize| -> usize {
        let mut total = 0;
        for i in (0..lines.len()).filter(|&i| own[i] && keep(i)) {
            total += words(i);
            if total >= enough {
                break;
            }
        }
        total
    };
    let teaser_words = words_up_to(&|i| !discussion(i) && teaser[i], usize::MAX);
    let prose_needed = rule.min_words.max(TEASER_PROSE_RATIO * teaser_words);
    let prose_words = words_up_to(&|i| !discussion(i) && !teaser[i], prose_needed);
    // With the teasers gone the prose left is the rest, at least `min_words`; with them
    // kept the rest is the prose (counted whole: under its bound) and the teasers.
    let drop_teasers = prose_words >= prose_needed;
    if !drop_teasers && prose_words + teaser_words < rule.min_words {
        return Some(own);
    }
    let dropped = |i: usize| discussion(i) || (drop_teasers && teaser[i]);
    Some((0..lines.len()).map(|i| own[i] && !dropped(i)).collect())
}

/// Words (parted by white space) a line of links needs to be a teaser: a story's headline
/// ("Third Malaysia-linked airline tragedy likely a coincidence, experts say"), not a
/// manual's link to a section or a function ("3.2. Printing", "gtk_widget_show()").
const TEASER_MIN_WORDS: usize = 6;

/// How many times the teasers' words a page's other own lines must hold for the teasers to
/// go ([`own_lines_kept`]).
const TEASER_PROSE_RATIO: usize = 2;

/// A teaser: a line of at least [`TEASER_MIN_WORDS`] words, more than half of its
/// characters in links (the per-page rule's [`MAX_LINK_DENSITY`]). On a site whose template
/// varies from page to page (a news site's related stories, photo captions' links), such
/// lines are on too few pages for the counts to call them template, and a copy of a story
/// carried its site's headlines to every detector (news-v9 whole, BENCHMARKS.md issue 14
/// session 25).
fn is_teaser(line: &str, signal: BlockSignal) -> bool {
    signal.link_density() > MAX_LINK_DENSITY && line.split_whitespace().count() >= TEASER_MIN_WORDS
}

/// The site counts [`content_text_with`] removes a template by: `site` when it has enough
/// pages. With `None` the page's content text is made within the page, from its visible
/// text and signals alone (what lets the content pass reuse a duplicate's result).
pub fn template_site<'a>(
    site: Option<&'a SiteBlocks>,
    rule: &ContentRule,
) -> Option<&'a SiteBlocks> {
    site.filter(|s| s.pages >= rule.min_site_pages)
}

/// Counts `name` for block `h` when it is one not seen for the block yet, up to the cap
/// (distinct names are counted up to [`NAMES_COUNTED`] + 1): `add_page` and `absorb` alike.
fn count_name(more_names: &mut FxHashSet<(u64, u16)>, h: u64, count: &mut BlockCount, name: u16) {
    if name != count.first_name
        && usize::from(count.names) <= NAMES_COUNTED
        && more_names.insert((h, name))
    {
        count.names += 1;
    }
}

/// The counts of each family of sites (`extract::sites`): a family's member sites' counts
/// absorbed into one entry under the family's name, so the releases of one manual laid out
/// as sites of their own learn one template, as they would under one host (a block on 20
/// pages of each of three releases is template to the family, not to any one release).
pub fn join_site_families(
    sites: std::collections::HashMap<String, SiteBlocks>,
    families: &super::sites::SiteFamilies,
) -> std::collections::HashMap<String, SiteBlocks> {
    if families.is_empty() {
        return sites;
    }
    // Members in name order: the counts do not depend on the map's order.
    let mut members: Vec<(String, SiteBlocks)> = sites.into_iter().collect();
    members.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: std::collections::HashMap<String, SiteBlocks> = Default::default();
    for (site, counts) in members {
        match out.entry(families.family(&site).to_string()) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(counts);
            }
            std::collections::hash_map::Entry::Occupied(mut slot) => slot.get_mut().absorb(counts),
        }
    }
    out
}

/// The lines of `text` that `keep` accepts, with at most one blank line between kept
/// paragraphs (the stored-text shape of [`super::lines`]).
fn keep_lines(text: &str, mut keep: impl FnMut(&str) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    for line in text.lines() {
        if line.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if !keep(line) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank { "\n\n" } else { "\n" });
        }
        blank = false;
        out.push_str(line);
    }
    out
}

/// jusText's block classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Good,
    NearGood,
    Short,
    Bad,
}

/// jusText's thresholds (characters; stopword density).
const LENGTH_LOW: usize = 70;
const LENGTH_HIGH: usize = 200;
const STOPWORDS_LOW: f64 = 0.30;
const STOPWORDS_HIGH: f64 = 0.32;

/// Longest run of short blocks that the context rule may keep between good ones.
const MAX_SHORT_RUN: usize = 2;

/// Characters of a block in a script without spaces that make it prose (about a
/// sentence), and under which it is short.
const UNSPACED_GOOD: usize = 50;
const UNSPACED_SHORT: usize = 20;

/// A block's measures: characters, words, function words, and whether it is written
/// without spaces (then words are estimated as characters / 2).
#[derive(Clone, Copy)]
struct Block {
    chars: usize,
    words: usize,
    stops: usize,
    unspaced: bool,
    /// Holds a copyright sign (jusText: bad).
    copyright: bool,
}

fn measure(block: &str, stopwords: &WordList) -> Block {
    let mut spaced_words = 0;
    let mut stops = 0;
    for w in block.split_whitespace() {
        spaced_words += 1;
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if stopwords.contains(&w) {
            stops += 1;
        }
    }
    let (words, unspaced) = estimated_words(block, spaced_words);
    Block {
        chars: block.chars().count(),
        words,
        stops,
        unspaced,
        copyright: block.contains('\u{a9}'),
    }
}

/// A block's words given its `spaced_words` (parted by white space), and whether it is
/// written without spaces (at least half of its non-space characters in a script written
/// so): then its words are estimated as those characters / 2.
fn estimated_words(block: &str, spaced_words: usize) -> (usize, bool) {
    let words = spaced_words;
    let chars = block.chars().filter(|c| !c.is_whitespace()).count();
    let unspaced_chars = block
        .chars()
        .filter(|&c| crate::text::unspaced_script(c))
        .count();
    let unspaced = unspaced_chars * 2 >= chars.max(1);
    if unspaced {
        (words.max(unspaced_chars / 2), true)
    } else {
        (words, false)
    }
}

/// How strictly one attempt of [`per_page`] classes blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Attempt {
    /// Stopword densities count (the page's prose is in a language of the lists); without
    /// them blocks are classed by length alone (jusText's language-independent mode).
    in_language: bool,
    /// A block longer than this (characters) with a prose density is good by itself.
    length_high: usize,
}

/// The attempts of [`per_page`] on a page whose prose is in the lists' languages, first to
/// last: the first that keeps more than a stub wins.
/// - jusText's own setting: the article's long paragraphs.
/// - The same with no length above "short": a short story whose paragraphs are all one or
///   two sentences (a 5-paragraph wire brief of 80–190 characters each) has no block over
///   200 characters, so jusText keeps nothing and the page fell back to its visible text,
///   menus and teasers included (news one page per site, BENCHMARKS.md session 4).
/// - Length alone, as on a page in another language.
const IN_LANGUAGE: [Attempt; 3] = [
    Attempt {
        in_language: true,
        length_high: LENGTH_HIGH,
    },
    Attempt {
        in_language: true,
        length_high: LENGTH_LOW,
    },
    LENGTH_ONLY,
];

/// The one attempt on a page in none of the lists' languages (Czech, an Arabic story with
/// its prefixes attached…): blocks classed by length alone (jusText's language-independent
/// mode).
const LENGTH_ONLY: Attempt = Attempt {
    in_language: false,
    length_high: LENGTH_HIGH,
};

/// A page is in the lists' languages when its prose blocks (spaced, at least
/// [`LENGTH_LOW`] characters, at least [`STOPWORDS_LOW`] function words) hold at least
/// [`ContentRule::min_words`] words and this share of the words of its long spaced blocks.
/// Not the density of all its words: on a news portal whose menus are many short link lines
/// and long runs of section names the density of the whole page is under any threshold
/// though its article is English prose, and length-only classing then kept every menu line
/// of 70 characters or more (Bloomberg's section lists, an English story in a Czech site's
/// template: BENCHMARKS.md, issue 14 session 4). Blocks written without spaces do not count:
/// a Chinese template's teasers say nothing of the language of the article placed in it.
const PROSE_SHARE: f64 = 0.15;

/// A block with more of its characters inside links is bad. jusText's `max_link_density`
/// is 0.2, and it calls a short block with any link text bad; on news-v2 (whole) both cut
/// articles: a blog post's first paragraph (26% of it links) and a tweet's attribution line
/// between two paragraphs, whose badness then dropped their neighbours by the context rule.
/// Teasers and related links are links through and through, so half is enough
/// (trafilatura's own limit for short elements is 0.8). BENCHMARKS.md, issue 14 session 5.
const MAX_LINK_DENSITY: f64 = 0.5;

/// A container kind (a [`BOILERPLATE`] bit) that holds more than this share of the words the
/// classification without structure keeps is the article's, whatever its name says (the
/// story inside an `<aside>`, a layout class `l-sidebar-fixed`), and does not make blocks bad.
const CONTAINER_SHARE: f64 = 0.5;

/// When article containers ([`structure::ARTICLE`]) hold at least this share of the words
/// the classification without structure keeps, good blocks outside them are dropped.
const ARTICLE_SHARE: f64 = 0.5;

/// The container bits that make a block bad (see [`super::structure`]). Not
/// [`structure::FORM`], though trafilatura removes forms: on news-v2 (whole) a site's
/// article quote sat inside one, and ASP.NET pages wrap the whole body in one.
const BOILERPLATE: u8 = structure::NAV | structure::HEADER | structure::MARKED;

/// How one classification uses the blocks' structure signals.
#[derive(Clone, Copy)]
struct Structure<'a> {
    /// One per block, or none (no structure rule applies).
    signals: &'a [BlockSignal],
    /// Container bits that make a block bad.
    boilerplate: u8,
    /// Blocks outside article containers are bad.
    require_article: bool,
}

impl Structure<'_> {
    const NONE: Structure<'static> = Structure {
        signals: &[],
        boilerplate: 0,
        require_article: false,
    };
}

/// The per-page content of `visible`, or `None` when only a stub would be kept. `signals`
/// are its blocks' structure (one per non-empty line; ignored unless they match the blocks
/// one for one). The attempts are first made without them; with signals they are then
/// made again with them ([`classify`]: a block in a navigation, header, footer, sharing,
/// cookie, related-links or comment container, or more than half links, is bad; when
/// article containers hold most of the first result, blocks outside them are bad), and
/// that result is the content text unless it is a stub (then the first one is). A
/// container kind that holds most of the first result is the article's and is not used
/// ([`CONTAINER_SHARE`]).
pub fn per_page(
    visible: &str,
    signals: &[BlockSignal],
    rule: &ContentRule,
    stopwords: &WordList,
) -> Option<String> {
    let blocks: Vec<&str> = visible.lines().filter(|l| !l.is_empty()).collect();
    let signals = if signals.len() == blocks.len() {
        signals
    } else {
        &[]
    };
    let stats: Vec<Block> = blocks.iter().map(|b| measure(b, stopwords)).collect();
    let total_words: usize = stats.iter().map(|b| b.words).sum();
    // Which language the page's prose is in is judged on blocks that are not mostly links:
    // teasers and related-story links are the template's, and say nothing of the language
    // of the article placed in it (an English site's linked headlines outweighed a Czech
    // story in its frame: news-v7 single, BENCHMARKS.md issue 14 session 21).
    let text_block = |i: usize| {
        signals
            .get(i)
            .is_none_or(|s| s.link_density() <= MAX_LINK_DENSITY)
    };
    let (long_words, prose_words) = stats
        .iter()
        .enumerate()
        .filter(|&(i, b)| text_block(i) && !b.unspaced && b.chars >= LENGTH_LOW)
        .map(|(_, b)| b)
        .fold((0, 0), |(long, prose), b| {
            let is_prose = b.stops as f64 >= STOPWORDS_LOW * b.words as f64;
            (long + b.words, prose + if is_prose { b.words } else { 0 })
        });
    // Long blocks that are no prose by the lists but prose of another language (whatlang):
    // a story in a language without a list (Czech, Arabic with its prefixes attached) has no
    // function-word density, and when the template around it holds English prose the page
    // was classed by the lists, which dropped the story (BENCHMARKS.md, issue 14 session 5).
    // Only where the article is, when the page says where (article containers): an
    // English story in a Czech site's template has Czech teasers around its `<article>`
    // (aktualne on news-v2 single), a Czech story in an English template is inside it
    // (talkingpointsmemo on news-v2 whole).
    let article_known = signals.iter().any(|s| s.flags & structure::ARTICLE != 0);
    let foreign_words: usize = blocks
        .iter()
        .zip(&stats)
        .enumerate()
        .filter(|(i, _)| {
            text_block(*i)
                && (!article_known
                    || signals
                        .get(*i)
                        .is_some_and(|s| s.flags & structure::ARTICLE != 0))
        })
        .map(|(_, block)| block)
        .filter(|(_, b)| {
            !b.unspaced
                && b.chars >= LENGTH_HIGH
                && (b.stops as f64) < STOPWORDS_LOW * b.words as f64
        })
        .filter(|(text, _)| {
            !matches!(
                crate::text::lang::identify_by_trigrams(text),
                "en" | crate::text::lang::UNDETERMINED
            )
        })
        .map(|(_, b)| b.words)
        .sum();
    let in_language = prose_words >= rule.min_words
        && prose_words as f64 >= PROSE_SHARE * long_words as f64
        && prose_words >= foreign_words;
    let attempts: &[Attempt] = if in_language {
        &IN_LANGUAGE
    } else {
        &[LENGTH_ONLY]
    };
    // `total`: the page's words a kept text must not be a stub of (without a discussion
    // that is dropped: six long comments under a short story are not the page to measure
    // the story against).
    let first_keeping = |structure: Structure, total: usize| {
        attempts.iter().find_map(|&attempt| {
            let class = classify(&stats, structure, attempt);
            let kept_words: usize = stats
                .iter()
                .zip(&class)
                .filter(|(_, c)| **c == Class::Good)
                .map(|(b, _)| b.words)
                .sum();
            let stub =
                kept_words < rule.min_words || (kept_words as f64) < rule.min_share * total as f64;
            (!stub).then_some(class)
        })
    };
    let plain = first_keeping(Structure::NONE, total_words)?;
    let class = if signals.is_empty() {
        plain
    } else {
        // What the classification without structure keeps, by container: a container
        // that holds most of it is the article's, whatever its name says (a builder's
        // `<aside>` around the story, a body-wide `<form>`); an article container that
        // holds most of it is where the article is, and good blocks outside it are not.
        let kept = |bits: u8| -> usize {
            stats
                .iter()
                .zip(&plain)
                .zip(signals)
                .filter(|((_, c), s)| **c == Class::Good && s.flags & bits == bits)
                .map(|((b, _), _)| b.words)
                .sum()
        };
        // A reader discussion ([`structure::DISCUSSION`]) is dropped when what is kept
        // outside it is no stub, however much of the page it is: six long comments under a
        // short story held most of the kept words, so their container counted as the
        // article's and stayed (news-v9 single and the small sites of whole-site layouts,
        // BENCHMARKS.md issue 14 session 25). The shares below are then taken without it,
        // as the across-pages text takes them ([`own_lines_kept`]).
        let in_discussion = kept(structure::DISCUSSION);
        let drop_discussion = in_discussion > 0 && kept(0) - in_discussion >= rule.min_words;
        let outside = |bits: u8| -> usize {
            if drop_discussion {
                kept(bits) - kept(bits | structure::DISCUSSION)
            } else {
                kept(bits)
            }
        };
        let all = outside(0).max(1) as f64;
        let mut mask = if drop_discussion {
            structure::DISCUSSION
        } else {
            0
        };
        for bit in (0..8).map(|b| 1u8 << b).filter(|b| BOILERPLATE & b != 0) {
            if (outside(bit) as f64) <= CONTAINER_SHARE * all {
                mask |= bit;
            }
        }
        let in_article = outside(structure::ARTICLE);
        let require_article = in_article > 0 && in_article as f64 >= ARTICLE_SHARE * all;
        let structure = Structure {
            signals,
            boilerplate: mask,
            require_article,
        };
        let total = if drop_discussion {
            stats
                .iter()
                .zip(signals)
                .filter(|(_, s)| s.flags & structure::DISCUSSION == 0)
                .map(|(b, _)| b.words)
                .sum()
        } else {
            total_words
        };
        first_keeping(structure, total)
            .or_else(|| {
                first_keeping(
                    Structure {
                        require_article: false,
                        ..structure
                    },
                    total,
                )
            })
            .unwrap_or(plain)
    };
    let mut i = 0;
    let kept = keep_lines(visible, |_| {
        let good = class.get(i) == Some(&Class::Good);
        i += 1;
        good
    });
    Some(kept)
}

/// One attempt's classes of the blocks: good or bad, after jusText's context rule.
/// `structure` adds jusText's and trafilatura's structure rules: a block in one of its
/// boilerplate containers, outside the article containers when it requires them, with a
/// link density over [`MAX_LINK_DENSITY`], or holding a copyright sign (jusText) is bad.
fn classify(stats: &[Block], structure: Structure, attempt: Attempt) -> Vec<Class> {
    // Bad by where it sits or by its links (not by its own text): an advertisement, a
    // newsletter box, a "Read more" link between two paragraphs of a story.
    let structure_bad: Vec<bool> = stats
        .iter()
        .enumerate()
        .map(|(i, b)| {
            structure.signals.get(i).is_some_and(|&s| {
                s.flags & structure.boilerplate != 0
                    || (structure.require_article && s.flags & structure::ARTICLE == 0)
                    || s.link_density() > MAX_LINK_DENSITY
            }) && !b.copyright
        })
        .collect();
    let mut class: Vec<Class> = stats
        .iter()
        .enumerate()
        .map(|(i, b)| {
            if structure_bad[i] || (!structure.signals.is_empty() && b.copyright) {
                return Class::Bad;
            }
            let Block {
                chars,
                words,
                stops,
                unspaced,
                ..
            } = *b;
            if unspaced {
                return if chars >= UNSPACED_GOOD {
                    Class::Good
                } else if chars < UNSPACED_SHORT {
                    Class::Short
                } else {
                    Class::NearGood
                };
            }
            let density = if words == 0 {
                0.0
            } else {
                stops as f64 / words as f64
            };
            let (low, high) = if attempt.in_language {
                (STOPWORDS_LOW, STOPWORDS_HIGH)
            } else {
                (0.0, 0.0)
            };
            if chars < LENGTH_LOW {
                Class::Short
            } else if density >= high {
                if chars > attempt.length_high {
                    Class::Good
                } else {
                    Class::NearGood
                }
            } else if density >= low {
                Class::NearGood
            } else {
                Class::Bad
            }
        })
        .collect();
    // An insert: one block bad by its place or links, right between two blocks of prose
    // (good or near-good by their text). The context rule looks through it, so the short
    // paragraphs of a wire story cut by an advertisement, a newsletter box or a "Read more"
    // link keep their context (news-v5, BENCHMARKS.md issue 14 session 13: jusText's rule
    // dropped the paragraphs between two such inserts). A run of two bad blocks, or one
    // beside a heading or menu line, is no insert.
    let prose = |j: usize| !structure_bad[j] && matches!(class[j], Class::Good | Class::NearGood);
    let insert: Vec<bool> = (0..class.len())
        .map(|i| structure_bad[i] && i > 0 && i + 1 < class.len() && prose(i - 1) && prose(i + 1))
        .collect();
    // Context: the nearest good-or-bad block on each side (an edge counts as bad).
    let nearest = |class: &[Class], i: usize, step: isize| -> Class {
        let mut j = i as isize + step;
        while j >= 0 && (j as usize) < class.len() {
            match class[j as usize] {
                _ if insert[j as usize] => j += step,
                c @ (Class::Good | Class::Bad) => return c,
                _ => j += step,
            }
        }
        Class::Bad
    };
    // A run of more than MAX_SHORT_RUN short blocks is a list (a menu, teasers, tags),
    // not a heading or a caption inside the article: jusText tells those apart by their
    // link density, which the visible text does not keep.
    let mut short_run = vec![0usize; class.len()];
    let mut i = 0;
    while i < class.len() {
        let mut j = i;
        while j < class.len() && class[j] == Class::Short {
            j += 1;
        }
        for r in &mut short_run[i..j] {
            *r = j - i;
        }
        i = j.max(i + 1);
    }
    let original = class.clone();
    for i in 0..class.len() {
        let (prev, next) = (nearest(&original, i, -1), nearest(&original, i, 1));
        class[i] = match original[i] {
            Class::Short
                if prev == Class::Good && next == Class::Good && short_run[i] <= MAX_SHORT_RUN =>
            {
                Class::Good
            }
            Class::NearGood if prev == Class::Good || next == Class::Good => Class::Good,
            Class::Good => Class::Good,
            _ => Class::Bad,
        };
    }
    class
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop() -> WordList {
        function_words().clone()
    }

    const ARTICLE: &str = "The city council voted on Tuesday to approve a new budget that \
        will expand the bus network and repair the bridges that have been closed since the \
        spring floods, after a debate that lasted for most of the afternoon.";

    /// The block counts of a news site whose pages are `pages` (`news.example/{i}.html`).
    fn news_site(pages: &[String]) -> SiteBlocks {
        let mut site = SiteBlocks::default();
        for (i, p) in pages.iter().enumerate() {
            site.add_page(&format!("news.example/{i}.html"), &distinct_blocks(p));
        }
        site
    }

    #[test]
    fn template_blocks_are_removed_and_page_text_stays() {
        let pages: Vec<String> = (0..6)
            .map(|i| format!("Home\nSports\nWeather\n\nStory number {i} is here.\n{ARTICLE} {i}\n\nCopyright Example News"))
            .collect();
        let site = news_site(&pages);
        let (text, way) = content_text(&pages[2], Some(&site), &ContentRule::default(), &stop());
        assert_eq!(way, ContentWay::Template);
        assert_eq!(text, format!("Story number 2 is here.\n{ARTICLE} 2"));
    }

    /// A whole site's copy of a story with a reader discussion under it (news-v8's shape):
    /// the site's counts cannot remove the comments, which are on this page only; the
    /// discussion container's signal drops them, unless the page's own text outside it is a
    /// stub.
    #[test]
    fn a_marked_discussion_is_dropped_on_a_template_site_unless_it_is_the_page() {
        let comment =
            "jk_1987 wrote:\nThe minister said the harvest would be late this year because \
            the rains came in the wrong month and the roads to the valley were washed out.";
        // Each page's discussion is its own (the comment names the page).
        let page = |i: usize, body: &str| {
            format!("Home\nSports\nWeather\n\n{body} {i}\n\nComments (1)\n{comment} {i}\n\nCopyright Example News")
        };
        let pages: Vec<String> = (0..6).map(|i| page(i, ARTICLE)).collect();
        let site = news_site(&pages);
        let plain = BlockSignal::default();
        let discussion = BlockSignal {
            link: 0,
            flags: structure::MARKED | structure::DISCUSSION,
        };
        // Home, Sports, Weather, the article, then the heading and the comment's two lines
        // in the discussion container, then the footer.
        let signals = [
            plain, plain, plain, plain, discussion, discussion, discussion, plain,
        ];
        let rule = ContentRule::default();
        let (text, way) = content_text_with(&pages[2], &signals, Some(&site), &rule, &stop());
        assert_eq!(way, ContentWay::Template);
        assert_eq!(text, format!("{ARTICLE} 2"));
        // Without the signals, the discussion is the page's own text.
        let (text, _) = content_text(&pages[2], Some(&site), &rule, &stop());
        assert!(text.contains("The minister said"), "{text}");
        // A page whose own text outside the discussion is a stub keeps it all.
        let stub = page(2, "A short note.");
        let (text, _) = content_text_with(&stub, &signals, Some(&site), &rule, &stop());
        assert!(text.starts_with("A short note. 2\n"), "{text}");
        assert!(text.contains("The minister said"), "{text}");
        // Signals that do not match the lines one for one are not used.
        let (text, _) = content_text_with(&pages[2], &signals[1..], Some(&site), &rule, &stop());
        assert!(text.contains("The minister said"), "{text}");
    }

    /// A site whose template varies from page to page: each page's related-story links are
    /// its own (on too few pages for the counts), and go when the page's prose outweighs
    /// them; a manual's contents page, whose links are its text, and short links to
    /// sections keep theirs.
    #[test]
    fn teaser_links_beside_a_story_leave_the_across_pages_text() {
        // Each teaser names its page: on that page only.
        let teaser = |i: usize, k: usize| {
            format!("Third airline tragedy in a year is likely a coincidence, experts say {i}.{k}")
        };
        let page = |i: usize, body: &str, teasers: usize| {
            let mut lines = vec![format!("Home\nSports\nWeather\n\n{body} {i}")];
            lines.extend((0..teasers).map(|k| teaser(i, k)));
            lines.push(format!("See {i}.2\n\nCopyright Example News"));
            lines.join("\n")
        };
        let story = format!("{ARTICLE} {ARTICLE}");
        let pages: Vec<String> = (0..6).map(|i| page(i, &story, 2)).collect();
        let site = news_site(&pages);
        let plain = BlockSignal::default();
        let link = BlockSignal {
            link: 255,
            flags: structure::LINK,
        };
        // Home, Sports, Weather, the article, the teasers, a short link, the footer.
        let signals_with = |teasers: usize| -> Vec<BlockSignal> {
            let mut signals = vec![plain; 4];
            signals.extend(std::iter::repeat_n(link, teasers + 1));
            signals.push(plain);
            signals
        };
        let rule = ContentRule::default();
        let (text, way) =
            content_text_with(&pages[2], &signals_with(2), Some(&site), &rule, &stop());
        assert_eq!(way, ContentWay::Template);
        assert_eq!(text, format!("{story} 2\nSee 2.2"));
        // Without the signals they are the page's own text.
        let (text, _) = content_text(&pages[2], Some(&site), &rule, &stop());
        assert!(text.contains("experts say 2.1"), "{text}");
        // A contents page: more words of links than twice its prose keeps them all.
        let contents = page(2, &story, 12);
        let (text, _) =
            content_text_with(&contents, &signals_with(12), Some(&site), &rule, &stop());
        assert!(text.contains("experts say 2.11"), "{text}");
    }

    #[test]
    fn a_page_in_three_releases_keeps_its_text() {
        // A manual of 40 pages in three releases: each page's text is on three pages.
        let mut site = SiteBlocks::default();
        let mut pages = Vec::new();
        for release in 0..3 {
            for page in 0..40 {
                pages.push(format!(
                    "Manual v{release}\nNavigation\n\nPage {page} explains option {page}."
                ));
            }
        }
        for (i, p) in pages.iter().enumerate() {
            site.add_page(
                &format!("manual/v{}/page{}.html", i / 40, i % 40),
                &distinct_blocks(p),
            );
        }
        let (text, _) = content_text(&pages[5], Some(&site), &ContentRule::default(), &stop());
        assert_eq!(text, "Page 5 explains option 5.");
    }

    /// A generator's heading on every page of one index, in one release only (doxygen
    /// 1.9.8's "Here is a list of all functions …" on each letter's page): on 26 of the
    /// site's 300 pages, under the page-count limit of 30, but on 26 file names, where a
    /// page's own text, in any number of releases, is on one.
    #[test]
    fn a_heading_on_many_differently_named_pages_of_one_release_is_template() {
        let letters: Vec<char> = ('a'..='z').collect();
        let mut pages: Vec<(String, String)> = Vec::new();
        for release in 0..6 {
            for &l in &letters {
                let heading = if release == 5 {
                    "Here is a list of all functions with links to the classes they belong to:\n"
                } else {
                    ""
                };
                pages.push((
                    format!("mm/{release}/functions_func_{l}.html"),
                    format!("{heading}- {l} -\n{l}_get() : Widget, Window"),
                ));
            }
            for page in 0..24 {
                pages.push((
                    format!("mm/{release}/class{page}.html"),
                    format!("Class {page} draws widget {page}."),
                ));
            }
        }
        let mut site = SiteBlocks::default();
        for (url, text) in &pages {
            site.add_page(url, &distinct_blocks(text));
        }
        let rule = ContentRule::default();
        assert_eq!(rule.block_limit(site.pages), 30);
        let (old, _) = content_text(&pages[0].1, Some(&site), &rule, &stop());
        let (new, _) = content_text(&pages[5 * 50].1, Some(&site), &rule, &stop());
        assert_eq!(old, "- a -\na_get() : Widget, Window");
        assert_eq!(new, old, "the heading of one release stays");
        // A page's own text in six releases: six pages, one name.
        let (own, _) = content_text(&pages[26].1, Some(&site), &rule, &stop());
        assert_eq!(own, "Class 0 draws widget 0.");
        // Without the names rule the heading stays (26 pages ≤ 30).
        let by_pages = ContentRule {
            max_names: NAMES_COUNTED,
            ..ContentRule::default()
        };
        let (kept, _) = content_text(&pages[5 * 50].1, Some(&site), &by_pages, &stop());
        assert!(kept.starts_with("Here is a list"), "{kept}");
    }

    /// The set the content pass looks blocks up in gives every page the text the full
    /// counts give, by page count and by names, on pages of several releases.
    #[test]
    fn keeping_the_template_only_changes_no_content_text() {
        let mut pages: Vec<(String, String)> = Vec::new();
        for release in 0..6 {
            for page in 0..40 {
                let heading = if release == 5 && page < 26 {
                    "Here is a list of all functions:\n"
                } else {
                    ""
                };
                pages.push((
                    format!("mm/{release}/p{page}.html"),
                    format!(
                        "Manual v{release}\nNavigation\n\n{heading}Page {page} explains \
                         option {page}.\nShared note {}",
                        page % 7
                    ),
                ));
            }
        }
        let mut site = SiteBlocks::default();
        for (url, text) in &pages {
            site.add_page(url, &distinct_blocks(text));
        }
        for rule in [
            ContentRule::default(),
            ContentRule {
                max_names: NAMES_COUNTED,
                max_pages: 10,
                ..ContentRule::default()
            },
        ] {
            let mut frozen = site.clone();
            frozen.keep_template_only(&rule);
            let mut removed = 0;
            for (_, text) in &pages {
                let (want, _) = content_text(text, Some(&site), &rule, &stop());
                let (got, _) = content_text(text, Some(&frozen), &rule, &stop());
                assert_eq!(got, want);
                removed += usize::from(want != *text);
            }
            assert!(removed > 0, "the test removes some template");
        }
    }

    #[test]
    fn file_names_drop_host_query_and_fragment() {
        assert_eq!(file_name("https://a.example/x/y.html?id=1#top"), "y.html");
        assert_eq!(file_name("https://a.example/x/"), "");
        assert_eq!(file_name("https://a.example"), "");
        assert_eq!(file_name("pkg/1.0/html/index.html"), "index.html");
    }

    #[test]
    fn a_small_site_gets_the_article_without_menus() {
        let page = format!(
            "Home\nSports\nWeather\n\n{ARTICLE}\n{ARTICLE}\n\nShare this\n\n{ARTICLE}\n\nAbout us\nContact"
        );
        let (text, way) = content_text(&page, None, &ContentRule::default(), &stop());
        assert_eq!(way, ContentWay::PerPage);
        assert_eq!(
            text,
            format!("{ARTICLE}\n{ARTICLE}\n\nShare this\n\n{ARTICLE}")
        );
    }

    /// A page of a small site (the per-page text) whose reader discussion outweighs its
    /// story (news-v9's vanityfair copy of story 039: six long comments quoting other
    /// stories under a 200-word story).
    #[test]
    fn a_discussion_that_outweighs_the_story_is_dropped_within_the_page() {
        let comment = "The minister said that the harvest would be late this year because \
            the rains came in the wrong month, and the roads to the valley were washed out \
            by a flood that nobody in the town had seen coming for a very long time.";
        let page = |story: &str| {
            let mut lines = vec![
                "Home".to_string(),
                story.to_string(),
                "Comments (6)".to_string(),
            ];
            for i in 0..6 {
                lines.push(format!("reader{i} wrote:"));
                lines.push(format!("{comment} {i}"));
            }
            lines.push("About us".to_string());
            lines.join("\n")
        };
        let plain = BlockSignal::default();
        let discussion = BlockSignal {
            link: 0,
            flags: structure::MARKED | structure::DISCUSSION,
        };
        let mut signals = vec![plain, plain];
        signals.extend(std::iter::repeat_n(discussion, 13));
        signals.push(plain);
        let rule = ContentRule::default();
        let story = format!("{ARTICLE} {ARTICLE}");
        let (text, way) = content_text_with(&page(&story), &signals, None, &rule, &stop());
        assert_eq!(way, ContentWay::PerPage);
        assert_eq!(text, story);
        // Without the signals the comments are prose like the story's.
        let (text, _) = content_text(&page(&story), None, &rule, &stop());
        assert!(text.contains("The minister said"), "{text}");
        // A story under 40 words outside the discussion: the page keeps its comments.
        let (text, _) = content_text_with(&page("A short note."), &signals, None, &rule, &stop());
        assert!(text.contains("The minister said"), "{text}");
    }

    #[test]
    fn a_footer_is_not_taken_for_the_main_text() {
        // An API page: many short code-like lines, then one long legal sentence.
        let mut page = String::new();
        for i in 0..200 {
            page.push_str(&format!(
                "fn widget_set_value_{i}(widget: Widget, value: u32) -> bool\n"
            ));
        }
        page.push_str(
            "\nThis documentation is distributed in the hope that it will be useful, but \
             without any warranty; see the license that came with it for the details of what \
             you may and may not do with it.",
        );
        let (text, way) = content_text(&page, None, &ContentRule::default(), &stop());
        assert_eq!(way, ContentWay::Visible);
        assert_eq!(text, page);
    }

    #[test]
    fn a_page_in_another_language_keeps_its_long_blocks() {
        let es = "El consejo de la ciudad votó el martes para aprobar un nuevo presupuesto \
            que ampliará la red de autobuses y reparará los puentes cerrados desde las \
            inundaciones de la primavera, tras un debate que duró casi toda la tarde.";
        let page = format!("Inicio\nDeportes\n\n{es}\n{es}\n{es}\n\nAviso legal");
        let (text, way) = content_text(&page, None, &ContentRule::default(), &stop());
        assert_eq!(way, ContentWay::PerPage);
        assert_eq!(text, format!("{es}\n{es}\n{es}"));
    }

    proptest::proptest! {
        #[test]
        fn absorbed_counts_are_the_counts_of_all_pages_added_to_one_site(
            pages in proptest::collection::vec(
                (0usize..2, 0usize..6, proptest::collection::btree_set(0u64..12, 0..6)),
                0..40,
            ),
        ) {
            let page_of = |(name, blocks): (usize, &std::collections::BTreeSet<u64>)| {
                (format!("s/dir/name{name}.html"), blocks.iter().copied().collect::<Vec<_>>())
            };
            let mut one = SiteBlocks::default();
            let mut parts = [SiteBlocks::default(), SiteBlocks::default()];
            // The first site's pages, then the second's: the order `absorb` stands for.
            for part in 0..2 {
                for (site, name, blocks) in pages.iter().filter(|p| p.0 == part) {
                    let (url, blocks) = page_of((*name, blocks));
                    one.add_page(&url, &blocks);
                    parts[*site].add_page(&url, &blocks);
                }
            }
            let [mut joined, second] = parts;
            joined.absorb(second);
            proptest::prop_assert_eq!(joined.pages, one.pages);
            proptest::prop_assert_eq!(joined.blocks, one.blocks);
        }
    }

    #[test]
    fn a_family_of_sites_counts_as_one_site() {
        // Two releases laid out as sites, ten pages at the same places: one family.
        let mut urls: Vec<String> = Vec::new();
        for release in ["rel-1.0", "rel-2.0"] {
            urls.extend((0..10).map(|i| format!("{release}/doc/p{i}.html")));
        }
        urls.push("other/doc/p0.html".into());
        let mut sites: std::collections::HashMap<String, SiteBlocks> = Default::default();
        for url in &urls {
            sites
                .entry(site_key(url).to_string())
                .or_default()
                .add_page(url, &[1, 2]);
        }
        let families = crate::extract::sites::SiteFamilies::of(urls.iter().map(String::as_str));
        let joined = join_site_families(sites, &families);
        assert_eq!(joined.len(), 2, "{:?}", joined.keys().collect::<Vec<_>>());
        assert_eq!(joined["rel-1.0"].pages, 20);
        assert_eq!(joined["rel-1.0"].blocks[&1].pages, 20);
        assert_eq!(joined["other"].pages, 1);
    }

    #[test]
    fn block_limits_follow_the_site_size() {
        let r = ContentRule::default();
        assert_eq!(r.block_limit(4), 3);
        assert_eq!(r.block_limit(50), 10);
        assert_eq!(r.block_limit(5000), 30);
        assert_eq!(site_key("https://a.example/x/y"), "a.example");
        assert_eq!(site_key("pkg/1.0/index.html"), "pkg");
    }
}
