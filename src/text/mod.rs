//! Words with byte spans, their normalization, and the word lists in `assets/`
//! (stopwords, SpotSigs antecedents). Every detector tokenizes through here, so a span
//! reported by a detector always points into the stored text the review UI shows.

pub mod escapes;
pub mod lang;
pub mod tokens;
pub mod wordlists;

pub use escapes::{strip_escape_sequences, EscapeStripper};
pub use tokens::{for_each_token, tokenize, Token, Words};
pub use wordlists::WordList;

/// Whether `c` belongs to a script written without spaces between words (Chinese,
/// Japanese kana and ideographs, Thai, Lao, Khmer, Myanmar). Such text has no word
/// boundaries to split on: each of its characters is a token of its own (see
/// [`tokenize`]), and the content text measures its blocks by characters.
pub fn unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF // Thai, Lao
        | 0x1000..=0x109F // Myanmar
        | 0x1780..=0x17FF // Khmer
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF // CJK ideographs
    )
}
