//! Progress and agreement: how many clusters a coder has reviewed, and Cohen's kappa of two
//! coders over the pairs both labeled "same" or "different" (an unsure label on either
//! side leaves the pair out).

use serde::Serialize;

use super::label::PairLabel;

/// Reviewed clusters of the default queue for one coder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub coder: String,
    pub reviewed: u64,
    pub total: u64,
}

/// Cohen's kappa of two coders on the pairs both labeled same or different.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    pub coder_a: String,
    pub coder_b: String,
    pub shared_pairs: u64,
    pub agreed: u64,
    /// None when undefined (no shared pairs, or both coders used one label only).
    pub kappa: Option<f64>,
}

/// Whether kappa counts a pair the two coders labeled `a` and `b`, and as what: (a says
/// same, b says same). Unsure on either side is not counted.
pub fn kappa_cell(a: PairLabel, b: PairLabel) -> Option<(bool, bool)> {
    if a == PairLabel::Unsure || b == PairLabel::Unsure {
        return None;
    }
    Some((a == PairLabel::Same, b == PairLabel::Same))
}

/// Cohen's kappa from a 2×2 table `[[same,same],[same,diff]],[[diff,same],[diff,diff]]`
/// (rows: coder a, columns: coder b).
pub fn cohens_kappa(a: &str, b: &str, t: [[f64; 2]; 2]) -> Agreement {
    let n = t[0][0] + t[0][1] + t[1][0] + t[1][1];
    let agreed = t[0][0] + t[1][1];
    let kappa = if n == 0.0 {
        None
    } else {
        let po = agreed / n;
        let a_same = (t[0][0] + t[0][1]) / n;
        let b_same = (t[0][0] + t[1][0]) / n;
        let pe = a_same * b_same + (1.0 - a_same) * (1.0 - b_same);
        if (1.0 - pe).abs() < 1e-12 {
            None
        } else {
            Some((po - pe) / (1.0 - pe))
        }
    };
    Agreement {
        coder_a: a.to_string(),
        coder_b: b.to_string(),
        shared_pairs: n as u64,
        agreed: agreed as u64,
        kappa,
    }
}

/// Kappa of two coders from the labels each gave the pairs both labeled.
pub fn agreement_of(
    a: &str,
    b: &str,
    shared: impl IntoIterator<Item = (PairLabel, PairLabel)>,
) -> Agreement {
    let mut t = [[0.0f64; 2]; 2];
    for (x, y) in shared {
        if let Some((x, y)) = kappa_cell(x, y) {
            t[usize::from(!x)][usize::from(!y)] += 1.0;
        }
    }
    cohens_kappa(a, b, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_matches_a_hand_computed_table() {
        // 20 same/same, 5 same/diff, 10 diff/same, 15 diff/diff: po = 0.7,
        // pa_same = 0.5, pb_same = 0.6, pe = 0.3 + 0.2 = 0.5, kappa = 0.4.
        let k = cohens_kappa("a", "b", [[20.0, 5.0], [10.0, 15.0]]);
        assert_eq!(k.shared_pairs, 50);
        assert_eq!(k.agreed, 35);
        assert!((k.kappa.unwrap() - 0.4).abs() < 1e-12, "{k:?}");
        assert_eq!(cohens_kappa("a", "b", [[0.0; 2]; 2]).kappa, None);
    }

    #[test]
    fn unsure_pairs_are_not_counted() {
        use PairLabel::*;
        let k = agreement_of(
            "a",
            "b",
            [
                (Same, Same),
                (Different, Different),
                (Unsure, Same),
                (Same, Unsure),
            ],
        );
        assert_eq!((k.shared_pairs, k.agreed), (2, 2));
        assert_eq!(k.kappa, Some(1.0));
    }
}
