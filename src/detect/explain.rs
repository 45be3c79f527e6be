//! The vocabulary of explanations: byte spans of a text with what each shows. Methods
//! explain a pair in these terms (`Detector::explain`); the review draws them.

/// What a highlighted span shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HighlightKind {
    /// Part of a passage both documents contain (a spot signature, a shared shingle).
    SpotSig,
    /// A term both documents contain (an I-Match lexicon term).
    LexiconTerm,
    /// Text only the right-hand document has (diff view).
    DiffInsert,
    /// Text only the left-hand document has (diff view).
    DiffDelete,
    /// A k-gram that weighs most in the pair under the ANDD model.
    AnddGram,
}

/// A byte range of a (sanitized) text to draw in the style of `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Highlight {
    pub start: usize,
    pub end: usize,
    pub kind: HighlightKind,
}

impl Highlight {
    /// The span `(start, end)` as a highlight of `kind`.
    pub fn of(kind: HighlightKind) -> impl Fn(&(usize, usize)) -> Highlight {
        move |&(start, end)| Highlight { start, end, kind }
    }
}
