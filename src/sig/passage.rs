//! Cooper's containment test on a *passage*: the run of consecutive lines of one document
//! whose salient terms the other document holds, for a copy that carries prose of its own
//! page beside the story.
//!
//! Why: a page of a site with too few pages to learn its template from gets a content text
//! made within the page (`extract::content`), and when the template's prose has the same
//! signals as the story (the site's own article text left around the placed story, the
//! same containers, no links), it stays. Cooper's tests compare whole term lists, so a copy
//! whose list is half template prose fails both the paper's delta and the containment rule
//! (its list's template terms are missing from the partner), and a copy inside a long page
//! fails containment's size limit (issue 14, session 12: 30 of Cooper's 44 misses on news-v4
//! one page per site). The story, though, is one run of lines on each page, and each of its
//! lines has nearly all its terms in the other copy, while the template's lines have next
//! to none.
//!
//! The passage of document X towards a partner holding the term set P: each line of X
//! scores `hits · c − misses · (100 − c)`, its salient terms (each counted on the line where
//! it first occurs) that P holds and does not hold, `c` the containment percentage; the
//! passage is the run of consecutive lines with the largest total (Kadane). A run whose
//! total is positive has fewer than `c`% of its terms missing from P (`misses · 100 <
//! terms · c` is that inequality), so the best run is the longest stretch that is
//! contained by the containment rule's own measure, and a stretch of template lines between
//! two stretches of story joins them only when the story around it outweighs it.

use rustc_hash::FxHashSet;

/// The best passage of a document towards a partner: how many of its terms are held by the
/// partner (`hits`) and how many not (`misses`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Passage {
    pub hits: u32,
    pub misses: u32,
    /// The passage's first and last line (indices into the lines given).
    pub first: u32,
    pub last: u32,
}

impl Passage {
    /// Terms in the passage.
    pub fn terms(&self) -> u32 {
        self.hits + self.misses
    }
}

/// The best passage of the document whose lines hold the term keys `lines` (each term on
/// the line of its first occurrence only) towards a partner holding `partner`, with a
/// containment percentage of `contained_pct` (see the module's comment). The empty passage
/// when no line has a positive score (or `contained_pct` is 0 or at least 100).
pub fn best_passage(lines: &[Vec<u64>], partner: &FxHashSet<u64>, contained_pct: u32) -> Passage {
    if contained_pct == 0 || contained_pct >= 100 {
        return Passage::default();
    }
    let (c, rest) = (i64::from(contained_pct), 100 - i64::from(contained_pct));
    let mut best = Passage::default();
    let mut best_score = 0i64;
    let mut cur = Passage::default();
    let mut cur_score = 0i64;
    for (i, line) in lines.iter().enumerate() {
        let hits = line.iter().filter(|t| partner.contains(t)).count() as u32;
        let misses = line.len() as u32 - hits;
        if cur_score <= 0 {
            cur = Passage {
                first: i as u32,
                ..Passage::default()
            };
            cur_score = 0;
        }
        cur_score += i64::from(hits) * c - i64::from(misses) * rest;
        cur.hits += hits;
        cur.misses += misses;
        cur.last = i as u32;
        if cur_score > best_score {
            best_score = cur_score;
            best = cur;
        }
    }
    best
}

/// One page's side of a pair, as the passage rule reads it.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// Salient term keys by line, each term on the line of its first occurrence.
    pub lines: &'a [Vec<u64>],
    /// Each line's own number of salient terms (the ones of earlier lines too).
    pub sizes: &'a [u32],
    /// All its salient term keys.
    pub terms: &'a FxHashSet<u64>,
}

/// The passage rule's settings (see [`passage_pair`]).
#[derive(Debug, Clone, Copy)]
pub struct PassageRule {
    /// Containment's percentage: a passage has fewer than this share of its terms missing.
    pub contained_pct: u32,
    /// Fewest terms of a passage; 0 turns the rule off.
    pub min_terms: u32,
    /// Fewest paragraphs of a passage (0 = any).
    pub min_paragraphs: u32,
}

/// A line with fewer salient terms than this is no paragraph of a story: a name, a label,
/// a heading ("jk_1987 wrote:", "Related:", "Comments (4)"), which sits beside a quoted
/// paragraph as often as beside a story's.
pub const PARAGRAPH_MIN_TERMS: usize = 5;

/// The lines of `passage` whose own number of terms (`sizes`, one per line) is at least
/// [`PARAGRAPH_MIN_TERMS`].
fn paragraphs(sizes: &[u32], passage: Passage) -> usize {
    sizes
        .get(passage.first as usize..=passage.last as usize)
        .map_or(0, |run| {
            run.iter()
                .filter(|&&n| n as usize >= PARAGRAPH_MIN_TERMS)
                .count()
        })
}

/// Whether a pair passes the passage rule with `x` the document whose content text may
/// carry template prose: `x`'s passage towards `y` holds at least `rule.min_terms` terms (so it
/// is contained by the containment rule's measure, see the module's comment), and `y`'s
/// passage towards `x` holds at least a quarter as many: the terms the two share sit
/// together in `y` too, as a copy's story does, not scattered over a long page of another
/// text that happens to use the same words (a 3,000-term index or listing holds most terms
/// of any short page). `x`'s passage also holds at least `rule.min_paragraphs` paragraphs
/// (lines of [`PARAGRAPH_MIN_TERMS`] terms or more by [`Side::sizes`]): one paragraph, with or without a name or label
/// line beside it, is what different stories share as a quote, a related story's lead, a
/// press release's "About" paragraph or a reader's comment quoting another story (news-v8,
/// BENCHMARKS.md issue 14 session 21), where a story's copy is paragraphs. Returns `x`'s
/// passage.
pub fn passage_pair(x: Side<'_>, y: Side<'_>, rule: PassageRule) -> Option<Passage> {
    if rule.min_terms == 0 {
        return None;
    }
    let px = best_passage(x.lines, y.terms, rule.contained_pct);
    if !rule.holds(px, x.sizes) {
        return None;
    }
    let py = best_passage(y.lines, x.terms, rule.contained_pct);
    rule.held_together(py).then_some(px)
}

impl PassageRule {
    /// Whether a passage `p` of a page whose lines have `sizes` is big enough: at least
    /// `min_terms` terms in at least `min_paragraphs` paragraphs.
    fn holds(&self, p: Passage, sizes: &[u32]) -> bool {
        p.terms() >= self.min_terms && paragraphs(sizes, p) >= self.min_paragraphs as usize
    }

    /// Whether the partner's passage `other` holds the shared terms together: at least a
    /// quarter of the floor.
    fn held_together(&self, other: Passage) -> bool {
        other.terms() * 4 >= self.min_terms
    }
}

/// [`covering_pair`]: the other page's passage holds at least this percentage of the terms
/// of the covering one. A short page's passage found inside a long page that uses the same
/// words all over (an API page "contained" in a manual's 8,000-term all-in-one page) holds
/// nearly all of the short page and next to nothing of the long one, where a story's two
/// copies hold it in both. Without it dd-held10 kept 51 false pairs at 80% cover (a
/// 708-term passage against 10 terms); with it no doc pair passes at 60%, and of the
/// copies it adds on news-v2, v8 and v9 whole 10 of 14, 62 of 62 and 53 of 58 would pass
/// at 70% too (BENCHMARKS.md, issue 14 session 22).
pub const COVER_BALANCE_PCT: u64 = 30;

/// The passage rule for two pages whose sites were large enough to learn their templates
/// from (whole-site crawls): the pair passes [`passage_pair`] in one direction at least
/// (read both ways), one page's passage covers at least `cover_pct`% of that page's salient
/// terms (the story is most of what is left of the page: what a whole site's page keeps
/// beside it is its own, a reader discussion, a caption, a related story's lead), and the
/// other page's passage holds at least [`COVER_BALANCE_PCT`]% as many terms. On the news
/// corpora the pairs of different stories that pass the rule's other tests and the balance
/// cover at most 53% of either page; on the doc corpora, pairs of different packages at
/// most 18% (BENCHMARKS.md, issue 14 session 22). Returns the passing passage with more
/// hits, as the small-site rule does.
pub fn covering_pair(
    x: Side<'_>,
    y: Side<'_>,
    rule: PassageRule,
    cover_pct: u32,
) -> Option<Passage> {
    if rule.min_terms == 0 || cover_pct == 0 {
        return None;
    }
    let px = best_passage(x.lines, y.terms, rule.contained_pct);
    let py = best_passage(y.lines, x.terms, rule.contained_pct);
    // [`passage_pair`]'s tests, read from each side.
    let passes = |p: Passage, sizes: &[u32], other: Passage| {
        rule.holds(p, sizes) && rule.held_together(other)
    };
    let best = match (passes(px, x.sizes, py), passes(py, y.sizes, px)) {
        (true, true) => Some(if py.hits > px.hits { py } else { px }),
        (true, false) => Some(px),
        (false, true) => Some(py),
        (false, false) => None,
    }?;
    let (tx, ty) = (u64::from(px.terms()), u64::from(py.terms()));
    let cover = u64::from(cover_pct);
    let covers =
        tx * 100 >= cover * x.terms.len() as u64 || ty * 100 >= cover * y.terms.len() as u64;
    let balanced = tx.min(ty) * 100 >= COVER_BALANCE_PCT * tx.max(ty);
    (covers && balanced).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(r: std::ops::Range<u64>) -> Vec<u64> {
        r.collect()
    }

    /// [`passage_pair`] of two pages given as lines, every term on its first line (as in
    /// these tests), so a line's size is its length.
    fn pair(
        x: &[Vec<u64>],
        y: &[Vec<u64>],
        c: u32,
        min_terms: u32,
        min_paragraphs: u32,
    ) -> Option<Passage> {
        let sizes = |v: &[Vec<u64>]| -> Vec<u32> { v.iter().map(|l| l.len() as u32).collect() };
        let (xs, ys, xt, yt) = (sizes(x), sizes(y), set(x), set(y));
        passage_pair(
            Side {
                lines: x,
                sizes: &xs,
                terms: &xt,
            },
            Side {
                lines: y,
                sizes: &ys,
                terms: &yt,
            },
            PassageRule {
                contained_pct: c,
                min_terms,
                min_paragraphs,
            },
        )
    }

    /// [`covering_pair`] at containment 30%, a floor of 40 terms, two paragraphs.
    fn cover(x: &[Vec<u64>], y: &[Vec<u64>], cover_pct: u32) -> Option<Passage> {
        let sizes = |v: &[Vec<u64>]| -> Vec<u32> { v.iter().map(|l| l.len() as u32).collect() };
        let (xs, ys, xt, yt) = (sizes(x), sizes(y), set(x), set(y));
        let side = |lines, sizes, terms| Side {
            lines,
            sizes,
            terms,
        };
        let rule = PassageRule {
            contained_pct: 30,
            min_terms: 40,
            min_paragraphs: 2,
        };
        covering_pair(side(x, &xs, &xt), side(y, &ys, &yt), rule, cover_pct)
    }

    #[test]
    fn a_whole_sites_copy_with_a_discussion_under_it_is_covered() {
        // x: the story (0..60, three paragraphs) and a reader discussion of its page's own
        // (1000..1045); y: the story with a word changed and its own discussion (2000..2030).
        let x = vec![keys(0..20), keys(20..40), keys(40..60), keys(1000..1045)];
        let y = vec![keys(0..20), keys(21..40), keys(40..60), keys(2000..2030)];
        // y's passage (59 terms) is 66% of y's 89 terms; x's (60) 57% of its 105.
        assert!(cover(&x, &y, 60).is_some());
        assert!(
            cover(&y, &x, 60).is_some(),
            "either page may be the covered one"
        );
        assert!(cover(&x, &y, 70).is_none());
        assert!(cover(&x, &y, 0).is_none(), "0 is off");
    }

    #[test]
    fn a_short_page_inside_a_long_page_of_the_same_words_is_not_covered() {
        // x: a short page whose 60 terms a long page holds, 12 of them on one line and the
        // rest scattered one per line among 2,350 terms of its own: x's passage covers all
        // of x, y's holds 12 terms (enough for the rule's other tests, a fifth of x's).
        let x = vec![keys(0..20), keys(20..40), keys(40..60)];
        let mut y = vec![keys(0..12)];
        y.extend((12..60).map(|i| {
            let mut line = keys(10_000 + i * 50..10_000 + i * 50 + 49);
            line.push(i);
            line
        }));
        assert!(
            pair(&x, &y, 30, 40, 2).is_some(),
            "the small-site rule passes it"
        );
        assert!(cover(&x, &y, 60).is_none());
        // The same short page copied whole into a page of modest prose of its own passes.
        let z = vec![keys(0..20), keys(20..40), keys(40..60), keys(5000..5080)];
        assert!(cover(&x, &z, 60).is_some());
    }

    fn set(v: &[Vec<u64>]) -> FxHashSet<u64> {
        v.iter().flatten().copied().collect()
    }

    #[test]
    fn the_story_between_template_lines_is_the_passage() {
        // Template prose (terms 1000..), the story (0..60) in three lines, template again.
        let x = vec![
            keys(1000..1030),
            keys(0..20),
            keys(20..40),
            keys(40..60),
            keys(2000..2040),
        ];
        // The partner holds the story with 5 of its terms changed, and prose of its own.
        let y = vec![keys(3000..3050), keys(5..60), keys(4000..4010)];
        let p = best_passage(&x, &set(&y), 30);
        assert_eq!((p.first, p.last), (1, 3));
        assert_eq!((p.hits, p.misses), (55, 5));
        // Whole lists: 60 of x's 130 terms are in y, 55 of y's 115 in x; neither list is
        // contained (over 30% missing), so Cooper's whole-list tests fail.
        assert!(pair(&x, &y, 30, 40, 1).is_some());
        assert!(pair(&x, &y, 30, 61, 1).is_none());
    }

    #[test]
    fn a_run_with_too_many_missing_terms_is_no_passage() {
        // Every line has 40% of its terms missing from the partner.
        let x: Vec<Vec<u64>> = (0..5).map(|i| keys(i * 10..i * 10 + 10)).collect();
        let partner: FxHashSet<u64> = (0..50).filter(|t| t % 10 < 6).collect();
        assert_eq!(best_passage(&x, &partner, 30).terms(), 0);
        // At a 50% tolerance it is one passage of all five lines.
        let p = best_passage(&x, &partner, 50);
        assert_eq!((p.first, p.last, p.hits, p.misses), (0, 4, 30, 20));
    }

    #[test]
    fn shared_terms_scattered_over_a_long_page_are_no_passage() {
        // x: a short story of 50 terms. y: a long listing whose 200 lines each hold one of
        // x's terms among nine others: y holds all of x, but nowhere together.
        let x = vec![keys(0..25), keys(25..50)];
        let y: Vec<Vec<u64>> = (0..200u64)
            .map(|i| {
                let mut l = vec![i % 50];
                l.extend(10_000 + i * 9..10_000 + i * 9 + 9);
                l
            })
            .collect();
        let px = best_passage(&x, &set(&y), 30);
        assert_eq!(px.terms(), 50, "x is contained in y");
        assert!(pair(&x, &y, 30, 40, 1).is_none());
    }

    #[test]
    fn a_passage_of_one_paragraph_is_no_copy_when_lines_are_asked_for() {
        // A 50-term paragraph of y quoted whole in x, amid x's own paragraphs, under a
        // name line that y has too (two terms: no paragraph).
        let quoted = keys(0..50);
        let x = vec![
            keys(1000..1040),
            keys(90..92),
            quoted.clone(),
            keys(2000..2040),
        ];
        let y = vec![keys(3000..3030), keys(90..92), quoted, keys(4000..4030)];
        assert!(pair(&x, &y, 30, 40, 1).is_some());
        assert!(pair(&x, &y, 30, 40, 2).is_none());
        // Two paragraphs of a story are.
        let x2 = vec![
            keys(1000..1040),
            keys(0..25),
            keys(25..50),
            keys(2000..2040),
        ];
        let y2 = vec![keys(0..25), keys(25..50)];
        assert!(pair(&x2, &y2, 30, 40, 2).is_some());
    }

    #[test]
    fn off_when_the_tolerance_or_the_floor_is_zero() {
        let x = vec![keys(0..50)];
        assert_eq!(best_passage(&x, &set(&x), 0), Passage::default());
        assert!(pair(&x, &x, 30, 0, 1).is_none());
    }
}
