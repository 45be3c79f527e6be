//! Which pages are on one site. A page's site is its URL's host, or a folder ingest's first
//! path segment ([`site_key`]); and some sites are one: the releases of one manual unpacked
//! each into its own folder (`qt-5.15.8/qtcore/qmap.html`, `qt-5.15.15/qtcore/qmap.html`), or
//! served each from its own host, hold the same pages at the same places. Every rule that
//! judges the pairs of one site apart from the pairs across sites (Cooper's containment and
//! passage rules, SpotSigs' site rule and sibling threshold, I-Match's cross-site bags, the
//! queue's named-apart and same-place tests) must see such releases as one site: taken as
//! two, the rules for copies across sites pair each release's template siblings with the
//! other release's pages (ci-dd so laid out: the union's precision 1.000 → .812; BENCHMARKS.md,
//! "Releases laid out as sites"). This module owns that test ([`SiteFamilies`]): two sites
//! are one when most pages of the smaller are at a place the other has too.
//!
//! A page's place is, as for [`crate::model::siblings::same_place`], its path's last directory
//! and file name (`qtcore/qmap.html`), so a release that moved its manual under a new top
//! directory still matches; pages named by a query or a number have none ([`place_key`]: two
//! sites of one CMS number their pages alike). News sites are not joined by it: two sites
//! carrying the same wire stories name them under their own paths, and where a CMS gives both
//! the same paths, the copies at one place are copies to either rule.

use rustc_hash::FxHashMap as HashMap;

pub use super::content::site_key;

/// Two sites are one when at least this share of the smaller site's places are places of
/// the other too. Measured on the 12 doc corpora with each release a site of its own
/// (session 27): two releases of one package share a median .92–1.00 of their places per
/// corpus (.72 the least among those that share any; a release that restructured its manual
/// shares none and stays a site of its own), two packages at most .45 (dd-held4: two doxygen
/// manuals' generated index pages), two news sites their few fixed pages.
pub const SAME_SITE_MIN_SHARE: f64 = 0.5;

/// ... and at least this many places, so two small sites that share their index, contact
/// and privacy pages (three or four places, most of a three-page site) stay two.
pub const SAME_SITE_MIN_PLACES: usize = 8;

/// A place on more sites than this names no page of a manual (`index.html`, `about/`,
/// `privacy`): it is left out of the counts, which keeps them linear in the pages on a crawl
/// of many small sites. A manual released from more hosts than this is beyond the rule.
pub const MAX_SITES_A_PLACE: usize = 64;

/// Which sites are one: each site of a family of two or more, and the family's name (its
/// least member, so the answer depends on the set of URLs only, not their order). A site
/// not listed is a family of its own. Empty ([`SiteFamilies::default`]) every site is its
/// own.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SiteFamilies {
    family: HashMap<String, String>,
    /// The same by site hash ([`site_hash`]), for the detectors that keep a site as one.
    family_hash: HashMap<u64, u64>,
}

/// A site's hash as the detectors keep it (FNV-1a 64 of [`site_key`]; Cooper and I-Match
/// store it in their signatures, so it must not change between versions).
pub fn site_hash(site: &str) -> u64 {
    crate::sig::cooper::fnv1a64(site.as_bytes())
}

/// A URL's path inside its site and its query, the fragment dropped: after the host, or after
/// a folder ingest's first segment (`https://a.example/x/y.html?q=1#top` → `x/y.html`, `q=1`;
/// `pkg/1.0/a.html` → `1.0/a.html`, ``).
pub fn path_in_site(url: &str) -> (&str, &str) {
    let url = url.split('#').next().unwrap_or(url);
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let path = match path.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, p)| p),
        None => path.split_once('/').map_or("", |(_, p)| p),
    };
    (path, query)
}

/// A URL's place in its site, for the family test: its path's last directory and file name
/// (the directory alone for a URL ending in `/`), hashed. The path is the one inside the
/// site: after the host, or after a folder ingest's first segment. `None`: no place that
/// names a page of a manual, so it counts for no family — a site's root (every site has one),
/// a URL with a query (`article.php?id=12`, `viewtopic.php?t=7`: two sites of one CMS number
/// their pages alike), and a name without a letter (`/article/48213`, `/2024/05/`: numbered
/// stories and archives).
pub fn place_key(url: &str) -> Option<u64> {
    let (path, query) = path_in_site(url);
    if !query.is_empty() {
        return None;
    }
    let mut segments = path.rsplit('/');
    let name = segments.next().unwrap_or("");
    let dir = segments.next().unwrap_or("");
    let names_a_page = if name.is_empty() { dir } else { name };
    if !names_a_page.chars().any(char::is_alphabetic) {
        return None;
    }
    let mut key = String::with_capacity(dir.len() + name.len() + 1);
    key.push_str(dir);
    key.push('/');
    key.push_str(name);
    Some(super::content::line_hash(&key))
}

/// [`SiteFamilies::of`] a URL at a time (a store streams its URLs rather than hold them
/// all): a site's name once and 12 bytes a page with a place.
#[derive(Debug, Default)]
pub struct SiteFamiliesBuilder {
    site_number: HashMap<String, u32>,
    places: Vec<(u64, u32)>,
}

impl SiteFamiliesBuilder {
    /// Counts one page's URL.
    pub fn add(&mut self, url: &str) {
        let site = site_key(url);
        let number = match self.site_number.get(site) {
            Some(&n) => n,
            None => {
                let n = self.site_number.len() as u32;
                self.site_number.insert(site.to_string(), n);
                n
            }
        };
        if let Some(place) = place_key(url) {
            self.places.push((place, number));
        }
    }

    /// The families of the sites counted.
    pub fn finish(self) -> SiteFamilies {
        let SiteFamiliesBuilder {
            site_number,
            mut places,
        } = self;
        if site_number.len() < 2 {
            return SiteFamilies::default();
        }
        let mut sites: Vec<&str> = vec![""; site_number.len()];
        for (site, &n) in &site_number {
            sites[n as usize] = site;
        }
        places.sort_unstable();
        places.dedup();
        let mut places_of = vec![0usize; sites.len()];
        for &(_, s) in &places {
            places_of[s as usize] += 1;
        }
        // Shared places of every two sites that share one (sites ascending within a place,
        // as the sort left them).
        let mut shared: HashMap<(u32, u32), usize> = HashMap::default();
        for run in places.chunk_by(|x, y| x.0 == y.0) {
            if run.len() < 2 || run.len() > MAX_SITES_A_PLACE {
                continue;
            }
            for (i, &(_, a)) in run.iter().enumerate() {
                for &(_, b) in &run[i + 1..] {
                    *shared.entry((a, b)).or_default() += 1;
                }
            }
        }
        drop(places);
        let mut sets = crate::cluster::union_find::UnionFind::new(sites.len());
        for (&(a, b), &n) in &shared {
            let smaller = places_of[a as usize].min(places_of[b as usize]);
            if n >= SAME_SITE_MIN_PLACES && n as f64 >= SAME_SITE_MIN_SHARE * smaller as f64 {
                sets.union(a, b);
            }
        }
        let mut members: HashMap<u32, Vec<&str>> = HashMap::default();
        for s in 0..sites.len() as u32 {
            members
                .entry(sets.find(s))
                .or_default()
                .push(sites[s as usize]);
        }
        let mut out = SiteFamilies::default();
        for family in members.into_values().filter(|m| m.len() > 1) {
            // `family` is not empty (a component holds its root).
            let name = family.iter().copied().min().unwrap_or_default();
            for site in family {
                out.family.insert(site.to_string(), name.to_string());
                out.family_hash.insert(site_hash(site), site_hash(name));
            }
        }
        out
    }
}

impl SiteFamilies {
    /// The families of the sites of `urls` (every stored page's URL: the test counts each
    /// site's places). Linear in the URLs but for the places few sites share.
    pub fn of<'a>(urls: impl IntoIterator<Item = &'a str>) -> Self {
        let mut builder = SiteFamiliesBuilder::default();
        for url in urls {
            builder.add(url);
        }
        builder.finish()
    }

    /// The site a family is named by, for `site` (itself when it is its own family).
    pub fn family<'s>(&'s self, site: &'s str) -> &'s str {
        self.family.get(site).map_or(site, String::as_str)
    }

    /// A URL's site, families joined: [`site_key`] and then [`Self::family`].
    pub fn site_of<'s>(&'s self, url: &'s str) -> &'s str {
        self.family(site_key(url))
    }

    /// [`Self::family`] on a site's hash ([`site_hash`]).
    pub fn family_hash(&self, site: u64) -> u64 {
        self.family_hash.get(&site).copied().unwrap_or(site)
    }

    /// Whether two URLs are on one site, families joined.
    pub fn same_site(&self, a: &str, b: &str) -> bool {
        self.site_of(a) == self.site_of(b)
    }

    /// The families of two sites or more, each as its sites in order (what `detect`'s
    /// summary and the tests show).
    pub fn joined(&self) -> Vec<Vec<&str>> {
        let mut by_name: HashMap<&str, Vec<&str>> = HashMap::default();
        for (site, name) in &self.family {
            by_name
                .entry(name.as_str())
                .or_default()
                .push(site.as_str());
        }
        let mut out: Vec<Vec<&str>> = by_name
            .into_values()
            .map(|mut m| {
                m.sort_unstable();
                m
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// Whether every site is its own family.
    pub fn is_empty(&self) -> bool {
        self.family.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manual(site: &str, pages: &[&str]) -> Vec<String> {
        pages.iter().map(|p| format!("{site}/{p}")).collect()
    }

    const QT: [&str; 10] = [
        "qtcore/qmap.html",
        "qtcore/qset.html",
        "qtcore/qhash.html",
        "qtcore/qlist.html",
        "qtcore/qstring.html",
        "qtcore/qbytearray.html",
        "qtcore/qmutablemapiterator.html",
        "qtcore/qmutablesetiterator.html",
        "qtcore/index.html",
        "qtgui/qwindow.html",
    ];

    #[test]
    fn releases_in_their_own_folders_are_one_site() {
        let mut urls = manual("qt@5.15.8", &QT);
        urls.extend(manual("qt@5.15.15", &QT[..9]));
        urls.extend(manual("gtk@3.24", &["index.html", "gtk/GtkWindow.html"]));
        let f = SiteFamilies::of(urls.iter().map(String::as_str));
        assert_eq!(f.joined(), vec![vec!["qt@5.15.15", "qt@5.15.8"]]);
        assert!(f.same_site("qt@5.15.8/qtcore/qmap.html", "qt@5.15.15/qtcore/qset.html"));
        assert!(!f.same_site("qt@5.15.8/qtcore/qmap.html", "gtk@3.24/index.html"));
        assert_eq!(f.site_of("qt@5.15.8/x.html"), "qt@5.15.15");
        assert_eq!(
            f.family_hash(site_hash("qt@5.15.8")),
            site_hash("qt@5.15.15")
        );
        assert_eq!(f.family_hash(site_hash("gtk@3.24")), site_hash("gtk@3.24"));
    }

    #[test]
    fn releases_on_their_own_hosts_are_one_site_even_moved() {
        // The second release moved its manual under `doc/`: the places are still its pages'.
        let a = manual("https://5-15.doc.example", &QT);
        let b: Vec<String> = QT
            .iter()
            .map(|p| format!("https://6-2.doc.example/doc/{p}"))
            .collect();
        let f = SiteFamilies::of(a.iter().chain(&b).map(String::as_str));
        assert!(f.same_site(&a[0], &b[3]));
    }

    #[test]
    fn sites_sharing_a_few_pages_or_a_minority_stay_apart() {
        // Two news sites with the same fixed pages and their own stories.
        let fixed = ["", "about/", "contact/", "privacy/", "terms/", "subscribe/"];
        let mut urls = Vec::new();
        for site in ["https://a.example", "https://b.example"] {
            urls.extend(fixed.iter().map(|p| format!("{site}/{p}")));
            urls.extend((0..20).map(|k| format!("{site}/2024/05/{site}-story-{k}")));
        }
        // Two manuals sharing eight generic pages of twenty each.
        for site in ["m1", "m2"] {
            urls.extend((0..8).map(|k| format!("{site}/common/page{k}.html")));
            urls.extend((0..12).map(|k| format!("{site}/own/{site}-{k}.html")));
        }
        // A small site all of whose three pages the other has: fewer than the floor.
        urls.extend(manual("small", &QT[..3]));
        urls.extend(manual("big", &QT));
        let f = SiteFamilies::of(urls.iter().map(String::as_str));
        assert!(f.is_empty(), "{:?}", f.joined());
    }

    #[test]
    fn a_place_on_very_many_sites_counts_for_none() {
        let mut urls = Vec::new();
        for s in 0..=MAX_SITES_A_PLACE {
            urls.extend((0..10).map(|k| format!("https://s{s}.example/a/p{k}.html")));
        }
        let f = SiteFamilies::of(urls.iter().map(String::as_str));
        assert!(f.is_empty());
        // One site fewer: every place is counted, and all are one site.
        let fewer: Vec<&str> = urls
            .iter()
            .map(String::as_str)
            .filter(|u| !u.starts_with("https://s0."))
            .collect();
        assert_eq!(SiteFamilies::of(fewer).joined().len(), 1);
    }

    #[test]
    fn places_are_the_last_directory_and_name_of_a_named_page() {
        assert_eq!(place_key("pkg/a/b/c.html"), place_key("other/x/b/c.html"));
        assert_ne!(place_key("pkg/a/b/c.html"), place_key("pkg/a/d/c.html"));
        assert_eq!(
            place_key("https://a.example/x.html#top"),
            place_key("https://b.example/x.html")
        );
        assert!(place_key("pkg/index.html").is_some());
        assert_eq!(
            path_in_site("https://a.example/x/y.html?q=1#top"),
            ("x/y.html", "q=1")
        );
        assert_eq!(path_in_site("pkg/1.0/a.html"), ("1.0/a.html", ""));
        assert!(place_key("https://a.example/about/").is_some());
        // No place: a root, a page named by its query, a name without a letter.
        assert_eq!(place_key("https://a.example/"), None);
        assert_eq!(place_key("https://a.example"), None);
        assert_eq!(place_key("pkg"), None);
        assert_eq!(place_key("https://a.example/article.php?id=1"), None);
        assert_eq!(place_key("https://a.example/article/48213"), None);
        assert_eq!(place_key("https://a.example/2024/05/"), None);
    }

    #[test]
    fn two_sites_of_one_cms_numbering_their_pages_alike_stay_apart() {
        // Two forums of one software, the same topic numbers crawled on both; two news
        // sites numbering their stories in one range.
        let mut urls = Vec::new();
        for site in ["https://forum-a.example", "https://forum-b.example"] {
            urls.extend((100..140).map(|t| format!("{site}/viewtopic.php?t={t}")));
            urls.extend((100..140).map(|t| format!("{site}/article/{t}")));
        }
        let f = SiteFamilies::of(urls.iter().map(String::as_str));
        assert!(f.is_empty(), "{:?}", f.joined());
    }
}
