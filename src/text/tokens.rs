//! Tokenization with byte spans.
//!
//! A word is a maximal run of alphanumeric characters; an apostrophe (`'` or `’`) between
//! two alphanumerics stays inside the word, so `don't` is one token and can match the
//! stopword list (a tokenizer that splits on `'` never matches such stopwords, a known bug
//! of public SpotSigs ports). Words are lowercased; the curly apostrophe is normalized to
//! `'`. In scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar:
//! see [`super::unspaced_script`]) a run of letters is a sentence, not a word: its tokens
//! are overlapping character bigrams (`新闻报道` → `新闻`, `闻报`, `报道`), the units
//! CJK retrieval indexes by when it has no segmenter (a run of one character is a token of
//! its own). A "character" here is a base letter with the combining marks that follow it
//! (Thai vowel and tone marks, Myanmar and Khmer vowel signs, kana voicing marks: see
//! [`super::unspaced_mark`]), so a Thai syllable is never split between two tokens.

/// One word of a text: its normalized form and where it stands in the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Lowercased word, curly apostrophes normalized to `'`.
    pub norm: String,
    /// Byte offset of the first byte of the word in the text.
    pub start: usize,
    /// Byte offset one past the last byte of the word.
    pub end: usize,
}

/// A combining mark that is no letter by Unicode's `Alphabetic` property but belongs to
/// the word it follows: the virama and nukta of the Indic scripts (the Hindi मंत्री, the
/// Bengali হয়), the combining accents of a text in decomposed form. Without it a word was
/// cut at each of them, and a bundled antecedent written with one could never match
/// (issue 14, session 20). Marks are found by their canonical combining class.
fn continues_word(c: char) -> bool {
    !c.is_ascii() && unicode_normalization::char::canonical_combining_class(c) != 0
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// Splits `text` into words with their byte spans.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::with_capacity(text.len() / 6);
    for_each_token(text, |norm, start, end| {
        out.push(Token {
            norm: norm.to_owned(),
            start,
            end,
        })
    });
    out
}

/// Calls `word(norm, start, end)` for every word of `text` in order, exactly the tokens of
/// [`tokenize`] without allocating one `String` per word: `norm` borrows one buffer that is
/// reused for every word. Hot paths (I-Match and Cooper terms, SpotSigs) take this and
/// allocate only what they keep; per-token `String`s were a third of `detect`'s time
/// (malloc/free in the issue-16 profile).
///
/// ASCII bytes (most of most texts) are classified and lowercased byte by byte without
/// decoding a `char` or consulting the Unicode tables; everything else goes through `char`
/// as before. A proptest checks the result against the plain `char` loop.
pub fn for_each_token(text: &str, mut word: impl FnMut(&str, usize, usize)) {
    let mut norm = String::with_capacity(32);
    append_tokens(text, &mut norm, |norm, mark, start, end| {
        word(&norm[mark..], start, end);
        norm.clear();
    });
}

/// The tokenizer: appends each word's normalized form to `norm` and then calls
/// `word(norm, mark, start, end)`, the form being `norm[mark..]`. [`for_each_token`] clears
/// `norm` after each word (one scratch buffer); [`Words::of`] keeps them all in one buffer
/// without copying each form out of a scratch buffer (a `memmove` call a word: 2–3% of
/// `detect` on dd6k, issue 16 session 15).
fn append_tokens(
    text: &str,
    norm: &mut String,
    mut word: impl FnMut(&mut String, usize, usize, usize),
) {
    let bytes = text.as_bytes();
    let char_at = |i: usize| text[i..].chars().next().unwrap_or('\0');
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let c = if b < 0x80 { b as char } else { char_at(i) };
        if b >= 0x80 && super::unspaced_letter(c) {
            i = unspaced_bigrams(text, i, norm, &mut word);
            continue;
        }
        if !c.is_alphanumeric() {
            i += c.len_utf8();
            continue;
        }
        let start = i;
        i += c.len_utf8();
        let mut end = i;
        let mark = norm.len();
        push_lower(norm, c);
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_alphanumeric() {
                norm.push(b.to_ascii_lowercase() as char);
                i += 1;
                end = i;
                continue;
            }
            let c = if b < 0x80 { b as char } else { char_at(i) };
            if (c.is_alphanumeric() || continues_word(c)) && !super::unspaced_letter(c) {
                push_lower(norm, c);
                i += c.len_utf8();
                end = i;
            } else if is_apostrophe(c) {
                // Keep the apostrophe only when a letter or digit follows it.
                let after = text[i + c.len_utf8()..].chars().next();
                if after.is_some_and(char::is_alphanumeric) {
                    norm.push('\'');
                    i += c.len_utf8();
                } else {
                    break;
                }
            } else {
                break;
            }
        }
        word(norm, mark, start, end);
    }
}

/// The end of the character (a base letter and the combining marks after it) that starts
/// at byte `i` of `text`.
fn cluster_end(text: &str, i: usize) -> usize {
    let mut chars = text[i..].char_indices();
    chars.next();
    for (at, c) in chars {
        if !super::unspaced_mark(c) {
            return i + at;
        }
    }
    text.len()
}

/// Emits the tokens of the run of unspaced-script letters starting at byte `i` (see the
/// module header: overlapping bigrams of characters, or the one character of a run of one)
/// and returns where the run ends. Streams: only the previous character's span is kept.
fn unspaced_bigrams(
    text: &str,
    mut i: usize,
    norm: &mut String,
    word: &mut impl FnMut(&mut String, usize, usize, usize),
) -> usize {
    let first = i;
    let mut prev = None;
    while i < text.len() {
        let c = text[i..].chars().next().unwrap_or('\0');
        if !super::unspaced_letter(c) {
            break;
        }
        let end = cluster_end(text, i);
        if let Some(start) = prev {
            // These scripts have no case: the normalized form is the text itself.
            let mark = norm.len();
            norm.push_str(&text[start..end]);
            word(norm, mark, start, end);
        }
        prev = Some(i);
        i = end;
    }
    if prev == Some(first) {
        let mark = norm.len();
        norm.push_str(&text[first..i]);
        word(norm, mark, first, i);
    }
    i
}

/// The words of a text with their normalized forms in one buffer: [`tokenize`]'s tokens in
/// two allocations instead of one per word, for detectors that look ahead in the word
/// sequence (SpotSigs' chains).
#[derive(Debug, Clone, Default)]
pub struct Words {
    norms: String,
    /// Per word: end of its form in `norms` (it starts where the previous one ends), and
    /// its byte span in the text.
    words: Vec<(usize, usize, usize)>,
}

impl Words {
    pub fn of(text: &str) -> Words {
        let mut words = Words::default();
        words.refill(text);
        words
    }

    /// Makes these the words of `text`, reusing this value's buffers: a pass that
    /// tokenizes many documents one after another keeps one per thread
    /// ([`with_thread_words`]) instead of allocating two fresh buffers per document.
    pub fn refill(&mut self, text: &str) {
        self.norms.clear();
        self.words.clear();
        self.norms.reserve(text.len());
        self.words.reserve(text.len() / 6);
        let words = &mut self.words;
        append_tokens(text, &mut self.norms, |norms, _, start, end| {
            words.push((norms.len(), start, end));
        });
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The normalized form of word `i` (as [`Token::norm`]).
    pub fn norm(&self, i: usize) -> &str {
        let from = if i == 0 { 0 } else { self.words[i - 1].0 };
        &self.norms[from..self.words[i].0]
    }

    /// The byte span of word `i` in the text.
    pub fn span(&self, i: usize) -> (usize, usize) {
        (self.words[i].1, self.words[i].2)
    }
}

thread_local! {
    static THREAD_WORDS: std::cell::RefCell<Words> = std::cell::RefCell::new(Words::default());
}

/// Calls `f` with the words of `text` in this thread's reused buffer ([`Words::refill`]).
/// Re-entered on one thread (a nested parallel call that runs another document here while
/// `f` runs), the inner call gets a buffer of its own.
pub fn with_thread_words<R>(text: &str, f: impl FnOnce(&Words) -> R) -> R {
    THREAD_WORDS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut words) => {
            words.refill(text);
            let result = f(&words);
            // One very long text must not leave its buffers to the thread for good.
            if words.norms.capacity() > KEPT_WORDS_BYTES {
                *words = Words::default();
            }
            result
        }
        Err(_) => f(&Words::of(text)),
    })
}

/// The largest text (in bytes of its normalized words) whose buffers a thread keeps for the
/// next: the word spans take about four times as much again.
const KEPT_WORDS_BYTES: usize = 4 << 20;

fn push_lower(s: &mut String, c: char) {
    if c.is_ascii() {
        s.push(c.to_ascii_lowercase());
    } else {
        s.extend(c.to_lowercase());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(t: &str) -> Vec<String> {
        tokenize(t).into_iter().map(|t| t.norm).collect()
    }

    #[test]
    fn splits_on_punctuation_and_keeps_inner_apostrophes() {
        assert_eq!(
            words("Don't stop—it’s the President's, 'quoted' 2008."),
            [
                "don't",
                "stop",
                "it's",
                "the",
                "president's",
                "quoted",
                "2008"
            ]
        );
    }

    #[test]
    fn spans_point_into_the_original_text() {
        let text = "Ünïcode  Wörds, here";
        for t in tokenize(text) {
            assert_eq!(
                text[t.start..t.end].to_lowercase().replace('’', "'"),
                t.norm
            );
        }
        assert_eq!(tokenize(text)[1].start, "Ünïcode  ".len());
    }

    #[test]
    fn unspaced_scripts_are_split_into_overlapping_bigrams() {
        assert_eq!(words("新闻ABC的 news"), ["新闻", "abc", "的", "news"]);
        assert_eq!(words("新闻报道。东京"), ["新闻", "闻报", "报道", "东京"]);
        let text = "在法国留学";
        let spans: Vec<(usize, usize)> = tokenize(text).iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(spans, [(0, 6), (3, 9), (6, 12), (9, 15)]);
        // Japanese: kana and kanji are one run; the voicing mark stays on its letter.
        assert_eq!(words("東京は"), ["東京", "京は"]);
        assert_eq!(words("か\u{3099}き"), ["か\u{3099}き"]);
    }

    #[test]
    fn thai_marks_stay_on_their_letter() {
        // ที่ (thi: consonant, vowel sign, tone mark) is one character; เป็น is three.
        assert_eq!(words("ที่"), ["ที่"]);
        assert_eq!(words("เป็น ที่ได้"), ["เป็", "ป็น", "ที่ไ", "ได้"]);
        // No token starts or ends inside a syllable, and all spans point into the text.
        let text = "รัฐบาลไทยประกาศว่าจะไม่ขึ้นภาษีในปีนี้";
        for t in tokenize(text) {
            assert_eq!(&text[t.start..t.end], t.norm);
            let first = t.norm.chars().next().unwrap();
            assert!(!crate::text::unspaced_mark(first), "{}", t.norm);
        }
    }

    /// The tokenizer as it was before [`for_each_token`] (one `String` per word): the
    /// reference the visitor must equal.
    fn tokenize_reference(text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        let mut chars = text.char_indices().peekable();
        while let Some((start, c)) = chars.next() {
            if crate::text::unspaced_letter(c) {
                // The run's characters (a letter and the marks after it), then its bigrams.
                let mut clusters = vec![(start, start + c.len_utf8())];
                while let Some(&(i, c)) = chars.peek() {
                    if crate::text::unspaced_mark(c) {
                        clusters.last_mut().unwrap().1 = i + c.len_utf8();
                    } else if crate::text::unspaced_letter(c) {
                        clusters.push((i, i + c.len_utf8()));
                    } else {
                        break;
                    }
                    chars.next();
                }
                let spans: Vec<(usize, usize)> = if clusters.len() == 1 {
                    clusters
                } else {
                    clusters.windows(2).map(|w| (w[0].0, w[1].1)).collect()
                };
                for (start, end) in spans {
                    let norm = text[start..end].to_string();
                    out.push(Token { norm, start, end });
                }
                continue;
            }
            if !c.is_alphanumeric() {
                continue;
            }
            let mut end = start + c.len_utf8();
            let mut norm = String::new();
            push_lower(&mut norm, c);
            while let Some(&(i, c)) = chars.peek() {
                if (c.is_alphanumeric() || continues_word(c)) && !crate::text::unspaced_letter(c) {
                    push_lower(&mut norm, c);
                    end = i + c.len_utf8();
                    chars.next();
                } else if is_apostrophe(c) {
                    let after = text[i + c.len_utf8()..].chars().next();
                    if after.is_some_and(char::is_alphanumeric) {
                        norm.push('\'');
                        chars.next();
                    } else {
                        break;
                    }
                } else {
                    break;
                }
            }
            out.push(Token { norm, start, end });
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn the_visitor_equals_the_reference_tokenizer(
            text in "([a-zA-Z0-9 '’.,İßΣ新闻กัी़्ি\u{301}ี่เ\u{3099}-]|\\PC){0,80}"
        ) {
            let expected = tokenize_reference(&text);
            proptest::prop_assert_eq!(&tokenize(&text), &expected);
            let words = Words::of(&text);
            let seen: Vec<Token> = (0..words.len())
                .map(|i| Token {
                    norm: words.norm(i).to_owned(),
                    start: words.span(i).0,
                    end: words.span(i).1,
                })
                .collect();
            proptest::prop_assert_eq!(seen, expected);
        }
    }

    #[test]
    fn combining_marks_stay_in_their_word() {
        // The virama (्) and nukta (़) are no letters by `Alphabetic`: मंत्री was cut in two.
        assert_eq!(words("मंत्री ने कहा"), ["मंत्री", "ने", "कहा"]);
        assert_eq!(words("সে হয়েছে"), ["সে", "হয়েছে"]);
        // A decomposed accent stays on its word (the word is not cut at it).
        assert_eq!(words("cafe\u{301} noir"), ["cafe\u{301}", "noir"]);
        // A mark after no letter starts no word.
        assert!(words("\u{301}\u{94d}").is_empty());
    }

    proptest::proptest! {
        /// A reused buffer holds exactly the words of the last text it was filled with,
        /// whatever it held before, and so does the thread's buffer, re-entered or not.
        #[test]
        fn a_refilled_buffer_equals_a_fresh_one(
            texts in proptest::collection::vec("([a-zA-Z '’.,ßΣ新闻ี्่]|\\PC){0,60}", 1..6)
        ) {
            let spans = |w: &Words| -> Vec<(String, (usize, usize))> {
                (0..w.len()).map(|i| (w.norm(i).to_owned(), w.span(i))).collect()
            };
            let mut reused = Words::default();
            for text in &texts {
                reused.refill(text);
                let fresh = Words::of(text);
                proptest::prop_assert_eq!(spans(&reused), spans(&fresh));
                let (outer, inner) = with_thread_words(text, |w| {
                    (spans(w), with_thread_words(&texts[0], |v| spans(v)))
                });
                proptest::prop_assert_eq!(outer, spans(&fresh));
                proptest::prop_assert_eq!(inner, spans(&Words::of(&texts[0])));
            }
        }
    }

    #[test]
    fn empty_and_symbol_only_texts_have_no_tokens() {
        assert!(tokenize("").is_empty());
        assert!(tokenize(" -- ... ''' ").is_empty());
    }
}
