//! Terminal escape sequences in crawled text, removed whole with their payload: the one
//! grammar both the stored texts (`extract`) and everything bound for a terminal
//! (`review::sanitize`, listings, errors) use, so the two cannot disagree on what a
//! sequence is.

/// Whether `text` may hold a terminal escape sequence: an ESC, or a C1 introducer (CSI,
/// OSC, DCS, SOS, PM, APC: U+0090, U+0098, U+009B, U+009D..=U+009F, UTF-8 `C2 xx`).
fn may_hold_escapes(bytes: &[u8]) -> bool {
    memchr::memchr2_iter(0x1b, 0xc2, bytes).any(|i| {
        bytes[i] == 0x1b || matches!(bytes.get(i + 1), Some(0x90 | 0x98 | 0x9b | 0x9d..=0x9f))
    })
}

/// Removes terminal escape sequences whole, payload included, as the workbench's sanitizer
/// does for what reaches the terminal: a control sequence (ESC `[` or U+009B, parameters,
/// a final byte), a string (ESC `]` `P` `X` `^` `_` or U+009D, U+0090, U+0098, U+009E,
/// U+009F, up to BEL, ST or the end of the line, CR or LF) and any other two-character ESC sequence.
/// Crawled text is hostile: dropping only the control bytes would leave an OSC title's or
/// clipboard payload (`]0;pwned`) in the stored text, and from there in every listing.
/// Other characters are left to the caller. Borrowed when there is nothing to remove.
pub fn strip_escape_sequences(text: &str) -> std::borrow::Cow<'_, str> {
    EscapeStripper::default().strip(text)
}

/// Where an escape sequence stands at the end of a piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum EscapeState {
    #[default]
    Text,
    Escape,
    Control,
    String,
    StringEscape,
}

/// [`strip_escape_sequences`] over text that arrives in pieces (an ESC from `&#27;` and the
/// `[2J` after it are two pushes of the HTML scanner): a sequence open at the end of one
/// piece goes on in the next.
#[derive(Debug, Clone, Copy, Default)]
pub struct EscapeStripper {
    state: EscapeState,
}

impl EscapeStripper {
    pub fn strip<'a>(&mut self, text: &'a str) -> std::borrow::Cow<'a, str> {
        use EscapeState as In;
        if self.state == In::Text && !may_hold_escapes(text.as_bytes()) {
            return std::borrow::Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut state = self.state;
        for c in text.chars() {
            // A character that ends a malformed sequence is read again as text.
            let mut again = Some(c);
            while let Some(c) = again.take() {
                state = match state {
                    In::Text => match c {
                        '\u{1b}' => In::Escape,
                        '\u{9b}' => In::Control,
                        '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => In::String,
                        c => {
                            out.push(c);
                            In::Text
                        }
                    },
                    In::Escape => match c {
                        '[' => In::Control,
                        ']' | 'P' | 'X' | '^' | '_' => In::String,
                        _ => In::Text,
                    },
                    In::Control if ('@'..='~').contains(&c) => In::Text,
                    In::Control if (' '..='?').contains(&c) => In::Control,
                    In::Control => {
                        again = Some(c);
                        In::Text
                    }
                    In::String => match c {
                        '\u{7}' | '\u{9c}' => In::Text,
                        '\u{1b}' => In::StringEscape,
                        // A line end ends it too (kept), whichever form it has: a
                        // source `\r` becomes a line break only later, and an
                        // unterminated string must not swallow the rest of a page.
                        '\n' | '\r' => {
                            out.push(c);
                            In::Text
                        }
                        _ => In::String,
                    },
                    In::StringEscape => {
                        if c != '\\' {
                            again = Some(c);
                        }
                        In::Text
                    }
                };
            }
        }
        self.state = state;
        std::borrow::Cow::Owned(out)
    }
}
