//! The chart screen's model: the figures of `crate::chart` for the session's database, one
//! run at a time, with a what-if threshold the coder moves. Every threshold it can stop at
//! is computed once when the screen opens (one pass over the run's pairs), so a key that
//! moves the threshold only looks a point up.

use crate::chart::{what_if, Figures, WhatIfPoint};

/// Thresholds the what-if steps through: every 0.05 over the histogram's range, and the
/// run's own threshold.
pub const WHAT_IF_STEP: f64 = 0.05;

/// The chart screen.
#[derive(Debug, Clone)]
pub struct ChartView {
    pub figures: Figures,
    /// The run shown (index into `figures.runs`).
    pub run: usize,
    /// The what-if points of the run shown, lowest threshold first.
    pub points: Vec<WhatIfPoint>,
    /// The point of the what-if threshold, and the one of the run's own threshold.
    pub at: usize,
    pub start: usize,
}

impl ChartView {
    pub fn new(figures: Figures) -> ChartView {
        let mut v = ChartView {
            figures,
            run: 0,
            points: Vec::new(),
            at: 0,
            start: 0,
        };
        v.show_run(0);
        v
    }

    /// Shows run `i` (wrapping), the what-if back at its own threshold.
    pub fn show_run(&mut self, i: usize) {
        let n = self.figures.runs.len();
        if n == 0 {
            return;
        }
        self.run = i % n;
        let r = &self.figures.runs[self.run];
        let lo = r.histogram.bins.first().map_or(0.0, |b| b.lo);
        let hi = r.histogram.bins.last().map_or(1.0, |b| b.hi);
        let start = r.start_threshold();
        let steps = ((hi - lo) / WHAT_IF_STEP).round().max(1.0) as usize;
        let mut thresholds: Vec<f64> = (0..=steps)
            .map(|k| lo + (hi - lo) * k as f64 / steps as f64)
            .collect();
        if !thresholds.iter().any(|t| (t - start).abs() < 1e-9) {
            thresholds.push(start);
        }
        thresholds.sort_by(f64::total_cmp);
        self.points = what_if(&r.pairs, &self.figures.labels, &thresholds);
        self.start = thresholds
            .iter()
            .position(|t| (t - start).abs() < 1e-9)
            .unwrap_or(0);
        self.at = self.start;
    }

    /// Moves the what-if threshold `steps` points up (or down), within the range.
    pub fn move_threshold(&mut self, steps: i64) {
        let last = self.points.len().saturating_sub(1) as i64;
        self.at = (self.at as i64 + steps).clamp(0, last) as usize;
    }

    pub fn current(&self) -> Option<&WhatIfPoint> {
        self.points.get(self.at)
    }

    pub fn baseline(&self) -> Option<&WhatIfPoint> {
        self.points.get(self.start)
    }

    /// The what-if in words: "at 0.45 (run: 0.50): 130 pairs (+7) · 45 groups (+1) ·
    /// precision 0.93 · recall 0.88 (40 labeled pairs)".
    pub fn summary(&self) -> String {
        let (Some(p), Some(b)) = (self.current(), self.baseline()) else {
            return "no detector run: run `spotcheck detect` first".into();
        };
        let signed = |now: u64, then: u64| {
            let d = now as i64 - then as i64;
            if d == 0 {
                String::new()
            } else {
                format!(" ({d:+})")
            }
        };
        let mut s = format!(
            "at {:.2} (run: {:.2}): {} pairs{} · {} groups{}",
            p.threshold,
            b.threshold,
            p.pairs,
            signed(p.pairs, b.pairs),
            p.entries,
            signed(p.entries, b.entries)
        );
        match (p.precision, p.recall) {
            (Some(pr), Some(rc)) => s.push_str(&format!(
                " · precision {pr:.2} · recall {rc:.2} ({} labeled pairs)",
                p.labeled_same + p.labeled_different
            )),
            (None, Some(rc)) => s.push_str(&format!(" · recall {rc:.2}")),
            _ => s.push_str(" · no labels yet: precision and recall need labeled pairs"),
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::load::RunFigure;
    use crate::chart::{score_bins, LabeledPair, Period, ScoreHistogram};

    #[test]
    fn the_threshold_starts_at_the_runs_own_and_moves_by_steps() {
        let pairs = vec![(1, 2, 0.92), (2, 3, 0.61), (4, 5, 0.47)];
        let scores: Vec<f64> = pairs.iter().map(|p| p.2).collect();
        let figures = Figures {
            runs: vec![RunFigure {
                histogram: ScoreHistogram {
                    method: "spotsigs".into(),
                    run: 1,
                    bins: score_bins(&scores, 20),
                    threshold: Some(0.52),
                    pairs: 3,
                },
                pairs,
            }],
            labels: vec![LabeledPair {
                a: 4,
                b: 5,
                same: true,
            }],
            sizes_of: "merged queue".into(),
            sizes: Vec::new(),
            progress: Vec::new(),
            period: Period::Day,
        };
        let mut v = ChartView::new(figures);
        assert!((v.current().unwrap().threshold - 0.52).abs() < 1e-9);
        assert_eq!(v.current().unwrap().pairs, 2);
        v.move_threshold(-1);
        let p = v.current().unwrap();
        assert!((p.threshold - 0.5).abs() < 1e-9, "{p:?}");
        v.move_threshold(-1);
        assert_eq!(v.current().unwrap().pairs, 3);
        assert!(
            v.summary().contains("3 pairs (+1) · 2 groups"),
            "{}",
            v.summary()
        );
        assert!(v.summary().contains("recall 1.00"), "{}", v.summary());
        v.move_threshold(-100);
        assert_eq!(v.at, 0);
        v.move_threshold(100);
        assert_eq!(v.at, v.points.len() - 1);
    }
}
