//! Words with byte spans, their normalization, and the word lists in `assets/`
//! (stopwords, SpotSigs antecedents). Every detector tokenizes through here, so a span
//! reported by a detector always points into the stored text the review UI shows.

pub mod tokens;
pub mod wordlists;

pub use tokens::{tokenize, Token};
pub use wordlists::WordList;
