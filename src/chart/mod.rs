//! Figure data: the numbers behind every picture of the workbench and of an exported figure
//! — a run's score histogram with its threshold, the what-if curve (pairs, entries,
//! precision and recall at any threshold), the distribution of group sizes and the review's
//! progress over time. Pure functions of plain numbers (no store, no terminal): the TUI's
//! chart screen draws them with ratatui, [`svg`] draws them with plotters, and a report can
//! print them. [`load`] is the one part that reads them from a [`crate::store::Store`].

pub mod load;
pub mod svg;

use crate::ingest::date::{civil_from_days, days_from_civil};
use std::collections::{BTreeMap, HashMap};

pub use load::{load_figures, FigureRequest, Figures};

/// One bar of a histogram: values in `lo..hi` (the last bin includes `hi`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub count: u64,
}

/// The pair scores of one detector run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ScoreHistogram {
    pub method: String,
    pub run: i64,
    pub bins: Vec<Bin>,
    /// The run's own threshold (SpotSigs' tau, MinHash's and ANDD's threshold), when it has one.
    pub threshold: Option<f64>,
    pub pairs: u64,
}

/// Bins the default histogram uses.
pub const SCORE_BINS: usize = 20;

/// `scores` in `bins` equal bins over `[min(0, lowest), max(1, highest)]` (scores of every
/// method here lie in [0, 1]; a wider range widens the axis rather than dropping a score).
pub fn score_bins(scores: &[f64], bins: usize) -> Vec<Bin> {
    let bins = bins.max(1);
    let finite = scores.iter().copied().filter(|s| s.is_finite());
    let (lo, hi) = finite.fold((0.0f64, 1.0f64), |(lo, hi), s| (lo.min(s), hi.max(s)));
    let width = (hi - lo) / bins as f64;
    let mut out: Vec<Bin> = (0..bins)
        .map(|i| Bin {
            lo: lo + width * i as f64,
            hi: if i + 1 == bins {
                hi
            } else {
                lo + width * (i + 1) as f64
            },
            count: 0,
        })
        .collect();
    for s in scores.iter().copied().filter(|s| s.is_finite()) {
        // Truncation is the binning; the top score goes into the last bin.
        let i = (((s - lo) / width) as usize).min(bins - 1);
        out[i].count += 1;
    }
    out
}

/// A coder's verdict on a pair, as the what-if counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabeledPair {
    pub a: i64,
    pub b: i64,
    /// "same" (true) or "different" (false); unsure labels are left out.
    pub same: bool,
}

/// What a run would propose at one threshold.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct WhatIfPoint {
    pub threshold: f64,
    /// Pairs scoring at least the threshold.
    pub pairs: u64,
    /// Groups (connected components of two or more documents) of those pairs.
    pub entries: u64,
    /// Of those pairs, the ones labeled same / different.
    pub labeled_same: u64,
    pub labeled_different: u64,
    /// labeled_same / (labeled_same + labeled_different), when any is labeled.
    pub precision: Option<f64>,
    /// labeled_same / every pair labeled same (proposed by the run or not), when any is.
    pub recall: Option<f64>,
}

/// The what-if of a run at each of `thresholds` (any order; the points come back in the same
/// order): one pass over the pairs sorted by score, joining groups as the threshold falls.
pub fn what_if(
    pairs: &[(i64, i64, f64)],
    labels: &[LabeledPair],
    thresholds: &[f64],
) -> Vec<WhatIfPoint> {
    let label_of: HashMap<(i64, i64), bool> = labels
        .iter()
        .map(|l| ((l.a.min(l.b), l.a.max(l.b)), l.same))
        .collect();
    let total_same = label_of.values().filter(|s| **s).count() as u64;
    let mut sorted: Vec<(i64, i64, f64)> =
        pairs.iter().copied().filter(|p| p.2.is_finite()).collect();
    sorted.sort_by(|x, y| y.2.total_cmp(&x.2));
    let mut order: Vec<usize> = (0..thresholds.len()).collect();
    order.sort_by(|&i, &j| thresholds[j].total_cmp(&thresholds[i]));

    let mut dsu = Dsu::default();
    let (mut nodes, mut unions, mut same, mut different) = (0u64, 0u64, 0u64, 0u64);
    let mut next = 0usize;
    let mut out = vec![None; thresholds.len()];
    for i in order {
        let t = thresholds[i];
        while next < sorted.len() && sorted[next].2 >= t {
            let (a, b, _) = sorted[next];
            nodes += dsu.add(a) + dsu.add(b);
            unions += u64::from(dsu.union(a, b));
            match label_of.get(&(a.min(b), a.max(b))) {
                Some(true) => same += 1,
                Some(false) => different += 1,
                None => {}
            }
            next += 1;
        }
        let labeled = same + different;
        out[i] = Some(WhatIfPoint {
            threshold: t,
            pairs: next as u64,
            entries: nodes - unions,
            labeled_same: same,
            labeled_different: different,
            precision: (labeled > 0).then(|| same as f64 / labeled as f64),
            recall: (total_same > 0).then(|| same as f64 / total_same as f64),
        });
    }
    out.into_iter().flatten().collect()
}

/// The what-if at `steps` + 1 evenly spaced thresholds over [lo, hi] (lowest first): what
/// the TUI steps through when a key moves the threshold.
pub fn what_if_curve(
    pairs: &[(i64, i64, f64)],
    labels: &[LabeledPair],
    lo: f64,
    hi: f64,
    steps: usize,
) -> Vec<WhatIfPoint> {
    let steps = steps.max(1);
    let thresholds: Vec<f64> = (0..=steps)
        .map(|i| lo + (hi - lo) * i as f64 / steps as f64)
        .collect();
    what_if(pairs, labels, &thresholds)
}

/// Union-find over document ids, for [`what_if`].
#[derive(Default)]
struct Dsu {
    parent: HashMap<i64, i64>,
}

impl Dsu {
    /// 1 if `x` is new.
    fn add(&mut self, x: i64) -> u64 {
        match self.parent.entry(x) {
            std::collections::hash_map::Entry::Occupied(_) => 0,
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(x);
                1
            }
        }
    }
    fn find(&mut self, mut x: i64) -> i64 {
        let mut path = Vec::new();
        while let Some(&p) = self.parent.get(&x) {
            if p == x {
                break;
            }
            path.push(x);
            x = p;
        }
        for y in path {
            self.parent.insert(y, x);
        }
        x
    }
    /// Whether `a` and `b` were in different groups.
    fn union(&mut self, a: i64, b: i64) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(ra, rb);
        }
        ra != rb
    }
}

/// One bar of the size distribution: groups of `lo..=hi` members (`hi` None: or more).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SizeBin {
    pub label: String,
    pub lo: usize,
    pub hi: Option<usize>,
    pub groups: u64,
    /// Documents in those groups.
    pub documents: u64,
}

/// The size classes of [`size_distribution`]: 2, 3, 4, 5–9, 10–19, 20–49, 50–99, 100+.
pub const SIZE_CLASSES: &[(usize, Option<usize>)] = &[
    (2, Some(2)),
    (3, Some(3)),
    (4, Some(4)),
    (5, Some(9)),
    (10, Some(19)),
    (20, Some(49)),
    (50, Some(99)),
    (100, None),
];

/// How many groups of each size class `sizes` holds (groups under 2 are not groups).
pub fn size_distribution(sizes: &[usize]) -> Vec<SizeBin> {
    SIZE_CLASSES
        .iter()
        .map(|&(lo, hi)| {
            let inside: Vec<usize> = sizes
                .iter()
                .copied()
                .filter(|&s| s >= lo && hi.is_none_or(|h| s <= h))
                .collect();
            SizeBin {
                label: match hi {
                    Some(h) if h == lo => lo.to_string(),
                    Some(h) => format!("{lo}–{h}"),
                    None => format!("{lo}+"),
                },
                lo,
                hi,
                groups: inside.len() as u64,
                documents: inside.iter().map(|&s| s as u64).sum(),
            }
        })
        .collect()
}

/// The time unit of [`progress_by`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Period {
    Hour,
    Day,
}

/// Decisions in one period.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ProgressPoint {
    /// "2026-11-24" (day) or "2026-11-24T02" (hour), UTC.
    pub period: String,
    pub decisions: u64,
    /// Decisions up to and including this period.
    pub cumulative: u64,
}

/// Decisions per hour or day from their log times (`2026-11-24T02:15:56.123Z`), every
/// period from the first to the last present (a quiet day shows as 0, not as a gap). Times
/// that do not parse are left out.
pub fn progress_by(times: &[&str], period: Period) -> Vec<ProgressPoint> {
    let mut counts: BTreeMap<i64, u64> = BTreeMap::new();
    for t in times {
        if let Some(k) = period_index(t, period) {
            *counts.entry(k).or_default() += 1;
        }
    }
    let (Some(&first), Some(&last)) = (counts.keys().next(), counts.keys().next_back()) else {
        return Vec::new();
    };
    let mut cumulative = 0;
    (first..=last)
        .map(|k| {
            let decisions = counts.get(&k).copied().unwrap_or(0);
            cumulative += decisions;
            ProgressPoint {
                period: period_name(k, period),
                decisions,
                cumulative,
            }
        })
        .collect()
}

/// Hours or days since 1970-01-01 of an ISO-8601 UTC time.
fn period_index(t: &str, period: Period) -> Option<i64> {
    let y: i64 = t.get(0..4)?.parse().ok()?;
    let m: u32 = t.get(5..7)?.parse().ok()?;
    let d: u32 = t.get(8..10)?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, m, d);
    match period {
        Period::Day => Some(days),
        Period::Hour => {
            let h: i64 = t.get(11..13)?.parse().ok()?;
            (0..24).contains(&h).then_some(days * 24 + h)
        }
    }
}

fn period_name(k: i64, period: Period) -> String {
    match period {
        Period::Day => {
            let (y, m, d) = civil_from_days(k);
            format!("{y:04}-{m:02}-{d:02}")
        }
        Period::Hour => {
            let (y, m, d) = civil_from_days(k.div_euclid(24));
            format!("{y:04}-{m:02}-{d:02}T{:02}", k.rem_euclid(24))
        }
    }
}

/// The threshold a run was made with, from its stored parameters: SpotSigs' `tau`, MinHash's
/// and ANDD's `threshold` (I-Match and Cooper have none: their pairs share a signature).
/// An ANDD run whose threshold was chosen on the collection's own scores knows it only once
/// the pairs are scored, so its parameters hold none and its `summary` does.
pub fn run_threshold(
    params: &serde_json::Value,
    summary: Option<&serde_json::Value>,
) -> Option<f64> {
    ["tau", "threshold"]
        .iter()
        .find_map(|k| params.get(k).and_then(serde_json::Value::as_f64))
        .or_else(|| {
            summary
                .filter(|_| params.get("threshold_from").is_some())
                .and_then(|s| s.get("threshold"))
                .and_then(serde_json::Value::as_f64)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_fall_into_equal_bins_and_the_top_score_into_the_last() {
        let bins = score_bins(&[0.0, 0.05, 0.5, 0.95, 1.0, f64::NAN], 10);
        assert_eq!(bins.len(), 10);
        let counts: Vec<u64> = bins.iter().map(|b| b.count).collect();
        assert_eq!(counts, vec![2, 0, 0, 0, 0, 1, 0, 0, 0, 2]);
        assert!((bins[5].lo - 0.5).abs() < 1e-12 && (bins[9].hi - 1.0).abs() < 1e-12);
    }

    /// The one-pass what-if equals counting from scratch at each threshold.
    #[test]
    fn what_if_counts_pairs_groups_precision_and_recall() {
        let pairs = [(1, 2, 0.9), (2, 3, 0.5), (4, 5, 0.7), (6, 7, 0.2)];
        let labels = [
            LabeledPair {
                a: 1,
                b: 2,
                same: true,
            },
            LabeledPair {
                a: 3,
                b: 2,
                same: false,
            },
            LabeledPair {
                a: 8,
                b: 9,
                same: true,
            },
        ];
        let pts = what_if(&pairs, &labels, &[0.6, 0.95, 0.5, 0.0]);
        let got: Vec<(u64, u64)> = pts.iter().map(|p| (p.pairs, p.entries)).collect();
        assert_eq!(got, vec![(2, 2), (0, 0), (3, 2), (4, 3)]);
        assert_eq!(pts[0].precision, Some(1.0));
        assert_eq!(pts[0].recall, Some(0.5));
        assert_eq!(pts[2].precision, Some(0.5));
        assert_eq!(pts[1].precision, None);
        assert_eq!(pts[1].recall, Some(0.0));
        let curve = what_if_curve(&pairs, &[], 0.0, 1.0, 4);
        assert_eq!(curve.len(), 5);
        assert_eq!(curve[0].threshold, 0.0);
        assert_eq!(curve[4].pairs, 0);
        assert_eq!(curve[0].recall, None);
    }

    #[test]
    fn sizes_go_to_their_classes() {
        let d = size_distribution(&[1, 2, 2, 3, 7, 12, 100, 250]);
        let groups: Vec<u64> = d.iter().map(|b| b.groups).collect();
        assert_eq!(groups, vec![2, 1, 0, 1, 1, 0, 0, 2]);
        assert_eq!(d[3].label, "5–9");
        assert_eq!(d[7].label, "100+");
        assert_eq!(d[7].documents, 350);
    }

    #[test]
    fn progress_fills_quiet_periods_and_accumulates() {
        let times = [
            "2026-02-27T10:00:00.000Z",
            "2026-03-01T09:59:00Z",
            "2026-03-01T11:00:00Z",
            "garbage",
        ];
        let days = progress_by(&times, Period::Day);
        let got: Vec<(&str, u64, u64)> = days
            .iter()
            .map(|p| (p.period.as_str(), p.decisions, p.cumulative))
            .collect();
        assert_eq!(
            got,
            vec![
                ("2026-02-27", 1, 1),
                ("2026-02-28", 0, 1),
                ("2026-03-01", 2, 3)
            ]
        );
        let hours = progress_by(&times[1..], Period::Hour);
        assert_eq!(hours.len(), 3);
        assert_eq!(hours[1].period, "2026-03-01T10");
        assert_eq!(hours[1].decisions, 0);
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(days_from_civil(2000, 2, 29)), (2000, 2, 29));
    }

    #[test]
    fn the_threshold_comes_from_the_stored_parameters() {
        assert_eq!(
            run_threshold(&serde_json::json!({"tau": 0.4}), None),
            Some(0.4)
        );
        assert_eq!(
            run_threshold(&serde_json::json!({"threshold": 0.8, "perms": 128}), None),
            Some(0.8)
        );
        assert_eq!(run_threshold(&serde_json::json!({"bags": 10}), None), None);
        // ANDD with the collection's threshold: known from the summary only.
        let andd = serde_json::json!({"threshold": null, "threshold_from": "collection"});
        let summary = serde_json::json!({"threshold": 0.97, "pairs": 12});
        assert_eq!(run_threshold(&andd, Some(&summary)), Some(0.97));
        // A summary's number is not a threshold for a method that has none.
        assert_eq!(
            run_threshold(&serde_json::json!({"bags": 10}), Some(&summary)),
            None
        );
    }
}
