//! Template siblings: two pages of one manual made from one template (`cmath` and `math`,
//! `GtkHScale` and `GtkVScale`) share almost all their words, so a detector with a loose
//! threshold pairs them, yet each names code identifiers the other does not. A copy of a
//! page (a patch release, a syndicated story) differs instead in ordinary words, version
//! numbers, or material added on one side only. This module owns that test, on the two
//! pages' texts; the merged queue applies it to pairs only one detector found.
//!
//! The second test is on the pages' names. A site names its pages: two pages of one site
//! whose titles each carry a word of their own that few of the site's titles carry
//! (`QBuffer` / `QIODevice`, `Keyword` / `Target`, `3.12.0` / `3.12.2`) are two pages of the
//! site, whatever their text shares; a copy of a page on its own site (another release, a
//! mirror path) keeps its name, and where its title changes, the change is a word most of
//! the site's titles share (the release's version number). The merged queue applies it to
//! every pair, since detectors that agree on a sibling pair agree on its words, not its
//! name. Pairs across sites are never judged by it: a syndicated copy's headline is
//! rewritten and carries the other site's name. A site names its pages twice, in the title
//! and in the URL's file name, and some generators give many pages one title (doxygen's
//! `cairomm: Member List` for every class) but never one file name
//! (`classCairo_1_1Surface-members.html` / `classCairo_1_1Win32Surface-members.html`): the
//! same test is made on the file names' tokens too (issue 14, session 7).
//!
//! Neither test judges two pages of one site at one place: the same directory and file
//! name, under different paths above them (`…/2.2.28/…/ref/models.html` and
//! `…/4.2.28/…/ref/models.html`), is one page in two releases or mirrors. Such a copy's
//! identifiers change on both sides when its API changes, and a generator upgrade rewrites
//! every title (rustdoc's `alloc::fmt::UpperHex - Rust` → `UpperHex in alloc::fmt - Rust`);
//! the place stays ([`same_place`]; issue 14, session 9).
//!
//! The measure: the identifiers each page has and the other lacks, on the side with fewer
//! (2·min(|A∖B|, |B∖A|)), as a share of all the tokens the two pages do not share. Template
//! siblings score high (on the debian-docs tuning corpus, nine in ten false single-detector
//! pairs are at 0.08 or more); syndicated news copies score near 0 (their identifiers,
//! script remnants or host names, sit on one side only). See BENCHMARKS.md, issue 14
//! (session 3), for the data behind [`SIBLING_SHARE`].

// Fx hashing, as the term interners use: these sets and maps are built per page and per pair
// by the queue (template siblings and named-apart pages were ~28 s of the million's queue
// build). Every answer here counts members; none depends on an iteration order.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::extract::content::file_name;
use crate::extract::sites::SiteFamilies;

/// A pair found by only one detector whose two-sided identifier share (see the module
/// header) is at least this is a template sibling and is not shown. Tuned on ci-dd and
/// news-v2/whole (news recall unchanged at it); 1.0 would turn the rule off.
pub const SIBLING_SHARE: f64 = 0.08;

/// Siblings share most of their words: two pages sharing less than this token Jaccard (a few
/// sentences among lines of their own) are not judged by their identifiers. At 0.1 no pair of
/// the issue-14 corpora changes side; it keeps pairs whose own material is made of code-like
/// tokens (`lg12a`, part numbers) but that share only a few sentences.
pub const SIBLING_MIN_JACCARD: f64 = 0.1;

/// The distinct tokens of a text: runs of letters, digits and `_`, joined across `.`, `:`
/// and `-` when a word follows (`email.message`, `QString::arg`, `6.1.170`, `x-ray`).
pub fn tokens(text: &str) -> HashSet<&str> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let is_joiner = |c: char| matches!(c, '.' | ':' | '-');
    let mut out = HashSet::default();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !is_word(c) {
            continue;
        }
        let mut end = start + c.len_utf8();
        loop {
            // A word run.
            while let Some(&(i, c)) = chars.peek() {
                if !is_word(c) {
                    break;
                }
                end = i + c.len_utf8();
                chars.next();
            }
            // Joiners count only when a word follows them.
            let rest = &text[end..];
            let joiners = rest.len() - rest.trim_start_matches(is_joiner).len();
            let after = rest[joiners..].chars().next();
            if joiners > 0 && after.is_some_and(is_word) {
                while let Some(&(i, _)) = chars.peek() {
                    if i >= end + joiners {
                        break;
                    }
                    chars.next();
                }
                continue;
            }
            break;
        }
        out.insert(&text[start..end]);
    }
    out
}

/// Whether a token names code: an inner `_` (`gtk_vscale_new`), `::` (`QString::arg`), a
/// lowercase letter before a capital (`QQmlEngine`, `bodyUsed`), a `.` between letters
/// (`email.message`), or a letter before a digit (`compat32`, `gdk3`). Plain words and
/// numbers, version numbers included, are not identifiers, nor is a token with a non-ASCII
/// letter (a CJK title joined by `_` is a title, not code).
pub fn is_identifier(token: &str) -> bool {
    let b = token.as_bytes();
    let inner_underscore = token.trim_matches('_').contains('_');
    token.is_ascii()
        && (inner_underscore
            || token.contains("::")
            || b.windows(2).any(|w| {
                (w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
                    || (w[0].is_ascii_alphabetic() && w[1].is_ascii_digit())
            })
            || b.windows(3)
                .any(|w| w[0].is_ascii_alphabetic() && w[1] == b'.' && w[2].is_ascii_alphabetic()))
}

/// The two-sided identifier share of two token sets (see the module header): 0 when the
/// sets are equal, share less than [`SIBLING_MIN_JACCARD`] of their tokens, or only one side
/// has identifiers of its own.
pub fn sibling_share(a: &HashSet<&str>, b: &HashSet<&str>) -> f64 {
    let differing = a.symmetric_difference(b).count();
    let shared = a.intersection(b).count();
    if differing == 0 || (shared as f64) < SIBLING_MIN_JACCARD * (shared + differing) as f64 {
        return 0.0;
    }
    let only = |x: &HashSet<&str>, y: &HashSet<&str>| {
        x.iter()
            .filter(|t| !y.contains(*t) && is_identifier(t))
            .count()
    };
    let two_sided = only(a, b).min(only(b, a));
    2.0 * two_sided as f64 / differing as f64
}

/// Which of `pairs` (indices into `texts`) are template siblings: for each pair, whether its
/// [`sibling_share`] is at least [`SIBLING_SHARE`]. The same answers as calling
/// [`are_template_siblings`] on every pair, but each text is tokenized once and its tokens
/// become sorted numbers of one vocabulary, so a pair costs one merge of two sorted lists
/// instead of hash-set lookups; texts and pairs are spread over the cores. On the 113,065-page
/// queue this rule was 37% of the queue build's CPU (BENCHMARKS.md, issue 15, session 5).
pub fn template_siblings_among(texts: &[&str], pairs: &[(usize, usize)]) -> Vec<bool> {
    template_siblings_of(texts, pairs.len(), |k| pairs[k])
}

/// [`template_siblings_among`] for `count` pairs named by `pair(k)` (indices into `texts`),
/// so that a caller with many pairs need not list them.
pub fn template_siblings_of(
    texts: &[&str],
    count: usize,
    pair: impl Fn(usize) -> (usize, usize) + Sync,
) -> Vec<bool> {
    use rayon::prelude::*;
    let token_lists: Vec<Vec<&str>> = texts
        .par_iter()
        .map(|t| tokens(t).into_iter().collect())
        .collect();
    let mut vocabulary: rustc_hash::FxHashMap<&str, u32> = Default::default();
    let mut identifier: Vec<bool> = Vec::new();
    let numbered: Vec<Vec<u32>> = token_lists
        .iter()
        .map(|list| {
            list.iter()
                .map(|&t| {
                    *vocabulary.entry(t).or_insert_with(|| {
                        identifier.push(is_identifier(t));
                        (identifier.len() - 1) as u32
                    })
                })
                .collect()
        })
        .collect();
    drop(token_lists);
    let sorted: Vec<Vec<u32>> = numbered
        .into_par_iter()
        .map(|mut ids| {
            ids.sort_unstable();
            ids
        })
        .collect();
    (0..count)
        .into_par_iter()
        .map(|k| {
            let (a, b) = pair(k);
            sorted_sibling_share(&sorted[a], &sorted[b], &identifier) >= SIBLING_SHARE
        })
        .collect()
}

/// [`sibling_share`] on two sorted, distinct token-number lists (`identifier[id]`: whether
/// token `id` names code), in one merge.
fn sorted_sibling_share(a: &[u32], b: &[u32], identifier: &[bool]) -> f64 {
    let (mut i, mut j) = (0, 0);
    let (mut shared, mut only_a, mut only_b, mut ident_a, mut ident_b) = (0usize, 0, 0, 0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                shared += 1;
                i += 1;
                j += 1;
            }
            (Some(&x), Some(&y)) if x < y => {
                only_a += 1;
                ident_a += usize::from(identifier[x as usize]);
                i += 1;
            }
            (Some(&x), None) => {
                only_a += 1;
                ident_a += usize::from(identifier[x as usize]);
                i += 1;
            }
            (_, Some(&y)) => {
                only_b += 1;
                ident_b += usize::from(identifier[y as usize]);
                j += 1;
            }
            (None, None) => break,
        }
    }
    let differing = only_a + only_b;
    if differing == 0 || (shared as f64) < SIBLING_MIN_JACCARD * (shared + differing) as f64 {
        return 0.0;
    }
    2.0 * ident_a.min(ident_b) as f64 / differing as f64
}

/// Whether two texts are template siblings rather than copies (share ≥ [`SIBLING_SHARE`]).
pub fn are_template_siblings(a: &str, b: &str) -> bool {
    sibling_share(&tokens(a), &tokens(b)) >= SIBLING_SHARE
}

/// A title token carried by at most this share of its site's titles names one page (or the
/// few copies of it, one per release); more common ones (the release's version, the
/// manual's name) name the site or a release. Between 0.05 and 0.2 the debian-docs tuning
/// corpus gives the same pairs; lower keeps sites of many releases safe (a version number
/// of one release of twenty is in 5% of the titles). A site of fewer than 1 / this pages
/// has no such token, so the rule never judges a small site (counting a token of one title
/// there too removes news-v2 whole's 11 false pairs, two stories of one small site, but also
/// the look-alike help pages of two-page sites that the demo and tests show as a "no").
pub const PAGE_NAME_MAX_SHARE: f64 = 0.05;

/// How many of each site's titles carry each (lowercased) title token: what
/// [`SiteTitles::named_apart`] needs to tell a page's own name from its site's.
#[derive(Debug, Default)]
pub struct SiteTitles {
    sites: HashMap<String, SiteCounts>,
    /// Which sites are one (releases laid out as sites): counted and judged as one.
    families: SiteFamilies,
}

#[derive(Debug, Default)]
struct SiteCounts {
    pages: u32,
    titles_with: HashMap<String, u32>,
    /// The same count for the tokens of the pages' URL file names.
    names_with: HashMap<String, u32>,
}

impl SiteCounts {
    /// Whether each token set has a token the other lacks that at most `limit` of the
    /// site's pages carry (`with` counts them: titles or file names).
    fn apart(
        limit: f64,
        with: &HashMap<String, u32>,
        a: &HashSet<String>,
        b: &HashSet<String>,
    ) -> bool {
        let own_name = |x: &HashSet<String>, y: &HashSet<String>| {
            x.iter()
                .any(|t| !y.contains(t) && with.get(t).is_some_and(|&n| f64::from(n) <= limit))
        };
        own_name(a, b) && own_name(b, a)
    }
}

/// The distinct lowercased tokens of a URL's file name: its path's last segment (no query,
/// no fragment), without an extension (`.html`, `.php`), split at every character that is
/// not a letter or a digit, numbers left out, so `classCairo_1_1Surface-members.html` gives
/// `classcairo`, `1surface`, `members`. A number is no page's name: a site that posts a page
/// again gives it a new number (`/article/48213` → `/article/48590`), and a release's
/// version is in its title and directory. A URL ending in `/` has no file name and no
/// tokens.
pub fn file_name_tokens(url: &str) -> HashSet<String> {
    let name = file_name(url);
    let stem = match name.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            stem
        }
        _ => name,
    };
    stem.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty() && !t.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect()
}

/// Whether two URLs are one page at one place of one site: the same site, and paths that
/// end in the same directory and file name (the last two segments, both non-empty) with the
/// same query, while the URLs differ above them (`pkg/2.8.0/api/io/FileUtils.html` and
/// `pkg/2.11.0/api/io/FileUtils.html`; `https://docs.example/3.11/library/os.html` and
/// `…/3.12/library/os.html`). Such pairs are copies of one page in two releases or mirror
/// paths, and neither [`SiteTitles::named_apart`] nor the template-sibling rule judges them.
/// A page alone in its site's root (`pkg/index.html`, `https://a.example/x.html`) has no
/// directory and is never at one place with another; pages that differ only in their query
/// (`article.php?id=1` / `?id=2`) are two pages.
///
/// One site is one family of sites ([`SiteFamilies`]): a release unpacked into a folder of its
/// own is at one place with the other releases' copies of its pages.
pub fn same_place(sites: &SiteFamilies, a: &str, b: &str) -> bool {
    fn place(url: &str) -> Option<(&str, &str, &str)> {
        let (path, query) = crate::extract::sites::path_in_site(url);
        let mut segments = path.rsplit('/');
        let name = segments.next().filter(|n| !n.is_empty())?;
        let dir = segments.next().filter(|d| !d.is_empty())?;
        Some((dir, name, query))
    }
    a != b && sites.same_site(a, b) && matches!((place(a), place(b)), (Some(x), Some(y)) if x == y)
}

/// The distinct lowercased tokens of a title (as [`tokens`] splits them).
pub fn title_tokens(title: &str) -> HashSet<String> {
    let lower = title.to_lowercase();
    tokens(&lower).into_iter().map(str::to_owned).collect()
}

/// A page's name tokens, its title's and its URL file name's, made once for the many pairs
/// a page is in ([`SiteTitles::named_apart_from`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageName {
    title: HashSet<String>,
    file: HashSet<String>,
}

impl PageName {
    pub fn of(url: &str, title: &str) -> Self {
        PageName {
            title: title_tokens(title),
            file: file_name_tokens(url),
        }
    }
}

impl SiteTitles {
    /// Counts every page's title tokens on its site (`(url, title)` of every stored page),
    /// the sites' families ([`SiteFamilies`]) found from the same URLs.
    pub fn new<'a>(pages: impl IntoIterator<Item = (&'a str, &'a str)> + Clone) -> Self {
        let families = SiteFamilies::of(pages.clone().into_iter().map(|(url, _)| url));
        Self::with_families(pages, families)
    }

    /// [`SiteTitles::new`] with the sites' families given.
    fn with_families<'a>(
        pages: impl IntoIterator<Item = (&'a str, &'a str)>,
        families: SiteFamilies,
    ) -> Self {
        let mut out = SiteTitles {
            families,
            ..SiteTitles::default()
        };
        for (url, title) in pages {
            let site = out.families.site_of(url).to_owned();
            let site = out.sites.entry(site).or_default();
            site.pages += 1;
            for t in title_tokens(title) {
                *site.titles_with.entry(t).or_default() += 1;
            }
            for t in file_name_tokens(url) {
                *site.names_with.entry(t).or_default() += 1;
            }
        }
        out
    }

    /// [`SiteTitles::named_apart`] with page `a`'s name tokens made beforehand (`a_url`:
    /// its URL), for a page judged against many others.
    pub fn named_apart_from(&self, a_url: &str, a: &PageName, b: (&str, &str)) -> bool {
        let site = self.families.site_of(a_url);
        if site != self.families.site_of(b.0) || same_place(&self.families, a_url, b.0) {
            return false;
        }
        let Some(counts) = self.sites.get(site) else {
            return false;
        };
        let limit = PAGE_NAME_MAX_SHARE * f64::from(counts.pages);
        SiteCounts::apart(limit, &counts.titles_with, &a.title, &title_tokens(b.1))
            || SiteCounts::apart(limit, &counts.names_with, &a.file, &file_name_tokens(b.0))
    }

    /// The sites' families the counts were made with.
    pub fn into_families(self) -> SiteFamilies {
        self.families
    }

    /// Whether two pages are two pages of one site by their names: same site, and each title
    /// has a token the other lacks that at most [`PAGE_NAME_MAX_SHARE`] of the site's titles
    /// carry, or the same of their URLs' file names ([`file_name_tokens`]). Pages on
    /// different sites, on a site not counted, or at one place ([`same_place`]: one page
    /// in two releases, whatever its titles say) are never named apart.
    pub fn named_apart(&self, a: (&str, &str), b: (&str, &str)) -> bool {
        self.named_apart_from(a.0, &PageName::of(a.0, a.1), b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sorted(t: &str) -> Vec<&str> {
        let mut v: Vec<&str> = tokens(t).into_iter().collect();
        v.sort_unstable();
        v
    }

    proptest::proptest! {
        /// The batch rule on sorted token numbers answers as the set rule does, pair by pair.
        #[test]
        fn the_batch_rule_equals_the_set_rule(
            texts in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(vec![
                        "gtk_new", "QString::arg", "compat32", "email.message", "the", "page",
                        "of", "6.1.170", "bodyUsed", "x-ray", "Qt", "manual", "lg12a", "and",
                    ]),
                    0..40,
                ).prop_map(|w| w.join(" ")),
                1..8,
            ),
            picks in proptest::collection::vec((0usize..8, 0usize..8), 0..20),
        ) {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let pairs: Vec<(usize, usize)> =
                picks.iter().map(|&(a, b)| (a % refs.len(), b % refs.len())).collect();
            let fast = template_siblings_among(&refs, &pairs);
            for (k, &(a, b)) in pairs.iter().enumerate() {
                proptest::prop_assert_eq!(fast[k], are_template_siblings(refs[a], refs[b]));
            }
        }
    }

    #[test]
    fn tokens_join_dotted_and_scoped_names_but_not_sentence_ends() {
        assert_eq!(
            sorted("Use email.message. See QString::arg, v6.1.170 - done"),
            [
                "QString::arg",
                "See",
                "Use",
                "done",
                "email.message",
                "v6.1.170"
            ]
        );
        assert_eq!(sorted("über_alles ça"), ["ça", "über_alles"]);
    }

    #[test]
    fn identifiers_are_code_names_not_words_or_versions() {
        for id in [
            "gtk_vscale_new",
            "QString::arg",
            "bodyUsed",
            "email.message",
            "compat32",
        ] {
            assert!(is_identifier(id), "{id}");
        }
        for word in [
            "message",
            "Reuters",
            "6.1.170",
            "_private",
            "well-known",
            "频道_中国",
        ] {
            assert!(!is_identifier(word), "{word}");
        }
    }

    #[test]
    fn siblings_name_identifiers_on_both_sides_copies_do_not() {
        let h = "GtkHScale — a horizontal slider. gtk_hscale_new creates a new \
                 horizontal scale widget. GtkHScale is deprecated, use GtkScale.";
        let v = "GtkVScale — a vertical slider. gtk_vscale_new creates a new \
                 vertical scale widget. GtkVScale is deprecated, use GtkScale.";
        assert!(are_template_siblings(h, v));
        // A patch release: a version number and a word changed, no identifier.
        let h2 = h.replace("deprecated", "obsolete") + " Version 3.24.38.";
        let h3 = h.to_string() + " Version 3.24.49.";
        assert!(!are_template_siblings(&h2, &h3));
        // A copy with script text on one side only.
        let js = h.to_string() + " d.getElementById(id); js.src = widgets.js";
        assert!(!are_template_siblings(h, &js));
        assert_eq!(sibling_share(&tokens(h), &tokens(h)), 0.0);
        // Pages sharing one sentence among lines of code-like made-up words of their own.
        let own =
            |tag: &str| -> String { (0..30).map(|i| format!("{tag}{i}a {tag}{i}b. ")).collect() };
        let shared = "The bridge carries two tram lines and a path.";
        assert!(!are_template_siblings(
            &(own("lp") + shared),
            &(own("rp") + shared)
        ));
    }

    /// A site of `n` classes' member-list pages in two releases, titled like Qt's.
    fn member_lists(n: usize) -> Vec<(String, String)> {
        let mut pages = Vec::new();
        for release in ["5.15.2", "5.15.8"] {
            for i in 0..n {
                pages.push((
                    format!("qt/{release}/class{i}-members.html"),
                    format!("List of All Members for QClass{i} | Qt Core {release}"),
                ));
            }
        }
        pages
    }

    fn p(x: &(String, String)) -> (&str, &str) {
        (x.0.as_str(), x.1.as_str())
    }

    fn site_titles(pages: &[(String, String)]) -> SiteTitles {
        SiteTitles::new(pages.iter().map(|(u, t)| (u.as_str(), t.as_str())))
    }

    #[test]
    fn pages_of_one_site_with_names_of_their_own_are_named_apart() {
        let pages = member_lists(30);
        let titles = site_titles(&pages);
        let page = |i: usize| (pages[i].0.as_str(), pages[i].1.as_str());
        // Two classes' member lists, same or different release.
        assert!(titles.named_apart(page(0), page(1)));
        assert!(titles.named_apart(page(0), page(31)));
        // One class's list in two releases: the version is in half the site's titles.
        assert!(!titles.named_apart(page(0), page(30)));
        // A title that only gains a word is not named apart (nothing of its own on one side).
        let deprecated = (
            "qt/5.15.8/class0-members.html",
            "List of All Members for QClass0 | Qt Core 5.15.8 Deprecated",
        );
        assert!(!titles.named_apart(page(0), deprecated));
    }

    #[test]
    fn pages_across_sites_or_on_small_sites_are_never_named_apart() {
        let mut pages = member_lists(30);
        pages.push(("wire.example/a".into(), "Storm hits coast | Wire".into()));
        pages.push((
            "paper.example/b".into(),
            "Coast battered by storm - Paper".into(),
        ));
        let small = member_lists(5);
        let titles = site_titles(&pages);
        assert!(!titles.named_apart(p(&pages[60]), p(&pages[61])));
        // A site of 10 pages: every token is in at least one tenth of its titles.
        let small_titles = site_titles(&small);
        assert!(!small_titles.named_apart(p(&small[0]), p(&small[1])));
        assert!(!small_titles.named_apart(p(&small[0]), p(&small[5])));
        // A news site of three stories: too few titles to tell a page's name from the site's.
        let news: Vec<(String, String)> = [
            "Storm hits coast | Courier",
            "Council votes on budget | Courier",
            "Ferry to close | Courier",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("courier.example/{i}"), t.to_string()))
        .collect();
        let news_titles = site_titles(&news);
        assert!(!news_titles.named_apart(p(&news[0]), p(&news[1])));
        // A page whose site was never counted.
        assert!(!titles.named_apart(("other/x", "QClass0"), ("other/y", "QClass1")));
    }

    #[test]
    fn file_name_tokens_are_the_last_path_segment_split_at_punctuation() {
        let sorted = |u: &str| {
            let mut v: Vec<String> = file_name_tokens(u).into_iter().collect();
            v.sort();
            v
        };
        assert_eq!(
            sorted("cairomm/1.14/html/classCairo_1_1Surface-members.html"),
            ["1surface", "classcairo", "members"]
        );
        assert_eq!(
            sorted("https://docs.example/3.11/library/email.message.html?x=1#top"),
            ["email", "message"]
        );
        assert_eq!(
            sorted("https://news.example/2024/story-slug/"),
            [] as [&str; 0]
        );
        assert_eq!(sorted("https://news.example"), [] as [&str; 0]);
        assert_eq!(sorted("site/README"), ["readme"]);
        assert_eq!(
            sorted("https://news.example/article/48213"),
            [] as [&str; 0]
        );
        assert_eq!(sorted("sqlite/releaselog/3_12_2.html"), [] as [&str; 0]);
    }

    /// Doxygen titles every member list `PKG: Member List`: the title names no class, the
    /// file name does.
    #[test]
    fn pages_with_one_title_are_named_apart_by_their_file_names() {
        let mut pages = Vec::new();
        for release in ["2.46.3", "2.46.4"] {
            for i in 0..20 {
                pages.push((
                    format!("pangomm/{release}/html/classPango_1_1Attr{i}-members.html"),
                    "pangomm: Member List".to_string(),
                ));
            }
            for letter in ["a", "b"] {
                pages.push((
                    format!("pangomm/{release}/html/functions_{letter}.html"),
                    "pangomm: Class Members".to_string(),
                ));
                pages.push((
                    format!("pangomm/{release}/html/functions_func_{letter}.html"),
                    "pangomm: Class Members - Functions".to_string(),
                ));
            }
        }
        let titles = site_titles(&pages);
        let page = |i: usize| p(&pages[i]);
        // Two classes' lists; one class's list in two releases.
        assert!(titles.named_apart(page(0), page(1)));
        assert!(!titles.named_apart(page(0), page(24)));
        // `functions_a` / `functions_func_a`: only one name has a word of its own.
        assert!(!titles.named_apart(page(20), page(21)));
        // `functions_a` / `functions_b`: each letter is in 4 of the 48 file names (two
        // indexes, two releases), over 5%: not a page's own name.
        assert!(!titles.named_apart(page(20), page(22)));
        // A crawl's URLs: the host is not a file name.
        let crawl: Vec<(String, String)> = (0..40)
            .map(|i| {
                (
                    format!("https://docs.example/p{i}.html"),
                    "Docs".to_string(),
                )
            })
            .collect();
        let crawl_titles = site_titles(&crawl);
        assert!(crawl_titles.named_apart(p(&crawl[0]), p(&crawl[1])));
        assert!(!crawl_titles.named_apart(
            ("https://docs.example/", "Docs"),
            ("https://docs.example/p0.html", "Docs")
        ));
    }

    #[test]
    fn same_place_is_one_directory_and_file_name_under_other_paths() {
        let none = SiteFamilies::default();
        // One page of a package in two releases; one page of a site under two versions.
        assert!(same_place(
            &none,
            "pkg/2.8.0/api/io/FileUtils.html",
            "pkg/2.11.0/api/io/FileUtils.html"
        ));
        assert!(same_place(
            &none,
            "https://docs.example/3.11/library/os.html",
            "https://docs.example/3.12/library/os.html"
        ));
        // Another directory, another file, another site, another query: two pages.
        assert!(!same_place(
            &none,
            "pkg/1/api/map/Range.html",
            "pkg/1/api/set/Range.html"
        ));
        assert!(!same_place(
            &none,
            "pkg/1/api/io/A.html",
            "pkg/2/api/io/B.html"
        ));
        assert!(!same_place(&none, "a/1/api/io/A.html", "b/1/api/io/A.html"));
        assert!(!same_place(
            &none,
            "https://n.example/news/article.php?id=1",
            "https://n.example/old/news/article.php?id=2"
        ));
        // No directory under the site: releases laid out as `site/RELEASE/page.html`
        // differ in that directory; a page in the site's root has none; a URL is itself.
        assert!(!same_place(
            &none,
            "qt/5.15.2/qmap.html",
            "qt/5.15.8/qmap.html"
        ));
        assert!(!same_place(
            &none,
            "https://a.example/x.html",
            "https://a.example/x.html"
        ));
        assert!(!same_place(
            &none,
            "https://a.example/d/",
            "https://a.example/e/d/"
        ));
        // Releases unpacked each into a folder of its own are one site.
        let urls: Vec<String> = ["qt@5.15.2", "qt@5.15.8"]
            .iter()
            .flat_map(|r| (0..10).map(move |k| format!("{r}/qtcore/q{k}.html")))
            .collect();
        let releases = SiteFamilies::of(urls.iter().map(String::as_str));
        assert!(same_place(&releases, &urls[3], &urls[13]));
        assert!(!same_place(&none, &urls[3], &urls[13]));
        assert!(!same_place(&releases, &urls[3], &urls[14]));
    }

    /// Issue 14 (session 9): a generator upgrade rewrites every title between two releases
    /// (rustdoc's `alloc::fmt::UpperHex - Rust` → `UpperHex in alloc::fmt - Rust`); the page
    /// stays at its place, so it is not named apart, while two pages at two places still are.
    #[test]
    fn a_page_at_one_place_is_not_named_apart_by_a_rewritten_title() {
        let mut pages = Vec::new();
        for i in 0..20 {
            pages.push((
                format!("rust-doc/1.48/html/alloc/m{i}/trait.T{i}.html"),
                format!("alloc::m{i}::T{i} - Rust"),
            ));
            pages.push((
                format!("rust-doc/1.63/html/alloc/m{i}/trait.T{i}.html"),
                format!("T{i} in alloc::m{i} - Rust"),
            ));
        }
        let titles = site_titles(&pages);
        let page = |i: usize| p(&pages[i]);
        // One trait in two releases: titles each with a token of their own, one place.
        assert!(!titles.named_apart(page(0), page(1)));
        // Two traits of one release: named apart as before.
        assert!(titles.named_apart(page(0), page(2)));
        assert!(titles.named_apart(page(1), page(3)));
    }
}
