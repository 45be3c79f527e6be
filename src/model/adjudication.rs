//! Adjudication as typed data with its pure rules: an adjudicator's decisions are ordinary
//! log rows recorded under the coder key `adjudicator:NAME` (the role and the person in the
//! log's own coder column, so every row keeps its provenance and undo works as for any
//! coder); the label of a pair over all coders is the adjudicated one where an adjudicator
//! decided it, else the coders' label where they agree ([`consensus`]). Also what the
//! adjudication screen and `spotcheck adjudicate` show of a disputed pair
//! ([`Disagreement`]) and the agreement of two coders before and after adjudication
//! ([`agreement_before_after`]).

use serde::Serialize;

use super::agreement::{agreement_of, Agreement};
use super::label::PairLabel;

/// The coder-key prefix of the adjudicator role.
pub const ADJUDICATOR_PREFIX: &str = "adjudicator:";

/// The log's coder key for `name` deciding as adjudicator.
pub fn adjudicator_key(name: &str) -> String {
    format!("{ADJUDICATOR_PREFIX}{name}")
}

/// Whether a coder key is an adjudicator's.
pub fn is_adjudicator(coder: &str) -> bool {
    coder.starts_with(ADJUDICATOR_PREFIX)
}

/// What the coders and adjudicators together say about one pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Consensus {
    /// No coder labeled it same or different (none, or only unsure).
    Unlabeled,
    /// Every coder who labeled it same or different agrees (unsure ones aside).
    Agreed(PairLabel),
    /// Coders disagree and no adjudicator has decided.
    Disagreed,
    /// An adjudicator decided (adjudicators who disagree with each other: [`Disagreed`]).
    ///
    /// [`Disagreed`]: Consensus::Disagreed
    Adjudicated(PairLabel),
}

impl Consensus {
    /// The label to use, if any.
    pub fn label(self) -> Option<PairLabel> {
        match self {
            Consensus::Agreed(l) | Consensus::Adjudicated(l) => Some(l),
            _ => None,
        }
    }
}

fn one_verdict<'a>(labels: impl Iterator<Item = &'a PairLabel>) -> Option<Result<PairLabel, ()>> {
    let mut seen: Option<PairLabel> = None;
    for &l in labels.filter(|l| **l != PairLabel::Unsure) {
        match seen {
            None => seen = Some(l),
            Some(s) if s != l => return Some(Err(())),
            _ => {}
        }
    }
    seen.map(Ok)
}

/// The consensus of `(coder key, label)` rows about one pair.
pub fn consensus(labels: &[(String, PairLabel)]) -> Consensus {
    let adjudicated = one_verdict(
        labels
            .iter()
            .filter(|(c, _)| is_adjudicator(c))
            .map(|(_, l)| l),
    );
    match adjudicated {
        Some(Ok(l)) => return Consensus::Adjudicated(l),
        Some(Err(())) => return Consensus::Disagreed,
        None => {}
    }
    match one_verdict(
        labels
            .iter()
            .filter(|(c, _)| !is_adjudicator(c))
            .map(|(_, l)| l),
    ) {
        None => Consensus::Unlabeled,
        Some(Ok(l)) => Consensus::Agreed(l),
        Some(Err(())) => Consensus::Disagreed,
    }
}

/// One coder's (or adjudicator's) say on a pair: the label, the decision that set it and
/// the note on that decision's document set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoderVerdict {
    /// The log's coder key (`adjudicator:NAME` for an adjudicator).
    pub coder: String,
    pub label: PairLabel,
    /// The verdict's action (confirm, split, reject, unsure).
    pub action: String,
    /// Documents in the set the verdict was given on (2: the pair itself).
    pub set_size: usize,
    pub note: Option<String>,
    /// The decision-log id of the verdict.
    pub decision: i64,
}

/// A pair (a < b) coders labeled both same and different, with every coder's verdict and
/// the adjudicators' (if any).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    pub a: i64,
    pub b: i64,
    /// The coders' verdicts, by coder key.
    pub coders: Vec<CoderVerdict>,
    /// The adjudicators' verdicts, by coder key (empty: not adjudicated yet).
    pub adjudications: Vec<CoderVerdict>,
}

impl Disagreement {
    /// The pair's consensus over coders and adjudicators.
    pub fn consensus(&self) -> Consensus {
        let rows: Vec<(String, PairLabel)> = self
            .coders
            .iter()
            .chain(&self.adjudications)
            .map(|v| (v.coder.clone(), v.label))
            .collect();
        consensus(&rows)
    }

    /// The adjudicated label, if one is in force.
    pub fn adjudicated(&self) -> Option<PairLabel> {
        match self.consensus() {
            Consensus::Adjudicated(l) => Some(l),
            _ => None,
        }
    }
}

/// Kappa of two coders before adjudication and after it (each coder's label on an
/// adjudicated pair replaced by the adjudicated one), with the disagreements and how many
/// of them are adjudicated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdjudicatedAgreement {
    pub before: Agreement,
    pub after: Agreement,
    /// Shared pairs the two label same/different differently.
    pub disagreed: u64,
    /// Of those, the ones an adjudicator decided.
    pub resolved: u64,
}

/// Agreement of coders `a` and `b` before and after adjudication, from their labels on
/// the pairs both labeled, each with the adjudicated label of the pair (None: none).
pub fn agreement_before_after(
    a: &str,
    b: &str,
    shared: impl IntoIterator<Item = (PairLabel, PairLabel, Option<PairLabel>)>,
) -> AdjudicatedAgreement {
    let shared: Vec<_> = shared.into_iter().collect();
    let disputed =
        |x: PairLabel, y: PairLabel| x != y && x != PairLabel::Unsure && y != PairLabel::Unsure;
    let disagreed = shared.iter().filter(|(x, y, _)| disputed(*x, *y)).count() as u64;
    let resolved = shared
        .iter()
        .filter(|(x, y, adj)| disputed(*x, *y) && adj.is_some())
        .count() as u64;
    let before = agreement_of(a, b, shared.iter().map(|&(x, y, _)| (x, y)));
    let after = agreement_of(
        a,
        b,
        shared
            .iter()
            .map(|&(x, y, adj)| (adj.unwrap_or(x), adj.unwrap_or(y))),
    );
    AdjudicatedAgreement {
        before,
        after,
        disagreed,
        resolved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PairLabel::*;

    fn rows(r: &[(&str, PairLabel)]) -> Vec<(String, PairLabel)> {
        r.iter().map(|(c, l)| (c.to_string(), *l)).collect()
    }

    #[test]
    fn an_adjudicator_settles_a_disagreement_and_unsure_counts_for_nothing() {
        assert_eq!(consensus(&[]), Consensus::Unlabeled);
        assert_eq!(consensus(&rows(&[("a", Unsure)])), Consensus::Unlabeled);
        assert_eq!(
            consensus(&rows(&[("a", Same), ("b", Unsure)])),
            Consensus::Agreed(Same)
        );
        let split = rows(&[("a", Same), ("b", Different)]);
        assert_eq!(consensus(&split), Consensus::Disagreed);
        let mut settled = split.clone();
        settled.push((adjudicator_key("lead"), Different));
        assert_eq!(consensus(&settled), Consensus::Adjudicated(Different));
        assert_eq!(consensus(&settled).label(), Some(Different));
        settled.push((adjudicator_key("other"), Same));
        assert_eq!(consensus(&settled), Consensus::Disagreed);
        assert!(is_adjudicator("adjudicator:lead") && !is_adjudicator("lead"));
    }

    #[test]
    fn adjudication_raises_kappa_by_what_it_resolves() {
        // 4 pairs: two agreed (same, different), two disputed, one of them adjudicated.
        let rows = [
            (Same, Same, None),
            (Different, Different, None),
            (Same, Different, Some(Same)),
            (Different, Same, None),
            (Unsure, Same, None),
        ];
        let r = agreement_before_after("a", "b", rows);
        assert_eq!((r.disagreed, r.resolved), (2, 1));
        assert_eq!((r.before.shared_pairs, r.before.agreed), (4, 2));
        assert_eq!((r.after.shared_pairs, r.after.agreed), (4, 3));
        assert_eq!(r.before.kappa, Some(0.0));
        assert!(r.after.kappa.unwrap() > 0.4, "{r:?}");
    }

    #[test]
    fn a_disagreement_knows_its_adjudication() {
        let v = |coder: &str, label| CoderVerdict {
            coder: coder.into(),
            label,
            action: "confirm".into(),
            set_size: 2,
            note: None,
            decision: 1,
        };
        let mut d = Disagreement {
            a: 1,
            b: 2,
            coders: vec![v("ann", Same), v("bob", Different)],
            adjudications: vec![],
        };
        assert_eq!(d.consensus(), Consensus::Disagreed);
        assert_eq!(d.adjudicated(), None);
        d.adjudications.push(v("adjudicator:lead", Same));
        assert_eq!(d.adjudicated(), Some(Same));
    }
}
