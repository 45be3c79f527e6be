//! Language editions a site names in its paths: `manual/de/mod/core.html` beside
//! `manual/en/mod/core.html`, `html/ar-MA/sect.x.html` beside `html/en-US/sect.x.html`.
//!
//! A translation is no copy of its original (`detect::languages`), but the text test cannot
//! tell an edition's page that is not translated yet: the site serves it in the other
//! edition's language, so the two texts are one text (dd-held10: apache2-doc's quick
//! reference under `de/`, `es/`, `ko/`, `tr/`, `zh-cn/`, English but for its headings, 273
//! false pairs; dd-lang: debian-handbook's untranslated sections under `ar-MA/`, `cs-CZ/`, …,
//! 430). The site itself says they are two pages: it put them under two language tags.
//!
//! This module owns the two tests: the path test ([`language_tags`]: a path segment that is
//! an ISO 639-1 code, alone or with a region or script, `de`, `pt-BR`, `zh_CN`, `zh-hans`) and
//! the tag test ([`EditionsBuilder`]): a site's tag at one depth names a language edition
//! when at least [`EDITION_MIN_PAGES`] of the pages under it are identified in its language.
//! Two pages in editions of two languages are no pair, on one site or two (gimp-help-de and
//! gimp-help-en are two packages, two sites here, one manual's editions on the web). A
//! paper whose `/ca/` and `/uk/` are country editions of one English paper names no
//! edition (no page under `ca/` is Catalan), so its copies of one wire story stay pairs.

use rustc_hash::FxHashMap;

use super::sites::{path_in_site, site_hash, site_key};

/// A language as the identifier stores it (ISO 639-1, lower case).
pub type Lang = [u8; 2];

/// ISO 639-1's codes, sorted (for the binary search).
const ISO_639_1: &[&str] = &[
    "aa", "ab", "ae", "af", "ak", "am", "an", "ar", "as", "av", "ay", "az", "ba", "be", "bg", "bi",
    "bm", "bn", "bo", "br", "bs", "ca", "ce", "ch", "co", "cr", "cs", "cu", "cv", "cy", "da", "de",
    "dv", "dz", "ee", "el", "en", "eo", "es", "et", "eu", "fa", "ff", "fi", "fj", "fo", "fr", "fy",
    "ga", "gd", "gl", "gn", "gu", "gv", "ha", "he", "hi", "ho", "hr", "ht", "hu", "hy", "hz", "ia",
    "id", "ie", "ig", "ii", "ik", "io", "is", "it", "iu", "ja", "jv", "ka", "kg", "ki", "kj", "kk",
    "kl", "km", "kn", "ko", "kr", "ks", "ku", "kv", "kw", "ky", "la", "lb", "lg", "li", "ln", "lo",
    "lt", "lu", "lv", "mg", "mh", "mi", "mk", "ml", "mn", "mr", "ms", "mt", "my", "na", "nb", "nd",
    "ne", "ng", "nl", "nn", "no", "nr", "nv", "ny", "oc", "oj", "om", "or", "os", "pa", "pi", "pl",
    "ps", "pt", "qu", "rm", "rn", "ro", "ru", "rw", "sa", "sc", "sd", "se", "sg", "si", "sk", "sl",
    "sm", "sn", "so", "sq", "sr", "ss", "st", "su", "sv", "sw", "ta", "te", "tg", "th", "ti", "tk",
    "tl", "tn", "to", "tr", "ts", "tt", "tw", "ty", "ug", "uk", "ur", "uz", "ve", "vi", "vo", "wa",
    "wo", "xh", "yi", "yo", "za", "zh", "zu",
];

/// A site's tags at one depth all name editions when tags of at least this many languages
/// there are shown to ([`EDITION_MIN_PAGES`]).
pub const EDITION_SITE_MIN_LANGUAGES: usize = 2;

/// A tag names a language edition when at least this many pages under it (on its site, at
/// its depth) are identified in its language: one page could be a misidentified one.
pub const EDITION_MIN_PAGES: usize = 2;

/// The language a path segment names: an ISO 639-1 code (any case), alone or followed by
/// `-` or `_` and a region or script of two to four letters or digits (`en-US`, `zh_CN`,
/// `zh-hans`, `es-419`). `None` for anything else (`docs`, `v2`, `eng`, `en-`).
pub fn edition_language(segment: &str) -> Option<Lang> {
    let b = segment.as_bytes();
    if b.len() < 2 || !b[..2].iter().all(u8::is_ascii_alphabetic) {
        return None;
    }
    match b.get(2) {
        None => {}
        Some(b'-' | b'_') => {
            let rest = &b[3..];
            if !(2..=4).contains(&rest.len()) || !rest.iter().all(u8::is_ascii_alphanumeric) {
                return None;
            }
        }
        Some(_) => return None,
    }
    let code = [b[0].to_ascii_lowercase(), b[1].to_ascii_lowercase()];
    let as_str = std::str::from_utf8(&code).ok()?;
    ISO_639_1.binary_search(&as_str).ok().map(|_| code)
}

/// The language tags of a URL's path inside its site, with each one's depth (its segment's
/// index): `pkg/2.4/manual/de/mod/core.html` → `[(2, de)]`. Empty for most URLs.
pub fn language_tags(url: &str) -> Vec<(u16, Lang)> {
    let (path, _) = path_in_site(url);
    path.split('/')
        .enumerate()
        .take(usize::from(u16::MAX))
        .filter_map(|(depth, seg)| Some((depth as u16, edition_language(seg)?)))
        .collect()
}

/// Collects the pages whose paths carry a language tag, each with its identified language,
/// then decides which tags name editions ([`EditionsBuilder::finish`]).
#[derive(Debug, Default)]
pub struct EditionsBuilder {
    pages: FxHashMap<i64, (u64, Vec<(u16, Lang)>)>,
    /// Per tag (site hash, depth, language), the pages under it identified in its language.
    in_own_language: FxHashMap<(u64, u16, Lang), usize>,
}

impl EditionsBuilder {
    /// Notes page `id` at `url` when its path carries a tag; `lang` is its identified
    /// language (`None` or `und` when unknown). Returns whether it was noted.
    pub fn add(&mut self, id: i64, url: &str, lang: Option<&str>) -> bool {
        let tags = language_tags(url);
        if tags.is_empty() {
            return false;
        }
        let site = site_hash(site_key(url));
        if let Some(l) = lang.and_then(|l| <Lang>::try_from(l.as_bytes()).ok()) {
            for &(depth, tag) in &tags {
                if tag == l {
                    *self.in_own_language.entry((site, depth, tag)).or_default() += 1;
                }
            }
        }
        self.pages.insert(id, (site, tags));
        true
    }

    /// Each page's edition: the language of its deepest tag that names an edition. A tag
    /// names one when [`EDITION_MIN_PAGES`] pages under it are in its language, or when its
    /// site has tags of two languages or more so shown at its depth: the site's tags there
    /// are editions, a new one with no page translated yet too (debian-handbook's `da-DK/`
    /// holds only English sections, beside `cs-CZ/` and `ar-MA/`).
    pub fn finish(self) -> Editions {
        let shown = |key: &(u64, u16, Lang)| {
            self.in_own_language.get(key).copied().unwrap_or(0) >= EDITION_MIN_PAGES
        };
        let mut languages_shown: FxHashMap<(u64, u16), usize> = FxHashMap::default();
        for key in self.in_own_language.keys().filter(|k| shown(k)) {
            *languages_shown.entry((key.0, key.1)).or_default() += 1;
        }
        let names_edition = |site: u64, depth: u16, lang: Lang| {
            shown(&(site, depth, lang))
                || languages_shown.get(&(site, depth)).copied().unwrap_or(0)
                    >= EDITION_SITE_MIN_LANGUAGES
        };
        let edition = self
            .pages
            .iter()
            .filter_map(|(&id, (site, tags))| {
                let (_, lang) = tags
                    .iter()
                    .rev()
                    .find(|&&(depth, lang)| names_edition(*site, depth, lang))?;
                Some((id, *lang))
            })
            .collect();
        Editions { edition }
    }
}

/// The language edition of every page in one (pages under no edition's tag are left out).
#[derive(Debug, Default)]
pub struct Editions {
    edition: FxHashMap<i64, Lang>,
}

impl Editions {
    /// Documents `a` and `b` are pages of two language editions.
    pub fn apart(&self, a: i64, b: i64) -> bool {
        // Most collections name no edition: every pair of every method asks.
        if self.edition.is_empty() {
            return false;
        }
        match (self.edition.get(&a), self.edition.get(&b)) {
            (Some(la), Some(lb)) => la != lb,
            _ => false,
        }
    }

    /// The edition of document `id`, if it is in one.
    pub fn of(&self, id: i64) -> Option<Lang> {
        self.edition.get(&id).copied()
    }

    /// Pages in an edition.
    pub fn len(&self) -> usize {
        self.edition.len()
    }

    pub fn is_empty(&self) -> bool {
        self.edition.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_sorted_for_the_binary_search() {
        assert!(ISO_639_1.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(ISO_639_1.len(), 183, "ISO 639-1 since bh was withdrawn");
    }

    #[test]
    fn a_segment_names_a_language_with_its_region_or_script() {
        for (seg, want) in [
            ("de", Some(*b"de")),
            ("EN", Some(*b"en")),
            ("en-US", Some(*b"en")),
            ("ar-MA", Some(*b"ar")),
            ("zh_CN", Some(*b"zh")),
            ("zh-hans", Some(*b"zh")),
            ("es-419", Some(*b"es")),
            ("pt-br", Some(*b"pt")),
            ("docs", None),
            ("v2", None),
            ("us", None),
            ("eng", None),
            ("en-", None),
            ("en-abcde", None),
            ("e", None),
            ("", None),
            ("ü1", None),
        ] {
            assert_eq!(edition_language(seg), want, "{seg}");
        }
    }

    #[test]
    fn tags_are_read_inside_the_site_at_their_depth() {
        assert_eq!(
            language_tags("apache2-doc/2.4.62/manual/de/mod/core.html"),
            vec![(2, *b"de")]
        );
        assert_eq!(
            language_tags("https://example.org/fr/actualites/une.html?x=1#top"),
            vec![(0, *b"fr")]
        );
        // The host is no tag (`de.example.org` is a host, `it` here a folder ingest's site).
        assert!(language_tags("https://de/news/a.html").is_empty());
        assert!(language_tags("it/news/a.html").is_empty());
    }

    fn built(pages: &[(i64, &str, &str)]) -> Editions {
        let mut b = EditionsBuilder::default();
        for (id, url, lang) in pages {
            b.add(*id, url, Some(lang));
        }
        b.finish()
    }

    #[test]
    fn a_tag_with_pages_in_its_language_names_an_edition() {
        let e = built(&[
            (1, "a/manual/en/core.html", "en"),
            (2, "a/manual/en/mod.html", "en"),
            (3, "a/manual/de/core.html", "en"), // not translated yet
            (4, "a/manual/de/index.html", "de"),
            (5, "a/manual/de/mod.html", "de"),
            (6, "b/help/en/core.html", "en"),
            (7, "b/help/en/mod.html", "en"),
            (8, "c/hilfe/de/core.html", "en"),
        ]);
        assert!(e.apart(1, 3));
        assert!(e.apart(3, 1));
        assert!(!e.apart(3, 4), "one edition");
        assert!(e.apart(3, 6), "two sites' editions");
        assert!(!e.apart(1, 6), "two sites' English editions");
        assert_eq!(e.of(8), None, "site c's de/ holds no German page");
        assert!(!e.apart(8, 1));
        assert!(!e.apart(1, 99));
    }

    #[test]
    fn a_new_edition_with_nothing_translated_yet_is_an_edition_beside_two_shown_ones() {
        let e = built(&[
            (1, "h/html/cs-CZ/a.html", "cs"),
            (2, "h/html/cs-CZ/b.html", "cs"),
            (3, "h/html/cs-CZ/c.html", "en"),
            (4, "h/html/ar-MA/a.html", "ar"),
            (5, "h/html/ar-MA/b.html", "ar"),
            (6, "h/html/da-DK/c.html", "en"),
            (7, "h/other/x/da/c.html", "en"),
        ]);
        assert!(e.apart(3, 6), "da-DK: an edition of the site's html/");
        assert_eq!(e.of(7), None, "another depth shows no edition");
    }

    #[test]
    fn country_editions_in_one_language_are_no_language_editions() {
        // `ca` and `uk` are ISO 639-1 codes (Catalan, Ukrainian), but no page under them is
        // in that language: a paper's Canadian and British editions of one English story.
        let e = built(&[
            (1, "paper/ca/world/story.html", "en"),
            (2, "paper/uk/world/story.html", "en"),
            (3, "paper/ca/about.html", "en"),
            (4, "paper/uk/about.html", "en"),
            (5, "paper/uk/other.html", "uk"),
        ]);
        assert!(!e.apart(1, 2));
        assert_eq!(e.of(5), None, "one page in a tag's language is not enough");
        assert!(e.is_empty());
    }
}
