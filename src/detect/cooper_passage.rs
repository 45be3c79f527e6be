//! Cooper's passage rule in a run ([`crate::sig::passage`]): which pages it applies to,
//! their candidate partners, and the lines of the texts it reads.
//!
//! It applies to the pages of sites with fewer pages in the run than the content text needs
//! to learn a site's template from ([`ContentRule::min_site_pages`]): their content text
//! was made within the page and may keep the template's prose beside the story. A page of
//! a larger site lost its template across the site's pages and is compared whole, as
//! before (on whole-site crawls and documentation the rule then changes nothing), unless
//! `passage_cover_pct` is set: then two large sites' pages are judged too, by
//! [`covering_pair`] (what such a page keeps beside the story is its own: a reader
//! discussion, a caption). Like containment, only pairs of different sites.
//!
//! Candidates: the other documents sharing at least as many salient terms with such a page
//! as a passage of the floor's size must (its hits: `min_terms · (100 − c) / 100`), counted
//! through an index of those pages' terms only; with `passage_cover_pct`, also the pairs of
//! two large sites' pages that share runs of salient terms in the same order
//! ([`Candidates::add_covering`]). The lines are then read from the store's
//! texts for the candidates' documents alone; a document whose text the store does not hold
//! (`query`'s outside documents) has no lines and no passage; the detection stages, which
//! carry no texts, refuse the rule (`Staged::prepare_from`).
//!
//! Template twins are left out: two pages whose template lines (the lines of the visible
//! text that their content text dropped) are mostly the same are one template on two
//! hosts, and the passage they share may be that template's prose, not a story. On the
//! news corpora (issue 14, session 12) the one such pair the rule made (two folders of one
//! real site, each holding another story) shared 96–98% of the smaller page's template
//! lines; the true pairs it made share at most 16%.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::cooper::Salient;
use crate::extract::content::{line_hash, ContentRule};
use crate::sig::cooper::{fnv1a64, is_salient, CooperPair, CooperParams, Rule};
use crate::sig::lexicon::{DocFreqs, TermOptions};
use crate::sig::passage::{covering_pair, passage_pair, PassageRule, Side};
use crate::store::{Store, TextKind};

/// A term held by more one-page sites' pages than this is not counted for candidates: at
/// that many it names no story (a common word of one language among the collection's
/// search results), and its posting would be visited once per document of the collection.
/// Below it the count is exact; on the corpora measured no term reaches it.
const MAX_PROBES_PER_TERM: usize = 1000;

/// Two pages sharing at least this share of the smaller set of template lines (and at least
/// [`TWIN_MIN_LINES`] of them) are template twins (see the module's comment).
const TWIN_SHARE: f64 = 0.5;
/// Fewer shared template lines than this never make twins: generic lines ("Home",
/// "Contact us") are on many unrelated sites.
const TWIN_MIN_LINES: usize = 5;

/// Candidates of the passage rule, found before the matching consumes the term lists.
pub struct Candidates {
    /// Pairs `(a, b)`, `a < b`, of different sites, one of them on a small site.
    pairs: Vec<(u32, u32)>,
    /// Whether each document is on a small site.
    small: Vec<bool>,
}

impl Candidates {
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }
}

/// Whether each document's site has fewer documents in the run than the content text needs
/// to learn its template from.
fn small_sites(sites: &[u64]) -> Vec<bool> {
    let min_pages = ContentRule::default().min_site_pages;
    let mut count: FxHashMap<u64, usize> = FxHashMap::default();
    for &s in sites {
        *count.entry(s).or_insert(0) += 1;
    }
    // Every site was counted just above, so the index finds it.
    sites.iter().map(|s| count[s] < min_pages).collect()
}

/// The key of a term in this module's sets (the same hash the sum signature uses).
fn key(term: &str) -> u64 {
    fnv1a64(term.as_bytes())
}

/// The term keys of a document's salient terms.
fn keys(s: &Salient) -> Vec<u64> {
    match s {
        Salient::Terms(t) => t.iter().map(|t| key(t)).collect(),
        Salient::Numbered { table, ids } => ids.iter().map(|&i| key(&table[i as usize])).collect(),
    }
}

/// The candidate pairs of the passage rule (none when it is off).
pub fn candidates(sites: &[u64], salient: &[Salient], params: &CooperParams) -> Candidates {
    let min_terms = params.passage_min_terms;
    let none = Candidates {
        pairs: Vec::new(),
        small: Vec::new(),
    };
    if min_terms == 0 || params.contained_pct == 0 || params.contained_pct >= 100 {
        return none;
    }
    let small = small_sites(sites);
    let probes: Vec<u32> = (0..salient.len() as u32)
        .filter(|&i| small[i as usize] && salient[i as usize].len() >= min_terms as usize)
        .collect();
    if probes.is_empty() {
        return Candidates {
            pairs: Vec::new(),
            small,
        };
    }
    let mut index: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
    for (p, &doc) in probes.iter().enumerate() {
        for k in keys(&salient[doc as usize]) {
            index.entry(k).or_default().push(p as u32);
        }
    }
    index.retain(|_, posting| posting.len() <= MAX_PROBES_PER_TERM);
    // A passage of `min_terms` terms with fewer than `c`% missing has more hits than this.
    let need = (u64::from(min_terms) * u64::from(100 - params.contained_pct) / 100) as u32;
    let mut pairs: Vec<(u32, u32)> = (0..salient.len() as u32)
        .into_par_iter()
        .flat_map_iter(|y| {
            let mut count: FxHashMap<u32, u32> = FxHashMap::default();
            for k in keys(&salient[y as usize]) {
                for &p in index.get(&k).map_or(&[][..], Vec::as_slice) {
                    *count.entry(p).or_insert(0) += 1;
                }
            }
            let probes = &probes;
            count
                .into_iter()
                .filter(move |&(p, n)| {
                    let x = probes[p as usize];
                    n >= need && x != y && sites[x as usize] != sites[y as usize]
                })
                .map(move |(p, _)| {
                    let x = probes[p as usize];
                    (x.min(y), x.max(y))
                })
        })
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    Candidates { pairs, small }
}

/// [`covering_pair`]'s candidates are pages of two large sites that share runs of
/// [`RUN_TERMS`] salient terms in the same order: a copy of a story holds its sentences,
/// where two pages that merely use the same words (a short API page and a manual's
/// all-in-one page) share vocabulary, not runs. The exact bound this replaced (a pair shares
/// at least `cover·(100−c)/10000` of the shorter list, found by prefix filtering) made 1.64
/// million candidates on a 29,530-page mix of 13 doc corpora and a news crawl, of which 143
/// passed, and took Cooper from 7 s to 236 s; runs make 37,964 there, and the pairs
/// the exact bound's made on all 27 layouts, less 24 false pairs of the mix (libgtk's
/// `api-index-full` against libgtkmm's member lists: shared names, no shared sentence)
/// (BENCHMARKS.md, issue 14 session 23). The judge ([`covering_pair`]) is unchanged, so
/// the pairs are a subset of the exact bound's.
const RUN_TERMS: usize = 4;
/// One run in this many is kept: those whose hash is 0 modulo it, so the same runs are
/// kept on every page (Broder's mod-sampling). At one in four an edited 80-word copy on
/// news-v8 whole shared too few and was lost; at one in two none was, on any layout.
const RUN_SAMPLE: u64 = 2;
/// Two pages sharing at least this many kept runs are a candidate (at one run in four,
/// twice as many lost two true pairs of news-v8/v9 whole: the margin measured).
const MIN_SHARED_RUNS: u32 = 3;
/// A kept run on more large sites' pages than this names no story (a licence's or a
/// generator's sentence on every page of many manuals) and is not counted.
const MAX_PAGES_PER_RUN: usize = 200;

/// Mixes one more term key into a run's hash (splitmix64's finalizer on the running hash,
/// so that its low bits, which [`RUN_SAMPLE`] reads, depend on every term).
fn mix(h: u64, x: u64) -> u64 {
    let mut z = (h ^ x).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The kept runs of a page's salient terms in text order (`seq`, term keys, repeats
/// included): each window of [`RUN_TERMS`] hashed, those 0 modulo [`RUN_SAMPLE`] kept,
/// sorted and without repeats.
fn kept_runs(seq: &[u64]) -> Vec<u64> {
    let mut runs: Vec<u64> = seq
        .windows(RUN_TERMS)
        .map(|w| w.iter().fold(0, |h, &x| mix(h, x)))
        .filter(|h| h % RUN_SAMPLE == 0)
        .collect();
    runs.sort_unstable();
    runs.dedup();
    runs
}

/// A text's salient terms as keys, in text order and with repeats (the terms [`lines_of`]
/// reads).
fn salient_sequence(text: &str, dfs: &DocFreqs, params: &CooperParams) -> Vec<u64> {
    let opts = TermOptions::default();
    let mut seq = Vec::new();
    crate::text::for_each_token(text, |norm, _, _| {
        if opts.keeps(norm) && is_salient(dfs.get(norm), dfs.n_docs, params) {
            seq.push(key(norm));
        }
    });
    seq
}

/// The pairs `(a, b)`, `a < b`, of `pages` (documents; `runs[i]` the kept runs of
/// `pages[i]`) on different `sites` that share at least [`MIN_SHARED_RUNS`] kept runs, runs
/// on more than [`MAX_PAGES_PER_RUN`] pages not counted.
fn pairs_sharing_runs(pages: &[u32], runs: &[Vec<u64>], sites: &[u64]) -> Vec<(u32, u32)> {
    let index = RunIndex::of(runs);
    let mut pairs: Vec<(u32, u32)> = (0..pages.len())
        .into_par_iter()
        .flat_map_iter(|q| {
            let mut count: FxHashMap<u32, u32> = FxHashMap::default();
            for &h in &runs[q] {
                for &p in index.pages(h) {
                    if (p as usize) < q {
                        *count.entry(p).or_insert(0) += 1;
                    }
                }
            }
            count.into_iter().filter_map(move |(p, n)| {
                let (x, y) = (pages[p as usize], pages[q]);
                (n >= MIN_SHARED_RUNS && sites[x as usize] != sites[y as usize])
                    .then_some((x.min(y), x.max(y)))
            })
        })
        .collect();
    pairs.par_sort_unstable();
    pairs
}

/// The pages of each run that is on two to [`MAX_PAGES_PER_RUN`] pages, in flat arrays (the
/// runs sorted, where each one's pages start, the pages). Most runs are on one page and pair
/// nothing. A map of every run (a key, a vector and its allocation each, grown by doubling)
/// took `detect`'s peak on the 29,530-page mix from 360 to 781 MB for its 9.5 million runs;
/// one exactly sized array of (run, page), sorted in place, then these arrays, hold 16 bytes
/// a run while they are made (BENCHMARKS.md, issue 14 session 23).
struct RunIndex {
    runs: Vec<u64>,
    starts: Vec<usize>,
    pages: Vec<u32>,
}

impl RunIndex {
    /// The index of `runs` (`runs[p]`: page `p`'s kept runs, each once).
    fn of(runs: &[Vec<u64>]) -> RunIndex {
        let total: usize = runs.iter().map(Vec::len).sum();
        let mut entries: Vec<(u64, u32)> = Vec::with_capacity(total);
        for (p, page_runs) in runs.iter().enumerate() {
            entries.extend(page_runs.iter().map(|&h| (h, p as u32)));
        }
        entries.par_sort_unstable();
        let mut index = RunIndex {
            runs: Vec::new(),
            starts: Vec::new(),
            pages: Vec::new(),
        };
        for group in entries.chunk_by(|a, b| a.0 == b.0) {
            if group.len() < 2 || group.len() > MAX_PAGES_PER_RUN {
                continue;
            }
            index.runs.push(group[0].0);
            index.starts.push(index.pages.len());
            index.pages.extend(group.iter().map(|e| e.1));
        }
        index.starts.push(index.pages.len());
        index
    }

    /// The pages of run `h` (none when it is on one page only, or on too many).
    fn pages(&self, h: u64) -> &[u32] {
        match self.runs.binary_search(&h) {
            Ok(k) => &self.pages[self.starts[k]..self.starts[k + 1]],
            Err(_) => &[],
        }
    }
}

impl Candidates {
    /// Adds [`covering_pair`]'s candidates (`passage_cover_pct` set): pairs of two large
    /// sites' pages of different sites, with at least `passage_min_terms` salient terms
    /// each (`lens`), that share runs of salient terms ([`RUN_TERMS`]). Their texts are read
    /// again, `LINES_CHUNK` at a time, and nothing is read when every such page is on one
    /// site (one manual: no pair to find).
    #[allow(clippy::too_many_arguments)]
    pub fn add_covering(
        &mut self,
        sites: &[u64],
        lens: &[usize],
        store: &Store,
        ids: &[i64],
        text: TextKind,
        dfs: &DocFreqs,
        params: &CooperParams,
    ) -> anyhow::Result<()> {
        if params.passage_cover_pct == 0
            || params.passage_min_terms == 0
            || params.contained_pct == 0
            || params.contained_pct >= 100
        {
            return Ok(());
        }
        if self.small.len() != sites.len() {
            self.small = small_sites(sites);
        }
        let pages: Vec<u32> = (0..sites.len() as u32)
            .filter(|&i| {
                !self.small[i as usize]
                    && lens.get(i as usize).copied().unwrap_or(0)
                        >= params.passage_min_terms as usize
            })
            .collect();
        let one_site = pages.iter().all(|&i| {
            pages
                .first()
                .is_some_and(|&f| sites[i as usize] == sites[f as usize])
        });
        if one_site {
            return Ok(());
        }
        let mut runs: Vec<Vec<u64>> = Vec::with_capacity(pages.len());
        for part in pages.chunks(LINES_CHUNK) {
            let mut texts: Vec<String> = Vec::with_capacity(part.len());
            for &i in part {
                let id = ids.get(i as usize).copied();
                let t = match id {
                    Some(id) => store.doc_text(id, text)?.unwrap_or_default(),
                    None => String::new(),
                };
                texts.push(t);
            }
            runs.par_extend(
                texts
                    .par_iter()
                    .map(|t| kept_runs(&salient_sequence(t, dfs, params))),
            );
        }
        let mut more = pairs_sharing_runs(&pages, &runs, sites);
        self.pairs.append(&mut more);
        self.pairs.par_sort_unstable();
        self.pairs.dedup();
        Ok(())
    }
}

/// What the passage rule reads of a candidate's texts.
struct Lines {
    /// Salient term keys by line of the text ([`lines_of`]).
    lines: Vec<Vec<u64>>,
    /// Each of those lines' own number of salient terms ([`lines_of`]).
    sizes: Vec<u32>,
    /// All of them.
    terms: FxHashSet<u64>,
    /// Hashes of the visible text's lines that the text does not hold (its template).
    template: FxHashSet<u64>,
}

impl Lines {
    /// What the passage rule reads of these lines.
    fn side(&self) -> Side<'_> {
        Side {
            lines: &self.lines,
            sizes: &self.sizes,
            terms: &self.terms,
        }
    }
}

/// Whether two pages with these template lines are template twins (see the module's
/// comment).
fn twins(a: &FxHashSet<u64>, b: &FxHashSet<u64>) -> bool {
    let shared = a.iter().filter(|h| b.contains(h)).count();
    shared >= TWIN_MIN_LINES && shared as f64 >= TWIN_SHARE * a.len().min(b.len()) as f64
}

/// A document's salient terms by line of its text, each on the line of its first
/// occurrence (the terms of [`crate::sig::lexicon::unique_terms`] that [`is_salient`]
/// keeps, as keys), and each of those lines' own count of salient terms, the ones met on an
/// earlier line too (a paragraph of a Chinese story has few characters no earlier line had,
/// and is a paragraph all the same).
fn lines_of(text: &str, dfs: &DocFreqs, params: &CooperParams) -> (Vec<Vec<u64>>, Vec<u32>) {
    let opts = TermOptions::default();
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut in_line: FxHashSet<u64> = FxHashSet::default();
    text.lines()
        .map(|line| {
            let mut out = Vec::new();
            in_line.clear();
            crate::text::for_each_token(line, |norm, _, _| {
                if opts.keeps(norm) && is_salient(dfs.get(norm), dfs.n_docs, params) {
                    let k = key(norm);
                    in_line.insert(k);
                    if seen.insert(k) {
                        out.push(k);
                    }
                }
            });
            (out, in_line.len() as u32)
        })
        .filter(|(l, _)| !l.is_empty())
        .unzip()
}

/// Documents whose texts are read and turned into [`Lines`] at once, at most. With the texts
/// of every candidate held at once, Cooper's matching peaked at 5.8 GB at a million pages
/// (905,385 candidates of 950 news pages among a million doc pages), 1.4 GB with this bound
/// (BENCHMARKS.md, issue 16 session 16).
const LINES_CHUNK: usize = 2048;

/// The pairs the passage rule adds: the candidates that the matching did not find
/// (`found`, sorted by `(a, b)`) and that pass [`passage_pair`] with a small site's page as
/// the one whose passage counts, or (two large sites' pages, `passage_cover_pct` only)
/// [`covering_pair`]. `ids` are the store's ids of the documents.
///
/// The small sites' pages among the candidates (few in a crawl of whole sites) are read
/// first and kept; the candidates are then taken [`LINES_CHUNK`] pages at a time by a page
/// not kept (the other page, or the first of two large sites' pages), the pages not kept
/// read for them and dropped after them, so the texts held stay bounded however many
/// candidates the collection makes.
pub fn passage_pairs(
    candidates: Candidates,
    found: &[CooperPair],
    store: &Store,
    ids: &[i64],
    text: TextKind,
    dfs: &DocFreqs,
    params: &CooperParams,
) -> anyhow::Result<Vec<CooperPair>> {
    let texts = TextSource {
        store,
        ids,
        text,
        dfs,
        params,
        chunk: LINES_CHUNK,
    };
    passage_pairs_from(candidates, found, &texts)
}

/// Where [`passage_pairs`] reads its pages' lines: `chunk` pages at a time (the tests use
/// tiny chunks) of the `text` kind from `store`, `ids` the store's ids of the documents.
struct TextSource<'a> {
    store: &'a Store,
    ids: &'a [i64],
    text: TextKind,
    dfs: &'a DocFreqs,
    params: &'a CooperParams,
    chunk: usize,
}

/// [`passage_pairs`] reading from `texts`.
fn passage_pairs_from(
    candidates: Candidates,
    found: &[CooperPair],
    texts: &TextSource<'_>,
) -> anyhow::Result<Vec<CooperPair>> {
    let (chunk, params) = (texts.chunk, texts.params);
    let Candidates { mut pairs, small } = candidates;
    pairs.retain(|&(a, b)| found.binary_search_by_key(&(a, b), |q| (q.a, q.b)).is_err());
    let is_small = |i: u32| on_small_site(&small, i);
    let read = |docs: &[u32]| read_lines(docs, texts);
    let mut probes: Vec<u32> = pairs
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .filter(|&i| is_small(i))
        .collect();
    probes.sort_unstable();
    probes.dedup();
    let kept = read(&probes)?;
    // Each candidate by its other page (a pair of two small sites' pages has none).
    // Each candidate by a page not kept (a pair of two small sites' pages has none): its
    // other page, or for two large sites' pages (`passage_cover_pct` only) its first.
    let mut by_other: Vec<(u32, u32, u32)> = Vec::with_capacity(pairs.len());
    let mut out: Vec<CooperPair> = Vec::new();
    for &(a, b) in &pairs {
        match (is_small(a), is_small(b)) {
            (true, true) => out.extend(judge(a, b, kept.get(&a), kept.get(&b), &small, params)),
            (true, false) => by_other.push((b, a, b)),
            (false, true | false) => by_other.push((a, a, b)),
        }
    }
    drop(pairs);
    by_other.sort_unstable();
    // The candidates of `chunk` pages at a time, the pages not kept read for them alone
    // (for two large sites' pages both of them).
    let groups: Vec<&[(u32, u32, u32)]> = by_other.chunk_by(|x, y| x.0 == y.0).collect();
    for batch in groups.chunks(chunk.max(1)) {
        let mut docs: Vec<u32> = batch
            .iter()
            .flat_map(|group| group.iter())
            .flat_map(|&(_, a, b)| [a, b])
            .filter(|i| !kept.contains_key(i))
            .collect();
        docs.sort_unstable();
        docs.dedup();
        let read_now = read(&docs)?;
        let lines = |i: u32| kept.get(&i).or_else(|| read_now.get(&i));
        out.par_extend(
            batch
                .par_iter()
                .flat_map_iter(|group| group.iter())
                .filter_map(|&(_, a, b)| judge(a, b, lines(a), lines(b), &small, params)),
        );
    }
    out.par_sort_unstable_by_key(|p| (p.a, p.b));
    Ok(out)
}

/// The [`Lines`] of documents `docs` (positions in `texts.ids`), read `texts.chunk` at a
/// time and made on every core; a document whose texts the store does not hold has none.
fn read_lines(docs: &[u32], texts: &TextSource<'_>) -> anyhow::Result<FxHashMap<u32, Lines>> {
    let TextSource {
        store,
        ids,
        text,
        dfs,
        params,
        chunk,
    } = *texts;
    let mut all: FxHashMap<u32, Lines> = FxHashMap::default();
    for part in docs.chunks(chunk.max(1)) {
        let mut texts: Vec<(u32, String, String)> = Vec::with_capacity(part.len());
        for &i in part {
            let Some(&id) = ids.get(i as usize) else {
                continue;
            };
            if let (Some(t), Some(v)) = (
                store.doc_text(id, text)?,
                store.doc_text(id, TextKind::Visible)?,
            ) {
                texts.push((i, t, v));
            }
        }
        all.par_extend(texts.into_par_iter().map(|(i, t, v)| {
            let (lines, sizes) = lines_of(&t, dfs, params);
            let terms = lines.iter().flatten().copied().collect();
            let own: FxHashSet<u64> = t.lines().map(line_hash).collect();
            let template = v
                .lines()
                .filter(|l| !l.is_empty())
                .map(line_hash)
                .filter(|h| !own.contains(h))
                .collect();
            (
                i,
                Lines {
                    lines,
                    sizes,
                    terms,
                    template,
                },
            )
        }));
    }
    Ok(all)
}

/// Whether document `i` is on a small site (`small` from [`small_sites`]).
fn on_small_site(small: &[bool], i: u32) -> bool {
    small.get(i as usize).copied().unwrap_or(false)
}

/// The passage rule on one candidate `(a, b)` whose lines are `x` and `y` (none: a text the
/// store does not hold): the better passage of a small site's page found in the other
/// page, unless the two are template twins.
fn judge(
    a: u32,
    b: u32,
    x: Option<&Lines>,
    y: Option<&Lines>,
    small: &[bool],
    params: &CooperParams,
) -> Option<CooperPair> {
    let (x, y) = (x?, y?);
    let rule = PassageRule {
        contained_pct: params.contained_pct,
        min_terms: params.passage_min_terms,
        min_paragraphs: params.passage_min_paragraphs,
    };
    let best = if on_small_site(small, a) || on_small_site(small, b) {
        let from_a = on_small_site(small, a)
            .then(|| passage_pair(x.side(), y.side(), rule))
            .flatten();
        let from_b = on_small_site(small, b)
            .then(|| passage_pair(y.side(), x.side(), rule))
            .flatten();
        match (from_a, from_b) {
            (Some(x), Some(y)) => Some(if y.hits > x.hits { y } else { x }),
            (x, y) => x.or(y),
        }
    } else {
        covering_pair(x.side(), y.side(), rule, params.passage_cover_pct)
    }?;
    if twins(&x.template, &y.template) {
        return None;
    }
    Some(CooperPair {
        a,
        b,
        differing: best.misses,
        smaller: best.terms(),
        rule: Rule::Passage {
            missing: best.misses,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn terms(r: std::ops::Range<usize>) -> Salient {
        Salient::Terms(r.map(|i| format!("t{i:04}")).collect::<BTreeSet<_>>())
    }

    /// Containment at 30%, passages from 40 terms (the defaults), every other rule off.
    fn rule_params() -> CooperParams {
        CooperParams {
            contained_pct: 30,
            passage_min_terms: 40,
            ..CooperParams::default()
        }
    }

    /// A passage of 40 terms passes with 29 of them held (29·30 > 11·70), never with 28:
    /// the candidates need 28 shared terms, so every pair that can pass is a candidate.
    #[test]
    fn candidates_need_the_hits_of_a_passage_of_the_floors_size_across_sites() {
        let params = rule_params();
        let salient = [
            terms(0..40),    // x: a one-page site's page (site 1)
            terms(12..100),  // shares 28 with x, site 2
            terms(13..100),  // shares 27, site 3
            terms(0..40),    // shares all, but on x's site
            terms(200..300), // shares nothing, site 4
        ];
        let sites = [1, 2, 3, 1, 4];
        let c = candidates(&sites, &salient, &params);
        // Every site here has one or two pages, so every page is a probe: x and the page
        // sharing 28 with it (not the one sharing 27, nor x's own site's), and that page with
        // the two others it shares 28 or more with.
        assert_eq!(c.pairs, [(0, 1), (1, 2), (1, 3)]);
        // Sites of four or more pages have their template removed across pages: no probe.
        let big = [1, 1, 1, 1, 2];
        let c = candidates(&big, &salient, &params);
        assert!(c
            .pairs
            .iter()
            .all(|&(a, b)| c.small[a as usize] || c.small[b as usize]));
        assert!(!c.small[0]);
        // Off: no candidates.
        let off = CooperParams {
            passage_min_terms: 0,
            ..params
        };
        assert!(candidates(&sites, &salient, &off).is_empty());
    }

    #[test]
    fn a_copy_keeps_the_runs_of_its_original_and_a_shuffle_does_not() {
        let story: Vec<u64> = (0..200).map(|i| key(&format!("w{i}"))).collect();
        let runs = kept_runs(&story);
        // About one window in RUN_SAMPLE is kept.
        let windows = (story.len() - RUN_TERMS + 1) as u64;
        let expected = (windows / RUN_SAMPLE) as usize;
        assert!(
            (expected / 2..expected * 3 / 2).contains(&runs.len()),
            "{} of {windows}",
            runs.len()
        );
        // The story inside a longer page: every kept run of it is there.
        let mut page: Vec<u64> = (0..50).map(|i| key(&format!("before{i}"))).collect();
        page.extend(&story);
        page.extend((0..80).map(|i| key(&format!("after{i}"))));
        let in_page = kept_runs(&page);
        assert!(runs.iter().all(|r| in_page.binary_search(r).is_ok()));
        // The same words in another order share next to no run.
        let mut shuffled = story.clone();
        shuffled.reverse();
        let other = kept_runs(&shuffled);
        let shared = runs
            .iter()
            .filter(|r| other.binary_search(r).is_ok())
            .count();
        assert!(shared < MIN_SHARED_RUNS as usize, "{shared}");
    }

    proptest::proptest! {
        /// The indexed pairs are the pairs a count of every pair's shared runs finds.
        #[test]
        fn pairs_sharing_runs_are_the_pairs_a_full_count_finds(
            docs in proptest::collection::vec(
                (proptest::collection::btree_set(0u64..40, 0..20), 0u64..3),
                2..12,
            ),
        ) {
            let pages: Vec<u32> = (0..docs.len() as u32).map(|i| i * 2).collect();
            let mut sites = vec![0u64; 2 * docs.len()];
            for (i, (_, site)) in docs.iter().enumerate() {
                sites[2 * i] = *site;
            }
            let runs: Vec<Vec<u64>> = docs.iter().map(|(r, _)| r.iter().copied().collect()).collect();
            let mut slow = Vec::new();
            for a in 0..docs.len() {
                for b in a + 1..docs.len() {
                    let shared = docs[a].0.intersection(&docs[b].0).count() as u32;
                    if shared >= MIN_SHARED_RUNS && docs[a].1 != docs[b].1 {
                        slow.push((pages[a], pages[b]));
                    }
                }
            }
            proptest::prop_assert_eq!(pairs_sharing_runs(&pages, &runs, &sites), slow);
        }
    }

    #[test]
    fn two_large_sites_pages_sharing_runs_are_covering_candidates() {
        let story = lines("story", 5);
        let words = |ls: &[String]| -> Vec<String> {
            ls.iter()
                .flat_map(|l| l.split(' ').map(str::to_string))
                .collect()
        };
        let mut shuffled = words(&story);
        shuffled.reverse();
        let texts = [
            // Site 1 (pages 0–3): the story with a discussion of its own, then others.
            text(&[&story, &lines("discussion", 3)]),
            text(&[&lines("one", 6)]),
            text(&[&lines("two", 6)]),
            text(&[&lines("three", 6)]),
            // Site 2 (pages 4–7): four paragraphs of the story; the story's words in
            // another order; others.
            text(&[&story[..4], &lines("comments", 2)]),
            shuffled.join(" "),
            text(&[&lines("five", 6)]),
            text(&[&lines("six", 6)]),
        ];
        let (_dir, store, ids) = store_of(&texts);
        let sites = [1, 1, 1, 1, 2, 2, 2, 2];
        let lens = [80, 60, 60, 60, 60, 50, 60, 60];
        let dfs = DocFreqs::default();
        let found = |sites: &[u64], cover: u32| {
            let params = CooperParams {
                passage_cover_pct: cover,
                ..rule_params()
            };
            let salient: Vec<Salient> = (0..8).map(|i| terms(100 * i..100 * i + 1)).collect();
            let mut c = candidates(sites, &salient, &params);
            c.add_covering(sites, &lens, &store, &ids, TextKind::Visible, &dfs, &params)
                .unwrap();
            c.pairs
        };
        assert_eq!(found(&sites, 60), [(0, 4)]);
        assert!(found(&sites, 0).is_empty(), "off by default");
        // Every page on one site: no pair of two sites to find.
        assert!(found(&[1; 8], 60).is_empty());
    }

    #[test]
    fn a_lines_size_counts_the_terms_an_earlier_line_had_too() {
        // The second line holds one term no earlier line had and is a paragraph all the
        // same (a Chinese story's later paragraphs, in characters); a name line is not.
        let params = rule_params();
        let text = "alpha bravo charlie delta echo\nbravo charlie delta echo zulu\nwrote";
        let (lines, sizes) = lines_of(text, &DocFreqs::default(), &params);
        assert_eq!(lines.iter().map(Vec::len).collect::<Vec<_>>(), [5, 1, 1]);
        assert_eq!(sizes, [5, 5, 1]);
    }

    #[test]
    fn twins_share_most_template_lines_and_at_least_a_few() {
        let set = |r: std::ops::Range<u64>| r.collect::<FxHashSet<u64>>();
        assert!(twins(&set(0..10), &set(1..30)));
        assert!(
            !twins(&set(0..10), &set(6..30)),
            "4 shared: under the floor"
        );
        assert!(!twins(&set(0..40), &set(30..100)), "10 of 40: under half");
    }

    /// Lines of ten words, each word made from `tag` and its place (in letters: terms are
    /// words): `lines(tag, n)` is n lines no other tag shares a word with.
    fn lines(tag: &str, n: usize) -> Vec<String> {
        let letter = |i: usize| char::from(b'a' + i as u8);
        (0..n)
            .map(|l| {
                (0..10)
                    .map(|w| format!("{tag}{}{}", letter(l), letter(w)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    /// The pages read a chunk at a time give the pairs that reading them all at once gives,
    /// whichever side of a candidate the small site's page is on, and pairs of two small
    /// sites' pages too.
    /// A store holding `texts` as documents `u0`, `u1`, … (visible texts), and their ids.
    fn store_of(texts: &[String]) -> (tempfile::TempDir, Store, Vec<i64>) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("p.db")).unwrap();
        let ids = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                store
                    .insert_test_document(&format!("u{i}"), "t", t, None)
                    .unwrap()
            })
            .collect();
        (dir, store, ids)
    }

    /// A page's text made of runs of lines.
    fn text(parts: &[&[String]]) -> String {
        parts.concat().join("\n")
    }

    #[test]
    fn chunked_reading_gives_the_pairs_of_reading_everything_at_once() {
        let story = lines("story", 5);
        let texts = [
            // 0: a small site's page: the story beside its own prose.
            text(&[&story, &lines("prose", 5)]),
            // 1, 2, 4, 5: pages of one large site; 1 and 4 hold the story, 2 and 5 do not.
            text(&[&lines("nav", 2), &story, &lines("big1", 3)]),
            text(&[&lines("nav", 2), &lines("big2", 6)]),
            // 3: another small site's page holding the story.
            text(&[&story, &lines("other", 6)]),
            text(&[&story[..4], &lines("big4", 4)]),
            text(&[&lines("big5", 8)]),
        ];
        let (_dir, store, ids) = store_of(&texts);
        let small = vec![true, false, false, true, false, false];
        // Candidates on both sides of the small pages (page 0 before the large site's
        // pages, page 3 after some of them) and one of two small pages.
        let pairs = vec![
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (0, 5),
            (1, 3),
            (2, 3),
            (3, 4),
            (3, 5),
        ];
        let params = rule_params();
        let dfs = DocFreqs::default();
        let source = |chunk: usize| TextSource {
            store: &store,
            ids: &ids,
            text: TextKind::Visible,
            dfs: &dfs,
            params: &params,
            chunk,
        };
        let run = |chunk: usize| {
            let c = Candidates {
                pairs: pairs.clone(),
                small: small.clone(),
            };
            let found = passage_pairs_from(c, &[], &source(chunk)).unwrap();
            found
                .iter()
                .map(|p| (p.a, p.b, p.differing, p.smaller))
                .collect::<Vec<_>>()
        };
        let all_at_once = run(usize::MAX);
        let got: Vec<(u32, u32)> = all_at_once.iter().map(|&(a, b, ..)| (a, b)).collect();
        assert_eq!(got, [(0, 1), (0, 3), (0, 4), (1, 3), (3, 4)]);
        for chunk in [1, 2, 3] {
            assert_eq!(run(chunk), all_at_once, "chunk {chunk}");
        }
        // A pair the matching found is not judged again.
        let c = Candidates {
            pairs: pairs.clone(),
            small: small.clone(),
        };
        let found = [CooperPair {
            a: 0,
            b: 1,
            differing: 0,
            smaller: 50,
            rule: Rule::Delta,
        }];
        let more = passage_pairs_from(c, &found, &source(1)).unwrap();
        assert!(more.iter().all(|p| (p.a, p.b) != (0, 1)), "{more:?}");
        assert_eq!(more.len(), 4);
    }

    #[test]
    fn two_large_sites_pages_are_judged_by_cover_in_any_chunking() {
        let story = lines("story", 5);
        let texts = [
            // 0: the story and a discussion of its page's own (50 of 80 terms).
            text(&[&story, &lines("discussion", 3)]),
            // 1: four paragraphs of it and another discussion (40 of 60 terms).
            text(&[&story[..4], &lines("comments", 2)]),
            // 2: another story; 3: two paragraphs of it on a long page (20 terms: no passage).
            text(&[&lines("other", 8)]),
            text(&[&story[..2], &lines("long", 20)]),
        ];
        let (_dir, store, ids) = store_of(&texts);
        let dfs = DocFreqs::default();
        let run = |cover: u32, chunk: usize| {
            let params = CooperParams {
                passage_cover_pct: cover,
                ..rule_params()
            };
            let source = TextSource {
                store: &store,
                ids: &ids,
                text: TextKind::Visible,
                dfs: &dfs,
                params: &params,
                chunk,
            };
            let c = Candidates {
                pairs: vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)],
                small: vec![false; 4],
            };
            passage_pairs_from(c, &[], &source)
                .unwrap()
                .iter()
                .map(|p| (p.a, p.b, p.differing, p.smaller))
                .collect::<Vec<_>>()
        };
        // Page 1's passage (its four paragraphs) covers 67% of it: a pair at 60, not at 70.
        assert_eq!(run(60, usize::MAX), [(0, 1, 0, 40)]);
        for chunk in [1, 2, 3] {
            assert_eq!(run(60, chunk), run(60, usize::MAX), "chunk {chunk}");
        }
        assert!(run(70, usize::MAX).is_empty());
        assert!(
            run(0, usize::MAX).is_empty(),
            "off: large sites' pages are not judged"
        );
    }
}
