//! The shape of every text this module stores: lines without leading or trailing spaces,
//! one space between words, at most one blank line in a row, and no control or invisible
//! formatting characters (crawled text is hostile; the review terminal must never receive an
//! escape sequence or a bidi override).
//!
//! [`LineBuilder`] accumulates text and break requests and emits this shape directly, so no
//! second normalization pass is needed.

/// What is due before the next visible character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Pending {
    Nothing,
    Space,
    LineBreak,
    ParagraphBreak,
}

/// Builds normalized text from runs of characters and break requests.
#[derive(Debug)]
pub struct LineBuilder {
    out: String,
    pending: Pending,
    /// Collapse runs of white space; when false (inside `<pre>`) a `\n` is a line break.
    newline_is_space: bool,
    /// Stop accepting text beyond this many bytes (the truncation is reported by `truncated`).
    limit: usize,
    truncated: bool,
}

impl LineBuilder {
    pub fn new(limit: usize) -> Self {
        LineBuilder {
            out: String::new(),
            pending: Pending::Nothing,
            newline_is_space: true,
            limit,
            truncated: false,
        }
    }

    pub fn with_capacity(capacity: usize, limit: usize) -> Self {
        let mut b = LineBuilder::new(limit);
        b.out.reserve(capacity.min(limit));
        b
    }

    /// Inside `<pre>`, newlines in the source end lines.
    pub fn set_preformatted(&mut self, pre: bool) {
        self.newline_is_space = !pre;
    }

    /// Ends the current line (if it has text).
    pub fn line_break(&mut self) {
        self.pending = self.pending.max(Pending::LineBreak);
    }

    /// Ends the current line and leaves one blank line (if text follows).
    pub fn paragraph_break(&mut self) {
        self.pending = self.pending.max(Pending::ParagraphBreak);
    }

    /// Separates words (e.g. between table cells) without ending the line.
    pub fn space(&mut self) {
        self.pending = self.pending.max(Pending::Space);
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Appends text: white space collapses, control characters vanish.
    pub fn push_str(&mut self, text: &str) {
        self.push_runs::<false>(text);
    }

    /// Appends text straight from an HTML source, where a carriage return (alone or before
    /// a line feed) is a line break, as the HTML tokenizer's newline normalization makes it.
    /// A `\r` that [`Self::push_str`] receives came from a character reference (`&#13;`)
    /// and is plain white space.
    pub fn push_source_str(&mut self, text: &str) {
        self.push_runs::<true>(text);
    }

    /// The work of [`Self::push_str`]: runs of printable characters are copied at once, the
    /// others go through [`Self::push_char`]; the result is the same as pushing every
    /// character on its own.
    fn push_runs<const CR_IS_NEWLINE: bool>(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            let mut special = None;
            while i < bytes.len() {
                let b = bytes[i];
                if (0x21..0x7f).contains(&b) {
                    i += 1;
                } else if b < 0x80 {
                    special = Some(b as char);
                    break;
                } else {
                    // `i` is on a character boundary: runs stop only before ASCII bytes or
                    // after whole characters.
                    let Some(c) = text[i..].chars().next() else {
                        break;
                    };
                    if c.is_whitespace() || is_invisible(c) {
                        special = Some(c);
                        break;
                    }
                    i += c.len_utf8();
                }
            }
            if i > start {
                self.push_printable(&text[start..i]);
            }
            if let Some(c) = special {
                let c = if CR_IS_NEWLINE && c == '\r' { '\n' } else { c };
                self.push_char(c);
                i += c.len_utf8();
            }
        }
    }

    /// Appends characters that are neither white space nor invisible.
    fn push_printable(&mut self, run: &str) {
        if self.truncated {
            return;
        }
        let separator = if self.out.is_empty() {
            0
        } else {
            match self.pending {
                Pending::Nothing => 0,
                Pending::Space | Pending::LineBreak => 1,
                Pending::ParagraphBreak => 2,
            }
        };
        // Room for all of it, by the same test `push_char` makes for each character.
        if self.out.len() + separator + run.len() + 2 > self.limit {
            for c in run.chars() {
                self.push_char(c);
            }
            return;
        }
        if separator > 0 {
            match self.pending {
                Pending::Nothing => {}
                Pending::Space => self.out.push(' '),
                Pending::LineBreak => self.out.push('\n'),
                Pending::ParagraphBreak => self.out.push_str("\n\n"),
            }
        }
        self.pending = Pending::Nothing;
        self.out.push_str(run);
    }

    #[inline]
    pub fn push_char(&mut self, c: char) {
        if c == '\n' && !self.newline_is_space {
            self.line_break();
            return;
        }
        if c.is_whitespace() {
            self.space();
            return;
        }
        if is_invisible(c) {
            return;
        }
        if self.truncated {
            return;
        }
        if self.out.len() + c.len_utf8() + 2 > self.limit {
            self.truncated = true;
            return;
        }
        if !self.out.is_empty() {
            match self.pending {
                Pending::Nothing => {}
                Pending::Space => self.out.push(' '),
                Pending::LineBreak => self.out.push('\n'),
                Pending::ParagraphBreak => self.out.push_str("\n\n"),
            }
        }
        self.pending = Pending::Nothing;
        self.out.push(c);
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// Control characters (C0, DEL, C1) and invisible formatting characters that can reorder
/// or hide text on a terminal (bidi embeddings, overrides and isolates, zero-width space,
/// soft hyphen, word joiner, stray byte-order marks). Zero-width (non-)joiners stay: some
/// scripts need them to spell words.
#[inline]
pub fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{200B}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// Normalizes text that already has meaningful line breaks (plain text, extractor output):
/// `\r\n` and `\r` end lines, runs of blank lines become one blank line, spaces collapse.
pub fn normalize_lines(text: &str, limit: usize) -> (String, bool) {
    let mut b = LineBuilder::with_capacity(text.len(), limit);
    let mut blank_before = false;
    let lines = text
        .split('\n')
        .flat_map(|line| line.strip_suffix('\r').unwrap_or(line).split('\r'));
    for line in lines {
        if line.chars().all(|c| c.is_whitespace() || is_invisible(c)) {
            blank_before = true;
            continue;
        }
        if blank_before {
            b.paragraph_break();
        } else {
            b.line_break();
        }
        blank_before = false;
        b.push_str(line);
    }
    let truncated = b.truncated();
    (b.finish(), truncated)
}

/// Removes control characters (keeping `\n`), turns tabs into spaces and normalizes line
/// endings, without touching other spacing: the light touch plain-text payloads get, so
/// indentation and ASCII tables survive.
pub fn clean_plain_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            '\n' => out.push('\n'),
            '\t' => out.push(' '),
            c if is_invisible(c) => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(f: impl FnOnce(&mut LineBuilder)) -> String {
        let mut b = LineBuilder::new(usize::MAX);
        f(&mut b);
        b.finish()
    }

    #[test]
    fn whitespace_collapses_and_lines_are_trimmed() {
        let s = build(|b| {
            b.push_str("  hello \t\n  world  ");
            b.line_break();
            b.push_str("   next   line ");
        });
        assert_eq!(s, "hello world\nnext line");
    }

    #[test]
    fn breaks_do_not_pile_up() {
        let s = build(|b| {
            b.paragraph_break();
            b.push_str("a");
            b.line_break();
            b.paragraph_break();
            b.line_break();
            b.push_str("b");
            b.line_break();
            b.line_break();
            b.push_str("c");
            b.paragraph_break();
        });
        assert_eq!(s, "a\n\nb\nc");
    }

    #[test]
    fn control_characters_and_escapes_vanish() {
        let s = build(|b| b.push_str("\u{1b}[31mred\u{1b}[0m \u{7}bell\u{0} \u{9b}2J \u{202e}x"));
        assert_eq!(s, "[31mred[0m bell 2J x");
        assert!(!s.chars().any(|c| c.is_control()));
    }

    #[test]
    fn preformatted_newlines_end_lines() {
        let s = build(|b| {
            b.set_preformatted(true);
            b.push_str("fn main() {\n    x\n}");
        });
        assert_eq!(s, "fn main() {\nx\n}");
    }

    #[test]
    fn limit_truncates_on_char_boundary() {
        let mut b = LineBuilder::new(10);
        b.push_str("ééééééééé");
        assert!(b.truncated());
        let s = b.finish();
        assert!(s.len() <= 10);
        assert!(s.chars().all(|c| c == 'é'));
    }

    #[test]
    fn normalize_lines_keeps_paragraphs() {
        let (s, truncated) = normalize_lines(
            "  Title \r\n\r\n\r\n para  one\rline\n\t\n\u{1b}\nend  ",
            usize::MAX,
        );
        assert!(!truncated);
        assert_eq!(s, "Title\n\npara one\nline\n\nend");
    }

    #[test]
    fn clean_plain_text_keeps_indentation() {
        assert_eq!(
            clean_plain_text("a\r\n\tb\rc\u{1b}[1m  d"),
            "a\n b\nc[1m  d"
        );
    }
}
