//! Adjudication as typed data with its pure rules: an adjudicator's decisions are ordinary
//! log rows recorded under the coder key `adjudicator:NAME` (the role and the person in the
//! log's own coder column, so every row keeps its provenance and undo works as for any
//! coder); the label of a pair over all coders is the adjudicated one where an adjudicator
//! decided it, else the coders' label where they agree ([`consensus`]).

use serde::Serialize;

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
}
