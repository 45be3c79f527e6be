//! Words with byte spans, their normalization, and the word lists in `assets/`
//! (stopwords, SpotSigs antecedents). Every detector tokenizes through here, so a span
//! reported by a detector always points into the stored text the review UI shows.

pub mod escapes;
pub mod fast_lang;
pub mod lang;
pub mod tokens;
mod whatlang_latin;
pub mod wordlists;

pub use escapes::{strip_escape_sequences, EscapeStripper};
pub use tokens::{for_each_token, tokenize, with_thread_words, Token, Words};
pub use wordlists::WordList;

/// `text` in Unicode normalization form C: one spelling for every accented letter, whichever
/// the page used (a Vietnamese or Bengali site may write `ế` or `য়` as one character or as
/// a letter and combining marks, and Arabic marks may come in either order; a copy that
/// spells them the other way must still have the same words, and the bundled antecedents
/// are written in this form). Extraction's texts (visible, main, title, plain-text and
/// JSONL records) are finished through here (issue 14, session 20). Nearly every text is composed already: no character from U+0300 on (each byte
/// below 0xCC, one pass over the bytes), or Unicode's quick check says yes; only the rest
/// is rebuilt.
pub fn nfc(text: String) -> String {
    use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
    if text.bytes().all(|b| b < 0xCC) || is_nfc_quick(text.chars()) == IsNormalized::Yes {
        return text;
    }
    text.nfc().collect()
}

/// Whether `c` belongs to a script written without spaces between words (Chinese,
/// Japanese kana and ideographs, Thai, Lao, Khmer, Myanmar). Such text has no word
/// boundaries to split on: its tokens are character bigrams (see [`tokenize`]), and the
/// content text measures its blocks by characters.
pub fn unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF // Thai, Lao
        | 0x1000..=0x109F // Myanmar
        | 0x1780..=0x17FF // Khmer
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF // CJK ideographs
    )
}

/// Whether `c` is a combining mark of an unspaced script: Thai and Lao vowel signs above
/// and below and tone marks, Myanmar and Khmer dependent vowels and signs, the kana voicing
/// marks. Such a mark belongs to the letter before it (most are not alphanumeric in
/// Unicode, so a word tokenizer would cut the syllable there: issue 14's Thai recall of
/// 0). Ranges from the Unicode code charts of each block (general category Mn/Mc).
pub fn unspaced_mark(c: char) -> bool {
    matches!(c as u32,
        0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E // Thai
        | 0x0EB1 | 0x0EB4..=0x0EBC | 0x0EC8..=0x0ECE // Lao
        | 0x102B..=0x103E | 0x1056..=0x1059 | 0x105E..=0x1060 | 0x1062..=0x1064
        | 0x1067..=0x106D | 0x1071..=0x1074 | 0x1082..=0x108D | 0x108F
        | 0x109A..=0x109D // Myanmar
        | 0x17B4..=0x17D3 | 0x17DD // Khmer
        | 0x3099..=0x309C // kana voicing marks
    )
}

/// Whether `c` is part of a run of unspaced-script text: a letter, digit or combining mark
/// of one of those scripts, not their punctuation (the Thai currency sign, the katakana
/// middle dot).
pub fn unspaced_letter(c: char) -> bool {
    unspaced_script(c) && (c.is_alphanumeric() || unspaced_mark(c))
}

/// The first character (base letter and its marks) of an unspaced-script token when the
/// token is longer than that character (a bigram), else `None`. SpotSigs takes a bigram
/// whose first character is an antecedent (的, の, ที่) as an antecedent.
pub fn unspaced_head(token: &str) -> Option<&str> {
    let b = *token.as_bytes().first()?;
    // Every unspaced script lies in U+0E00..U+FFFF: three UTF-8 bytes, lead byte 0xE0..0xEF.
    if !(0xE0..0xF0).contains(&b) {
        return None;
    }
    let mut chars = token.char_indices();
    let (_, first) = chars.next()?;
    if !unspaced_letter(first) {
        return None;
    }
    let end = chars.find(|&(_, c)| !unspaced_mark(c)).map(|(at, _)| at)?;
    Some(&token[..end])
}
