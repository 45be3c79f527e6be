//! Crawled text is hostile: this turns any string from the database into text that is safe
//! to hand to a terminal widget. Escape sequences (CSI, OSC, DCS and friends, 7-bit and C1
//! forms) are removed whole, other control characters and bidi overrides are dropped, tabs
//! become spaces up to the next multiple of 8, and CR / CRLF become LF.

const TAB_STOP: usize = 8;

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Sanitizes multi-line text (keeps newlines): escape sequences go whole through the shared
/// grammar ([`crate::text::strip_escape_sequences`]), then what is left is made safe
/// character by character.
pub fn sanitize(text: &str) -> String {
    let text = crate::text::strip_escape_sequences(text);
    let mut out = String::with_capacity(text.len());
    let mut column = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        push_char(&mut out, &mut column, c, &mut chars);
    }
    out
}

fn push_char(
    out: &mut String,
    column: &mut usize,
    c: char,
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
) {
    match c {
        '\n' => {
            out.push('\n');
            *column = 0;
        }
        '\r' => {
            if chars.peek() != Some(&'\n') {
                out.push('\n');
                *column = 0;
            }
        }
        '\t' => {
            let n = TAB_STOP - *column % TAB_STOP;
            out.extend(std::iter::repeat_n(' ', n));
            *column += n;
        }
        c if c.is_control() || is_bidi_control(c) => {}
        c => {
            out.push(c);
            *column += 1;
        }
    }
}

/// Sanitizes a one-line field (title, URL, tag): newlines become spaces.
pub fn sanitize_line(text: &str) -> String {
    let s = sanitize(text);
    if s.contains('\n') {
        s.replace('\n', " ")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn escape_sequences_are_removed_whole() {
        assert_eq!(sanitize("a\u{1b}[2J\u{1b}[31mRED\u{1b}[0m b"), "aRED b");
        assert_eq!(sanitize("t\u{1b}]0;pwned\u{7}x"), "tx");
        assert_eq!(
            sanitize("t\u{1b}]8;;http://e\u{1b}\\link\u{1b}]8;;\u{1b}\\"),
            "tlink"
        );
        assert_eq!(sanitize("c1\u{9b}1mx"), "c1x");
        assert_eq!(sanitize("bell\u{7}\u{8}\u{0} ok\u{7f}"), "bell ok");
        assert_eq!(sanitize("ab\u{202e}cd\u{2066}"), "abcd");
        assert_eq!(sanitize("esc\u{1b}cx"), "escx");
    }

    #[test]
    fn tabs_expand_and_line_ends_normalize() {
        assert_eq!(sanitize("ab\tc\n\td"), "ab      c\n        d");
        assert_eq!(sanitize("a\r\nb\rc"), "a\nb\nc");
        assert_eq!(sanitize_line("a\nb"), "a b");
    }

    proptest! {
        #[test]
        fn output_never_holds_control_characters(s in "\\PC*|[\\x00-\\x1f\\x7f-\\x9f\\[\\]a-z;0-9]*") {
            let out = sanitize(&s);
            prop_assert!(out.chars().all(|c| c == '\n' || (!c.is_control() && !is_bidi_control(c))));
            prop_assert_eq!(sanitize(&out), out.clone());
        }
    }
}
