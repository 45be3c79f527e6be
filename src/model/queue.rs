//! The review queue: one entry per cluster (two members or more) of a finished detector
//! run ([`QueueRow`]), which of them a coder is shown ([`QueueFilter`]) and in what order
//! ([`QueueSort`], [`queue_order`]).

use std::cmp::Ordering;

use serde::Serialize;

use super::label::LabelStatus;

/// Which clusters the queue shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueFilter {
    pub method: Option<String>,
    pub status: Option<LabelStatus>,
    pub min_size: Option<i64>,
    pub max_size: Option<i64>,
    pub tag: Option<String>,
    /// Case-insensitive substring of any member's title or URL.
    pub search: Option<String>,
    /// Only clusters whose members another method does not keep together.
    pub disagree_only: bool,
    /// Also show clusters of runs superseded by a later run of the same method.
    pub all_runs: bool,
}

/// Queue order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum QueueSort {
    #[default]
    SizeDesc,
    SizeAsc,
    ScoreDesc,
    ScoreAsc,
}

impl QueueSort {
    pub const ALL: [QueueSort; 4] = [
        QueueSort::SizeDesc,
        QueueSort::SizeAsc,
        QueueSort::ScoreDesc,
        QueueSort::ScoreAsc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            QueueSort::SizeDesc => "size desc",
            QueueSort::SizeAsc => "size asc",
            QueueSort::ScoreDesc => "score desc",
            QueueSort::ScoreAsc => "score asc",
        }
    }
}

/// One cluster in the review queue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueueRow {
    pub run_id: i64,
    pub method: String,
    pub cluster: i64,
    pub size: i64,
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
        };
        let mut v = [k(3, 2, None), k(2, 2, Some(0.5)), k(1, 5, Some(0.1))];
        v.sort_by(|a, b| queue_order(QueueSort::ScoreDesc, a, b));
        assert_eq!(v.map(|k| k.cluster), [2, 1, 3]);
        v.sort_by(|a, b| queue_order(QueueSort::SizeDesc, a, b));
        assert_eq!(v.map(|k| k.cluster), [1, 2, 3]);
        v.sort_by(|a, b| queue_order(QueueSort::ScoreAsc, a, b));
        assert_eq!(v.map(|k| k.cluster), [3, 1, 2]);
    }
}
