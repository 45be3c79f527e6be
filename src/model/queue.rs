//! The review queue: one row per entry of the merged queue ([`QueueRow`]; the entries are
//! built in [`super::entries`]), which of them a coder is shown ([`QueueFilter`]) and in what order
//! ([`QueueSort`], [`queue_order`]).

use std::cmp::Ordering;

use serde::Serialize;

use super::label::LabelStatus;

/// Whether the queue shows the entries noise triage kept out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NoiseShown {
    /// The default queue: no triaged noise.
    #[default]
    Hide,
    /// Only the triaged noise (the filter that reaches it).
    Only,
    /// Everything (`spotcheck queue --all`).
    Include,
}

/// Which entries the queue shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueFilter {
    /// Only entries this detector found a pair in.
    pub method: Option<String>,
    pub status: Option<LabelStatus>,
    pub min_size: Option<i64>,
    pub max_size: Option<i64>,
    pub tag: Option<String>,
    /// Case-insensitive substring of any member's title or URL.
    pub search: Option<String>,
    /// Only entries that not every detector found.
    pub disagree_only: bool,
    /// Only entries found by at least this many detectors.
    pub min_agreement: Option<i64>,
    /// Triaged noise: hidden, alone, or included.
    pub noise: NoiseShown,
}

/// Queue order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum QueueSort {
    #[default]
    SizeDesc,
    SizeAsc,
    ScoreDesc,
    ScoreAsc,
    /// Most detectors agreeing first (then larger first).
    AgreementDesc,
    /// Active learning: the entries whose label would teach most first ([`teach_score`]:
    /// detectors disagreeing, weakest link near the threshold).
    Active,
}

impl QueueSort {
    pub const ALL: [QueueSort; 6] = [
        QueueSort::SizeDesc,
        QueueSort::SizeAsc,
        QueueSort::ScoreDesc,
        QueueSort::ScoreAsc,
        QueueSort::AgreementDesc,
        QueueSort::Active,
    ];

    pub fn name(self) -> &'static str {
        match self {
            QueueSort::SizeDesc => "size desc",
            QueueSort::SizeAsc => "size asc",
            QueueSort::ScoreDesc => "score desc",
            QueueSort::ScoreAsc => "score asc",
            QueueSort::AgreementDesc => "agreement desc",
            QueueSort::Active => "active",
        }
    }
}

/// The `run_id` of every merged-queue row (the entries belong to no single run).
pub const MERGED_QUEUE: i64 = 0;

/// One entry in the review queue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueueRow {
    /// [`MERGED_QUEUE`] for a merged entry.
    pub run_id: i64,
    /// The entry's agreement: "3 of 3 detectors", "spotsigs only".
    pub method: String,
    /// The entry number.
    pub cluster: i64,
    /// Members (each standing for its byte-identical captures).
    pub size: i64,
    /// The detectors that found a pair inside the entry.
    pub detectors: Vec<String>,
    /// Detectors with a finished run when the queue was built.
    pub detectors_total: i64,
    /// Documents the members stand for (≥ size).
    pub captures: i64,
    /// The triage rule that kept the entry out of the default queue.
    pub noise: Option<String>,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    /// Derived from the coder's labels over the members' pairs (see
    /// [`crate::model::ClusterReview`]).
    pub status: LabelStatus,
    /// Member pairs the coder has labeled, of `pairs`.
    pub labeled: i64,
    pub pairs: i64,
    pub tags: Vec<String>,
    pub title: String,
    pub disagree: bool,
    /// The member document ids, sorted.
    pub members: Vec<i64>,
    /// The row's place in the queue order it was read in (for reading the next page).
    pub rank: i64,
}

/// What the queue order looks at in a cluster.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueKey {
    pub run_id: i64,
    pub cluster: i64,
    pub size: i64,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    /// Detectors that found a pair in it.
    pub agreement: i64,
    /// Detectors with a finished run.
    pub detectors_total: i64,
}

/// How much a coder's label of an entry would teach a model, for the active-learning order
/// (uncertainty sampling): the detectors' disagreement, 1 − |2·agreement/total − 1| (1 when
/// half of them found it, 0 when all or one of one), plus the uncertainty of its weakest
/// link, 1 − min score (every merged pair passed some detector's threshold, so the
/// weakest is the one nearest a decision boundary; an entry without scores counts ½).
pub fn teach_score(k: &QueueKey) -> f64 {
    let disagreement = if k.detectors_total > 1 {
        1.0 - (2.0 * k.agreement as f64 / k.detectors_total as f64 - 1.0).abs()
    } else {
        0.0
    };
    let uncertainty = k.min_score.map_or(0.5, |s| 1.0 - s.clamp(0.0, 1.0));
    disagreement + uncertainty
}

/// The order of the queue under `sort` (ties broken by run and cluster, so it is total).
pub fn queue_order(sort: QueueSort, a: &QueueKey, b: &QueueKey) -> Ordering {
    // A missing score sorts as SQLite sorts NULL: lowest.
    let score = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (a, b) => a.is_some().cmp(&b.is_some()),
    };
    let first = match sort {
        QueueSort::SizeDesc => b.size.cmp(&a.size).then(score(b.max_score, a.max_score)),
        QueueSort::SizeAsc => a.size.cmp(&b.size).then(score(b.max_score, a.max_score)),
        QueueSort::ScoreDesc => score(b.max_score, a.max_score).then(b.size.cmp(&a.size)),
        QueueSort::ScoreAsc => score(a.min_score, b.min_score).then(b.size.cmp(&a.size)),
        QueueSort::AgreementDesc => b
            .agreement
            .cmp(&a.agreement)
            .then(b.size.cmp(&a.size))
            .then(score(b.max_score, a.max_score)),
        QueueSort::Active => teach_score(b)
            .total_cmp(&teach_score(a))
            .then(b.size.cmp(&a.size)),
    };
    first.then((a.run_id, a.cluster).cmp(&(b.run_id, b.cluster)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_score_sorts_lowest_and_ties_fall_to_run_and_cluster() {
        let k = |cluster, size, max| QueueKey {
            run_id: 1,
            cluster,
            size,
            min_score: max,
            max_score: max,
            agreement: 1,
            detectors_total: 1,
        };
        let mut v = [k(3, 2, None), k(2, 2, Some(0.5)), k(1, 5, Some(0.1))];
        v.sort_by(|a, b| queue_order(QueueSort::ScoreDesc, a, b));
        assert_eq!(v.map(|k| k.cluster), [2, 1, 3]);
        v.sort_by(|a, b| queue_order(QueueSort::SizeDesc, a, b));
        assert_eq!(v.map(|k| k.cluster), [1, 2, 3]);
        v.sort_by(|a, b| queue_order(QueueSort::ScoreAsc, a, b));
        assert_eq!(v.map(|k| k.cluster), [3, 1, 2]);
    }

    #[test]
    fn the_active_order_puts_disagreement_and_weak_links_first() {
        let k = |cluster, agreement, min| QueueKey {
            run_id: 0,
            cluster,
            size: 2,
            min_score: Some(min),
            max_score: Some(min),
            agreement,
            detectors_total: 4,
        };
        // 2 of 4 detectors at 0.9: 1 + 0.1; 4 of 4 at 0.4: 0 + 0.6; 4 of 4 at 0.95: 0.05;
        // 1 of 4 at 0.5: 0.5 + 0.5.
        let mut v = [k(1, 4, 0.95), k(2, 2, 0.9), k(3, 4, 0.4), k(4, 1, 0.5)];
        v.sort_by(|a, b| queue_order(QueueSort::Active, a, b));
        assert_eq!(v.map(|k| k.cluster), [2, 4, 3, 1]);
        assert!((teach_score(&k(9, 2, 0.9)) - 1.1).abs() < 1e-12);
    }
}
