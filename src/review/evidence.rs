//! Spans to highlight in the pair view: the evidence two documents share, and the
//! word-level diff between them. The explanations belong to the detectors (each method's
//! `explain` in `detect`, under the parameters of the run that proposed the pair);
//! [`DetectorEvidence`] gathers them, [`SharedWords`] approximates them from the texts.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::time::Duration;

use crate::text::{tokenize, WordList};

pub use crate::detect::andd::{andd_grams, kgram_highlights};
pub use crate::detect::{Highlight, HighlightKind};

/// Explains a pair: the spans of each text that are evidence of duplication. Spans are
/// sorted by start and do not overlap.
pub trait EvidenceProvider {
    fn highlights(&self, left: &str, right: &str) -> (Vec<Highlight>, Vec<Highlight>);
}

/// A stand-in for the detectors' own explanations: a run of three words that both texts
/// contain is drawn as a spot signature, and any other non-stopword both texts contain as a
/// lexicon term.
pub struct SharedWords {
    stopwords: WordList,
}

impl Default for SharedWords {
    fn default() -> Self {
        SharedWords {
            stopwords: WordList::default_stopwords(),
        }
    }
}

/// Words per shared run drawn as a spot signature.
const SHINGLE: usize = 3;

/// The words of a text with a hash of each normalized word (hashing once keeps the pair
/// view of two 5,000-line documents fast).
struct HashedWords {
    tokens: Vec<crate::text::Token>,
    hashes: Vec<u64>,
}

impl HashedWords {
    fn new(text: &str) -> HashedWords {
        let tokens = tokenize(text);
        let hashes = tokens
            .iter()
            .map(|t| {
                let mut h = std::hash::DefaultHasher::new();
                t.norm.hash(&mut h);
                h.finish()
            })
            .collect();
        HashedWords { tokens, hashes }
    }

    fn shingle(&self, i: usize) -> u64 {
        self.hashes[i..i + SHINGLE]
            .iter()
            .fold(0xcbf2_9ce4_8422_2325u64, |acc, h| {
                (acc ^ h)
                    .wrapping_mul(0x0000_0100_0000_01b3)
                    .rotate_left(17)
            })
    }

    fn shingles(&self) -> HashSet<u64> {
        (0..self.hashes.len().saturating_sub(SHINGLE - 1))
            .map(|i| self.shingle(i))
            .collect()
    }

    fn words(&self) -> HashSet<u64> {
        self.hashes.iter().copied().collect()
    }
}

impl SharedWords {
    fn spans(
        &self,
        text: &str,
        mine: &HashedWords,
        shingles_other: &HashSet<u64>,
        words_other: &HashSet<u64>,
    ) -> Vec<Highlight> {
        let tokens = &mine.tokens;
        let mut kind: Vec<Option<HighlightKind>> = vec![None; tokens.len()];
        for i in 0..tokens.len().saturating_sub(SHINGLE - 1) {
            if shingles_other.contains(&mine.shingle(i)) {
                for k in &mut kind[i..i + SHINGLE] {
                    *k = Some(HighlightKind::SpotSig);
                }
            }
        }
        for (i, t) in tokens.iter().enumerate() {
            if kind[i].is_none()
                && words_other.contains(&mine.hashes[i])
                && !self.stopwords.contains(&t.norm)
            {
                kind[i] = Some(HighlightKind::LexiconTerm);
            }
        }
        // Merge neighbouring signature words (and the gap between them) into one span.
        let mut out: Vec<Highlight> = Vec::new();
        for (t, k) in tokens.iter().zip(kind) {
            let Some(k) = k else { continue };
            match out.last_mut() {
                Some(last)
                    if last.kind == k
                        && k == HighlightKind::SpotSig
                        && text[last.end..t.start]
                            .chars()
                            .all(|c| !c.is_alphanumeric()) =>
                {
                    last.end = t.end
                }
                _ => out.push(Highlight {
                    start: t.start,
                    end: t.end,
                    kind: k,
                }),
            }
        }
        out
    }
}

impl EvidenceProvider for SharedWords {
    fn highlights(&self, left: &str, right: &str) -> (Vec<Highlight>, Vec<Highlight>) {
        let (l, r) = (HashedWords::new(left), HashedWords::new(right));
        (
            self.spans(left, &l, &r.shingles(), &r.words()),
            self.spans(right, &r, &l.shingles(), &l.words()),
        )
    }
}

/// The detectors' own explanation of a pair, each method's under the parameters of one of
/// its runs: every method of the table with a run explains with that run's stored
/// parameters and the pair's detail in it; a default method without a run (SpotSigs,
/// I-Match) explains with its defaults, so the pair view of a database with one detector's
/// runs still shows shared passages and terms.
#[derive(Debug, Clone)]
pub struct DetectorEvidence {
    /// (method, the run's stored parameters, the pair's detail in that run).
    runs: Vec<(&'static str, serde_json::Value, Option<String>)>,
}

impl Default for DetectorEvidence {
    /// Every default method with its default parameters.
    fn default() -> Self {
        DetectorEvidence::for_runs(Vec::new())
    }
}

impl DetectorEvidence {
    /// The explanation of the given runs: `(method, stored parameters, detail)`, one per
    /// method (the run that proposed the pair, or the method's latest).
    pub fn for_runs(runs: Vec<(String, serde_json::Value, Option<String>)>) -> Self {
        let mut out = Vec::new();
        for m in crate::detect::METHODS {
            match runs.iter().find(|r| r.0 == m.name()) {
                Some((_, params, detail)) => out.push((m.name(), params.clone(), detail.clone())),
                None if m.in_all() == crate::detect::InAll::Always => {
                    out.push((m.name(), serde_json::json!({}), None))
                }
                None => {}
            }
        }
        DetectorEvidence { runs: out }
    }
}

impl EvidenceProvider for DetectorEvidence {
    fn highlights(&self, left: &str, right: &str) -> (Vec<Highlight>, Vec<Highlight>) {
        let mut l: Vec<Highlight> = Vec::new();
        let mut r: Vec<Highlight> = Vec::new();
        for (name, params, detail) in &self.runs {
            let Some(m) = crate::detect::method(name) else {
                continue;
            };
            let pair = crate::detect::PairText {
                left,
                right,
                detail: detail.as_deref(),
            };
            let (ml, mr) = m.explain(params, &pair);
            l.extend(ml);
            r.extend(mr);
        }
        (normalize_spans(left, l), normalize_spans(right, r))
    }
}

/// Sorts spans, drops those overlapping an earlier one (a signature word wins over the
/// same word as a model's k-gram or a lexicon term) and joins signature words separated only by punctuation
/// or spaces, so a shared passage reads as one highlighted run.
pub fn normalize_spans(text: &str, mut spans: Vec<Highlight>) -> Vec<Highlight> {
    // At one start a signature wins, then a model's k-gram, then a shared term.
    let rank = |k: HighlightKind| match k {
        HighlightKind::SpotSig => 0u8,
        HighlightKind::AnddGram => 1,
        _ => 2,
    };
    spans.retain(|h| h.start < h.end && h.end <= text.len());
    spans.sort_by_key(|h| (h.start, rank(h.kind)));
    let mut out: Vec<Highlight> = Vec::with_capacity(spans.len());
    for h in spans {
        match out.last_mut() {
            Some(last) if h.start < last.end => {}
            Some(last)
                if last.kind == HighlightKind::SpotSig
                    && h.kind == HighlightKind::SpotSig
                    && text
                        .get(last.end..h.start)
                        .is_some_and(|gap| gap.chars().all(|c| !c.is_alphanumeric())) =>
            {
                last.end = h.end
            }
            _ => out.push(h),
        }
    }
    out
}

/// A word-level diff of `left` → `right` as one text: deleted words (left only) and inserted
/// words (right only) are highlighted. Gives up refining after a time budget, so a huge
/// document cannot freeze the UI.
pub fn word_diff(left: &str, right: &str) -> (String, Vec<Highlight>) {
    let diff = similar::TextDiff::configure()
        .timeout(Duration::from_millis(200))
        .diff_words(left, right);
    let mut out = DiffText::default();
    // A run of changes is shown as all its deleted words, then all its inserted words, so
    // "as" → "while" reads "as while" rather than interleaving word by word. Whitespace the
    // two sides share inside a run belongs to both.
    let (mut deleted, mut inserted) = (String::new(), String::new());
    for change in diff.iter_all_changes() {
        let v = change.value();
        match change.tag() {
            similar::ChangeTag::Delete => deleted.push_str(v),
            similar::ChangeTag::Insert => inserted.push_str(v),
            similar::ChangeTag::Equal
                if v.trim().is_empty() && !(deleted.is_empty() && inserted.is_empty()) =>
            {
                deleted.push_str(v);
                inserted.push_str(v);
            }
            similar::ChangeTag::Equal => {
                out.flush(&mut deleted, &mut inserted);
                out.text.push_str(v);
            }
        }
    }
    out.flush(&mut deleted, &mut inserted);
    (out.text, out.spans)
}

#[derive(Default)]
struct DiffText {
    text: String,
    spans: Vec<Highlight>,
}

impl DiffText {
    fn push(&mut self, s: &str, kind: HighlightKind) {
        // Highlight the words, not the whitespace around them.
        let lead = s.len() - s.trim_start().len();
        let body = s.trim();
        self.text.push_str(&s[..lead]);
        if !body.is_empty() {
            let start = self.text.len();
            self.text.push_str(body);
            self.spans.push(Highlight {
                start,
                end: self.text.len(),
                kind,
            });
        }
        self.text.push_str(&s[lead + body.len()..]);
    }

    fn flush(&mut self, deleted: &mut String, inserted: &mut String) {
        let both = !deleted.trim().is_empty() && !inserted.trim().is_empty();
        if !deleted.is_empty() {
            self.push(deleted, HighlightKind::DiffDelete);
        }
        if both && !self.text.ends_with(char::is_whitespace) {
            self.text.push(' ');
        }
        if !inserted.is_empty() {
            // Whitespace shared by both sides was already written with the deletion.
            let shown = if both || deleted.is_empty() {
                inserted.as_str()
            } else {
                inserted.trim()
            };
            self.push(shown, HighlightKind::DiffInsert);
        }
        deleted.clear();
        inserted.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(text: &str, spans: &[Highlight], kind: HighlightKind) -> Vec<String> {
        spans
            .iter()
            .filter(|h| h.kind == kind)
            .map(|h| text[h.start..h.end].to_string())
            .collect()
    }

    #[test]
    fn shared_runs_are_spot_signatures_and_shared_words_lexicon_terms() {
        let a = "The mayor opened the new bridge on Monday. Rain fell.";
        let b = "On Tuesday the mayor opened the new bridge; crowds and rain.";
        let (la, lb) = SharedWords::default().highlights(a, b);
        assert_eq!(
            marked(a, &la, HighlightKind::SpotSig),
            vec!["The mayor opened the new bridge"]
        );
        assert_eq!(marked(a, &la, HighlightKind::LexiconTerm), vec!["Rain"]);
        assert_eq!(
            marked(b, &lb, HighlightKind::SpotSig),
            vec!["the mayor opened the new bridge"]
        );
        assert!(la.windows(2).all(|w| w[0].end <= w[1].start));
    }

    #[test]
    fn detector_evidence_marks_signature_words_and_shared_terms() {
        let passage = "The harbour bridge was opened by the mayor and the crowds have \
                       cheered the tram lines that will carry the commuters across the river.";
        let a = format!("Daily Courier. {passage} Rain fell on the quay.");
        let b = format!("Metro Post: {passage} Crowds and rain.");
        let (a, b) = (a.as_str(), b.as_str());
        let (la, lb) = DetectorEvidence::default().highlights(a, b);
        let spots = marked(a, &la, HighlightKind::SpotSig);
        assert!(
            spots.contains(&"bridge was opened".to_string()),
            "{spots:?}"
        );
        assert!(marked(a, &la, HighlightKind::LexiconTerm).contains(&"Rain".to_string()));
        assert!(!marked(a, &la, HighlightKind::LexiconTerm).contains(&"quay".to_string()));
        assert!(!lb.is_empty());
        for spans in [&la, &lb] {
            assert!(spans.windows(2).all(|w| w[0].end <= w[1].start));
        }
    }

    #[test]
    fn andd_top_kgrams_are_found_in_the_text() {
        let grams = andd_grams("top k-grams: kernel module, ecam, don't");
        assert_eq!(grams, vec!["kernel module", "ecam", "don't"]);
        assert!(andd_grams("7 of 11 lexicons agree").is_empty());
        let text = "The Kernel  Module uses ECAM; a kernel panics. Don't.";
        let spans = kgram_highlights(text, &grams);
        assert_eq!(
            marked(text, &normalize_spans(text, spans), HighlightKind::AnddGram),
            vec!["Kernel  Module", "ECAM", "Don't"]
        );
    }

    #[test]
    fn word_diff_marks_insertions_and_deletions() {
        let (text, spans) = word_diff("the red car", "the blue car");
        assert_eq!(
            marked(&text, &spans, HighlightKind::DiffDelete),
            vec!["red"]
        );
        assert_eq!(
            marked(&text, &spans, HighlightKind::DiffInsert),
            vec!["blue"]
        );
        assert_eq!(text, "the red blue car");
        let (text, _) = word_diff("a b c", "a b c d");
        assert_eq!(text, "a b c d");
    }
}
