//! A review session without a terminal: the queue, decisions, undo/redo, the spans to
//! highlight, the work done off the UI thread (preparing documents in `background`, writing
//! the labels of decisions in `writer`), and a scripted coder (`oracle`) that decides
//! from a gold clustering through the same calls. The terminal UI in `tui` draws what this
//! module decides.

pub mod actions;
pub mod background;
pub mod charts;
pub mod coverage;
pub mod evidence;
pub mod group;
pub mod oracle;
pub mod replay;
pub mod sanitize;
pub mod session;
pub mod undo;
pub mod wrap;
pub mod writer;

pub use actions::{action, Action, ACTIONS};
pub use evidence::{
    andd_grams, kgram_highlights, normalize_spans, word_diff, DetectorEvidence, EvidenceProvider,
    Highlight, HighlightKind, SharedWords,
};
pub use sanitize::{sanitize, sanitize_line};
pub use session::{
    evidence_summary, verdict_text, AdjudicationView, ClusterView, DocPane, Input, InputKind, Mode,
    PairView, PendingDecision, Session, Viewport, PROMPT_ABOVE_PAIRS, SYNC_WRAP_BYTES,
};
pub use undo::UndoStack;
