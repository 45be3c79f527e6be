//! Word wrapping of a document to a column width, as byte ranges into the text (so the
//! highlight spans, also byte ranges, apply unchanged). Done once per width and cached by
//! the caller.

use std::ops::Range;

use unicode_width::UnicodeWidthChar;

/// Splits `text` into display lines no wider than `width` columns: at newlines, at the
/// last space that fits, or inside a word that is longer than a line.
pub fn wrap(text: &str, width: usize) -> Vec<Range<usize>> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for (para_start, para) in split_inclusive_offsets(text) {
        let mut start = 0usize; // within para
        let mut cols = 0usize;
        let mut last_space: Option<usize> = None; // byte index after the space
        let mut i = 0usize;
        let bytes_len = para.len();
        while i < bytes_len {
            let Some(c) = para[i..].chars().next() else {
                break;
            };
            let w = c.width().unwrap_or(0);
            if cols + w > width && c == ' ' {
                // The overflowing character is a space: break here and drop it.
                lines.push(para_start + start..para_start + trim_end(para, start, i));
                i += 1;
                start = i;
                last_space = None;
                cols = 0;
                continue;
            }
            if cols + w > width && i > start {
                let cut = match last_space {
                    Some(s) if s > start => s,
                    _ => i,
                };
                lines.push(para_start + start..para_start + trim_end(para, start, cut));
                start = cut;
                last_space = None;
                cols = para[start..i].chars().map(|c| c.width().unwrap_or(0)).sum();
                continue;
            }
            cols += w;
            i += c.len_utf8();
            if c == ' ' {
                last_space = Some(i);
            }
        }
        lines.push(para_start + start..para_start + bytes_len);
    }
    lines
}

/// Drops trailing spaces at a soft break.
fn trim_end(para: &str, start: usize, end: usize) -> usize {
    start + para[start..end].trim_end_matches(' ').len()
}

/// Paragraphs (without their newline) with their byte offsets; always at least one.
fn split_inclusive_offsets(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == '\n' {
            out.push((start, &text[start..i]));
            start = i + 1;
        }
    }
    out.push((start, &text[start..]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use unicode_width::UnicodeWidthStr;

    fn lines(text: &str, w: usize) -> Vec<&str> {
        wrap(text, w).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn wraps_at_spaces_newlines_and_inside_long_words() {
        assert_eq!(lines("aaa bbb ccc", 7), vec!["aaa bbb", "ccc"]);
        assert_eq!(lines("a\n\nb", 5), vec!["a", "", "b"]);
        assert_eq!(lines("abcdefgh", 3), vec!["abc", "def", "gh"]);
        assert_eq!(
            lines("日本語テキスト", 4),
            vec!["日本", "語テ", "キス", "ト"]
        );
    }

    proptest! {
        #[test]
        fn lines_fit_and_cover_every_word(s in "[a-z \\n日]{0,80}", w in 1usize..20) {
            let ls = wrap(&s, w);
            for r in &ls {
                let line = &s[r.clone()];
                prop_assert!(line.width() <= w.max(2), "{line:?}");
            }
            let joined: String = ls.iter().map(|r| &s[r.clone()]).collect::<Vec<_>>().join("");
            let strip = |x: &str| x.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            prop_assert_eq!(strip(&joined), strip(&s));
        }
    }
}
