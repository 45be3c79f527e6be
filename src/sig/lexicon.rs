//! I-Match term preprocessing and lexicons: which words count as terms, collection document
//! frequencies, the primary lexicon L (normalized idf inside a window), the secondary
//! lexicon B (terms rarer than the window, most frequent first), and a plain-text form so
//! one collection's lexicon can be reused on another.
//!
//! Pure: the text form is produced and parsed as strings; writing the file is the shell's
//! job (`spotcheck lexicon build`).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::text::{for_each_token, Token};

/// Which tokens are I-Match terms. Defaults are the papers' preprocessing (Chowdhury et al.
/// 2002; Kolcz & Chowdhury 2008): lowercase (the tokenizer already does), drop words shorter
/// than four characters and words with more than one digit. A token of a script written
/// without spaces (a character bigram: `text::tokenize`) is a term whatever its length:
/// the papers' length rule drops English function words, and a bigram is the unit such
/// text is indexed by (without it Chinese and Thai pages had no I-Match or Cooper terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermOptions {
    /// Words with fewer characters (not bytes) than this are dropped.
    pub min_chars: usize,
    /// Words with more digits than this are dropped (`1` keeps "mp3", drops "2008").
    pub max_digits: usize,
}

impl Default for TermOptions {
    fn default() -> Self {
        TermOptions {
            min_chars: 4,
            max_digits: 1,
        }
    }
}

impl TermOptions {
    /// Whether a normalized token is a term.
    pub fn keeps(&self, norm: &str) -> bool {
        if norm.is_ascii() {
            // Most terms: a character a byte, digits by byte (no Unicode table).
            let digits = norm.bytes().filter(u8::is_ascii_digit).count();
            return digits <= self.max_digits && norm.len() >= self.min_chars;
        }
        let mut chars = 0usize;
        let mut digits = 0usize;
        for c in norm.chars() {
            chars += 1;
            if c.is_numeric() {
                digits += 1;
            }
        }
        digits <= self.max_digits
            && (chars >= self.min_chars
                || norm
                    .chars()
                    .next()
                    .is_some_and(crate::text::unspaced_letter))
    }
}

/// The tokens of `text` that are terms, in text order, with their spans.
pub fn term_tokens(text: &str, opts: &TermOptions) -> Vec<Token> {
    let mut out = Vec::new();
    for_each_token(text, |norm, start, end| {
        if opts.keeps(norm) {
            out.push(Token {
                norm: norm.to_owned(),
                start,
                end,
            });
        }
    });
    out
}

/// The unique terms U of a document, sorted. Allocates once per distinct term, not per
/// token: the words are seen through [`for_each_token`] and deduplicated in a hash set
/// first (a document repeats its terms several times over).
pub fn unique_terms(text: &str, opts: &TermOptions) -> BTreeSet<String> {
    let mut seen: FxHashSet<String> = FxHashSet::default();
    for_each_token(text, |norm, _, _| {
        if !seen.contains(norm) && opts.keeps(norm) {
            seen.insert(norm.to_owned());
        }
    });
    let mut terms: Vec<String> = seen.into_iter().collect();
    terms.sort_unstable();
    terms.into_iter().collect()
}

/// Document frequencies of a collection: in how many documents each term occurs.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DocFreqs {
    /// Number of documents added.
    pub n_docs: u64,
    /// Term → number of documents containing it.
    pub df: FxHashMap<String, u32>,
}

impl DocFreqs {
    /// Counts one document given its unique terms.
    pub fn add_document<'a>(&mut self, unique: impl IntoIterator<Item = &'a String>) {
        self.n_docs += 1;
        for t in unique {
            *self.df.entry(t.clone()).or_insert(0) += 1;
        }
    }

    /// Document frequencies of a whole collection of unique-term sets.
    pub fn from_documents<'a>(docs: impl IntoIterator<Item = &'a BTreeSet<String>>) -> Self {
        let mut out = DocFreqs::default();
        for d in docs {
            out.add_document(d);
        }
        out
    }

    /// Adds the counts of another part of the collection (a shard's): the frequencies of
    /// the union of two disjoint document sets are the sums.
    pub fn merge(&mut self, other: DocFreqs) {
        self.n_docs += other.n_docs;
        for (t, n) in other.df {
            *self.df.entry(t).or_insert(0) += n;
        }
    }

    /// Document frequency of `term` (0 when unseen).
    pub fn get(&self, term: &str) -> u32 {
        self.df.get(term).copied().unwrap_or(0)
    }
}

/// `log(N/df)/log(N)`: 0 for a term in every document, 1 for a term in one document.
/// `None` when it is undefined (fewer than two documents, or df outside 1..=N).
pub fn normalized_idf(n_docs: u64, df: u32) -> Option<f64> {
    if n_docs < 2 || df == 0 || u64::from(df) > n_docs {
        return None;
    }
    let n = n_docs as f64;
    Some((n / f64::from(df)).ln() / n.ln())
}

/// Parameters of a lexicon build; stored in the lexicon file header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LexiconParams {
    /// Lowest normalized idf kept in L (more common terms are dropped entirely).
    pub idf_min: f64,
    /// Highest normalized idf kept in L (rarer terms go to the secondary lexicon B).
    pub idf_max: f64,
    /// Preprocessing the lexicon was built with; apply the same to target documents.
    pub terms: TermOptions,
}

impl LexiconParams {
    /// A one-line description to store with a run, e.g.
    /// `lexicon v1 idf=[0.2,0.8] min_chars=4 max_digits=1`.
    pub fn describe(&self) -> String {
        format!(
            "lexicon v1 idf=[{},{}] min_chars={} max_digits={}",
            self.idf_min, self.idf_max, self.terms.min_chars, self.terms.max_digits
        )
    }
}

impl Default for LexiconParams {
    /// The papers' web window [0.2, 0.8].
    fn default() -> Self {
        LexiconParams {
            idf_min: 0.2,
            idf_max: 0.8,
            terms: TermOptions::default(),
        }
    }
}

/// Where a term stands in a lexicon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermClass {
    /// Index into [`Lexicon::primary`] (sorted by term).
    Primary(usize),
    /// Rank in [`Lexicon::secondary`] (0 = most frequent).
    Secondary(usize),
}

/// A term with its document frequency in the collection the lexicon was built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexiconTerm {
    pub term: String,
    pub df: u32,
}

/// An I-Match lexicon: the primary lexicon L and the secondary lexicon B.
#[derive(Debug, Clone, PartialEq)]
pub struct Lexicon {
    /// Parameters it was built with.
    pub params: LexiconParams,
    /// Size of the collection it was built from.
    pub n_docs: u64,
    primary: Vec<LexiconTerm>,
    secondary: Vec<LexiconTerm>,
    index: FxHashMap<String, TermClass>,
}

impl Lexicon {
    /// L = terms with normalized idf in `[idf_min, idf_max]`; B = terms with idf above
    /// `idf_max`, ordered by df descending then term. Terms below `idf_min` are dropped.
    pub fn build(dfs: &DocFreqs, params: LexiconParams) -> Self {
        let mut primary = Vec::new();
        let mut secondary = Vec::new();
        for (term, &df) in &dfs.df {
            let Some(idf) = normalized_idf(dfs.n_docs, df) else {
                continue;
            };
            let entry = LexiconTerm {
                term: term.clone(),
                df,
            };
            if idf > params.idf_max {
                secondary.push(entry);
            } else if idf >= params.idf_min {
                primary.push(entry);
            }
        }
        Self::from_parts(params, dfs.n_docs, primary, secondary)
    }

    fn from_parts(
        params: LexiconParams,
        n_docs: u64,
        mut primary: Vec<LexiconTerm>,
        mut secondary: Vec<LexiconTerm>,
    ) -> Self {
        // Sorted on every core (stable, as `sort_by`; the terms are distinct anyway).
        use rayon::slice::ParallelSliceMut;
        primary.par_sort_by(|a, b| a.term.cmp(&b.term));
        secondary.par_sort_by(|a, b| b.df.cmp(&a.df).then_with(|| a.term.cmp(&b.term)));
        let mut index = FxHashMap::with_capacity_and_hasher(
            primary.len() + secondary.len(),
            Default::default(),
        );
        for (i, t) in primary.iter().enumerate() {
            index.insert(t.term.clone(), TermClass::Primary(i));
        }
        for (r, t) in secondary.iter().enumerate() {
            index.insert(t.term.clone(), TermClass::Secondary(r));
        }
        Lexicon {
            params,
            n_docs,
            primary,
            secondary,
            index,
        }
    }

    /// L, sorted by term.
    pub fn primary(&self) -> &[LexiconTerm] {
        &self.primary
    }

    /// B, most frequent first.
    pub fn secondary(&self) -> &[LexiconTerm] {
        &self.secondary
    }

    /// Where `term` stands, if it is in L or B.
    pub fn class_of(&self, term: &str) -> Option<TermClass> {
        self.index.get(term).copied()
    }

    /// Whether `term` is in L.
    pub fn in_primary(&self, term: &str) -> bool {
        matches!(self.class_of(term), Some(TermClass::Primary(_)))
    }

    /// The plain-text form: `#` header lines (format, N, parameters), then one term per
    /// line as `L<TAB>term<TAB>df` (L sorted by term) or `B<TAB>term<TAB>df` (B in rank
    /// order). Terms never contain tabs or newlines (the tokenizer emits alphanumerics and
    /// apostrophes only).
    pub fn to_text(&self) -> String {
        let p = &self.params;
        let mut out = String::new();
        // Writing to a String cannot fail; the results are ignored for that reason.
        let _ = writeln!(out, "# spotcheck i-match lexicon v1");
        let _ = writeln!(
            out,
            "# n_docs={} idf_min={} idf_max={} min_chars={} max_digits={}",
            self.n_docs, p.idf_min, p.idf_max, p.terms.min_chars, p.terms.max_digits
        );
        let _ = writeln!(
            out,
            "# primary={} secondary={}",
            self.primary.len(),
            self.secondary.len()
        );
        for t in &self.primary {
            let _ = writeln!(out, "L\t{}\t{}", t.term, t.df);
        }
        for t in &self.secondary {
            let _ = writeln!(out, "B\t{}\t{}", t.term, t.df);
        }
        out
    }

    /// Parses [`Lexicon::to_text`] output. The loaded lexicon keeps its own L and B; apply
    /// it to a target collection by preprocessing the target's documents with
    /// `lexicon.params.terms` and signing them against it (terms of the target that the
    /// lexicon never saw are simply in neither L nor B).
    pub fn from_text(text: &str) -> Result<Self, LexiconParseError> {
        let mut header: Option<(u64, LexiconParams)> = None;
        let mut primary = Vec::new();
        let mut secondary = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            if let Some(rest) = line.strip_prefix('#') {
                if rest.contains("n_docs=") {
                    header = Some(parse_header(rest).map_err(|what| LexiconParseError {
                        line: line_no,
                        what,
                    })?);
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let bad = |what: &str| LexiconParseError {
                line: line_no,
                what: what.to_string(),
            };
            let mut fields = line.split('\t');
            let (Some(kind), Some(term), Some(df), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(bad("expected KIND<TAB>term<TAB>df"));
            };
            let df: u32 = df.parse().map_err(|_| bad("df is not a number"))?;
            if term.is_empty() {
                return Err(bad("empty term"));
            }
            let entry = LexiconTerm {
                term: term.to_string(),
                df,
            };
            match kind {
                "L" => primary.push(entry),
                "B" => secondary.push(entry),
                _ => return Err(bad("kind must be L or B")),
            }
        }
        let mut seen = FxHashSet::default();
        for t in primary.iter().chain(&secondary) {
            if !seen.insert(t.term.as_str()) {
                return Err(LexiconParseError {
                    line: 0,
                    what: format!("term {:?} listed twice", t.term),
                });
            }
        }
        let Some((n_docs, params)) = header else {
            return Err(LexiconParseError {
                line: 0,
                what: "missing '# n_docs=…' header".to_string(),
            });
        };
        Ok(Self::from_parts(params, n_docs, primary, secondary))
    }
}

fn parse_header(rest: &str) -> Result<(u64, LexiconParams), String> {
    let mut n_docs = None;
    let mut params = LexiconParams::default();
    for kv in rest.split_whitespace() {
        let Some((k, v)) = kv.split_once('=') else {
            continue;
        };
        let num_err = || format!("bad value for {k}: {v}");
        match k {
            "n_docs" => n_docs = Some(v.parse().map_err(|_| num_err())?),
            "idf_min" => params.idf_min = v.parse().map_err(|_| num_err())?,
            "idf_max" => params.idf_max = v.parse().map_err(|_| num_err())?,
            "min_chars" => params.terms.min_chars = v.parse().map_err(|_| num_err())?,
            "max_digits" => params.terms.max_digits = v.parse().map_err(|_| num_err())?,
            _ => {}
        }
    }
    let n_docs = n_docs.ok_or_else(|| "header without n_docs".to_string())?;
    Ok((n_docs, params))
}

/// A lexicon file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("lexicon line {line}: {what}")]
pub struct LexiconParseError {
    /// 1-based line number (0 for a whole-file problem).
    pub line: usize,
    pub what: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The ASCII fast path of `keeps` answers as the `char` loop does.
        #[test]
        fn keeps_on_ascii_is_the_char_rule(
            norm in "[a-z0-9']{0,10}|\\PC{0,6}",
            min_chars in 0usize..5,
            max_digits in 0usize..5,
        ) {
            let opts = TermOptions { min_chars, max_digits };
            let chars = norm.chars().count();
            let digits = norm.chars().filter(|c| c.is_numeric()).count();
            let expected = digits <= max_digits
                && (chars >= min_chars
                    || norm.chars().next().is_some_and(crate::text::unspaced_letter));
            proptest::prop_assert_eq!(opts.keeps(&norm), expected);
        }
    }

    fn set(words: &[&str]) -> BTreeSet<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn preprocessing_drops_short_words_and_multi_digit_words() {
        let u = unique_terms(
            "The cat sat on Mars in 2008 with mp3 and MP3s, abc1 a1b2 Ärger",
            &Default::default(),
        );
        assert_eq!(u, set(&["abc1", "mars", "mp3s", "with", "ärger"]));
    }

    #[test]
    fn bigrams_of_unspaced_scripts_are_terms() {
        let u = unique_terms("新闻报道 in ไทย", &Default::default());
        assert_eq!(u, set(&["ทย", "ไท", "报道", "新闻", "闻报"]));
    }

    #[test]
    fn preprocessing_is_configurable() {
        let opts = TermOptions {
            min_chars: 3,
            max_digits: 4,
        };
        let u = unique_terms("The cat 2008 on", &opts);
        assert_eq!(u, set(&["2008", "cat", "the"]));
    }

    #[test]
    fn normalized_idf_edges() {
        assert_eq!(normalized_idf(100, 100), Some(0.0));
        assert_eq!(normalized_idf(100, 1), Some(1.0));
        assert!((normalized_idf(100, 10).unwrap_or(0.0) - 0.5).abs() < 1e-12);
        assert_eq!(normalized_idf(1, 1), None);
        assert_eq!(normalized_idf(100, 0), None);
        assert_eq!(normalized_idf(100, 101), None);
    }

    /// N = 100: df 63 → idf≈0.100 (dropped), df 40 → 0.199 (dropped), df 39 → 0.204 (L),
    /// df 3 → 0.761 (L), df 2 → 0.849 (B), df 1 → 1.0 (B).
    fn sample_dfs() -> DocFreqs {
        let mut df = FxHashMap::default();
        for (t, d) in [
            ("common", 63),
            ("edgelow", 40),
            ("inlow", 39),
            ("inhigh", 3),
            ("rare", 2),
            ("rarer", 2),
            ("unique", 1),
        ] {
            df.insert(t.to_string(), d);
        }
        DocFreqs { n_docs: 100, df }
    }

    #[test]
    fn idf_window_splits_primary_and_secondary() {
        let lex = Lexicon::build(&sample_dfs(), LexiconParams::default());
        let l: Vec<&str> = lex.primary().iter().map(|t| t.term.as_str()).collect();
        let b: Vec<&str> = lex.secondary().iter().map(|t| t.term.as_str()).collect();
        assert_eq!(l, ["inhigh", "inlow"]);
        // Most frequent first, ties by term.
        assert_eq!(b, ["rare", "rarer", "unique"]);
        assert_eq!(lex.class_of("common"), None);
        assert_eq!(lex.class_of("edgelow"), None);
        assert_eq!(lex.class_of("rarer"), Some(TermClass::Secondary(1)));
        assert!(lex.in_primary("inlow"));
    }

    #[test]
    fn text_form_round_trips() {
        let lex = Lexicon::build(&sample_dfs(), LexiconParams::default());
        let text = lex.to_text();
        assert!(text.starts_with("# spotcheck i-match lexicon v1\n# n_docs=100 "));
        let back = Lexicon::from_text(&text);
        assert_eq!(back.as_ref(), Ok(&lex));
    }

    #[test]
    fn text_form_rejects_garbage() {
        assert!(Lexicon::from_text("L\tword\t3\n").is_err(), "no header");
        let e = Lexicon::from_text("# n_docs=5\nL\tword\tx\n");
        assert_eq!(e.map_err(|e| e.line), Err(2));
        assert!(Lexicon::from_text("# n_docs=5\nQ\tword\t1\n").is_err());
        assert!(Lexicon::from_text("# n_docs=5\nL\tword\t1\nB\tword\t1\n").is_err());
    }

    #[test]
    fn doc_freqs_count_documents_not_occurrences() {
        let docs = [set(&["alpha", "beta"]), set(&["alpha"])];
        let dfs = DocFreqs::from_documents(&docs);
        assert_eq!(dfs.n_docs, 2);
        assert_eq!(dfs.get("alpha"), 2);
        assert_eq!(dfs.get("beta"), 1);
        assert_eq!(dfs.get("gamma"), 0);
    }
}
