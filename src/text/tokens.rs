//! Tokenization with byte spans.
//!
//! A word is a maximal run of alphanumeric characters; an apostrophe (`'` or `’`) between
//! two alphanumerics stays inside the word, so `don't` is one token and can match the
//! stopword list (a tokenizer that splits on `'` never matches such stopwords, a known bug
//! of public SpotSigs ports). Words are lowercased; the curly apostrophe is normalized to
//! `'`. In scripts written without spaces (Chinese, Japanese, Thai: see
//! [`super::unspaced_script`]) every character is a token: a run of them is a sentence,
//! not a word, and a detector needs units it can compare.

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

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// Splits `text` into words with their byte spans.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::with_capacity(text.len() / 6);
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !c.is_alphanumeric() {
            continue;
        }
        let mut end = start + c.len_utf8();
        let mut norm = String::new();
        push_lower(&mut norm, c);
        if super::unspaced_script(c) {
            out.push(Token { norm, start, end });
            continue;
        }
        while let Some(&(i, c)) = chars.peek() {
            if c.is_alphanumeric() && !super::unspaced_script(c) {
                push_lower(&mut norm, c);
                end = i + c.len_utf8();
                chars.next();
            } else if is_apostrophe(c) {
                // Keep the apostrophe only when a letter or digit follows it.
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
    fn unspaced_scripts_are_split_into_characters() {
        assert_eq!(words("新闻ABC的 news"), ["新", "闻", "abc", "的", "news"]);
        let text = "在法国留学";
        let spans: Vec<(usize, usize)> = tokenize(text).iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(spans, [(0, 3), (3, 6), (6, 9), (9, 12), (12, 15)]);
    }

    #[test]
    fn empty_and_symbol_only_texts_have_no_tokens() {
        assert!(tokenize("").is_empty());
        assert!(tokenize(" -- ... ''' ").is_empty());
    }
}
