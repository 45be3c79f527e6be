//! The shape of every text this module stores: lines without leading or trailing spaces,
//! one space between words, at most one blank line in a row, and no control or invisible
//! formatting characters (crawled text is hostile; the review terminal must never receive an
//! escape sequence or a bidi override).
//!
//! [`LineBuilder`] accumulates text and break requests and emits this shape directly, so no
//! second normalization pass is needed.

use crate::text::EscapeStripper;

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
    /// An escape sequence may run on from one push into the next.
    escapes: EscapeStripper,
}

impl LineBuilder {
    pub fn new(limit: usize) -> Self {
        LineBuilder {
            out: String::new(),
            pending: Pending::Nothing,
            newline_is_space: true,
            limit,
            truncated: false,
            escapes: EscapeStripper::default(),
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

    /// The text so far (before the pending break, if any).
    pub fn as_str(&self) -> &str {
        &self.out
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

    /// The work of [`Self::push_str`]: runs of printable characters, single spaces between
    /// them included, are copied at once (a space between two printable characters comes
    /// out as itself); other characters go through [`Self::push_char`]. The result is the
    /// same as pushing every character on its own.
    fn push_runs<const CR_IS_NEWLINE: bool>(&mut self, text: &str) {
        let mut escapes = self.escapes;
        let text = escapes.strip(text);
        self.escapes = escapes;
        let text = text.as_ref();
        let bytes = text.as_bytes();
        let printable = |b: u8| (0x21..0x7f).contains(&b);
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            let mut special = None;
            while i < bytes.len() {
                i = simple_words(bytes, start, i);
                let Some(&b) = bytes.get(i) else {
                    break;
                };
                if printable(b) {
                    i += 1;
                } else if b == b' ' && i > start && i + 1 < bytes.len() && printable(bytes[i + 1]) {
                    i += 2;
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

    /// The text, in Unicode normalization form C ([`crate::text::nfc`]).
    pub fn finish(self) -> String {
        crate::text::nfc(self.out)
    }
}

/// Advances `i` over whole 8-byte words of printable ASCII and single spaces that can join
/// the run started at `start` (no space first, none doubled, none last); the byte loop in
/// `push_runs` takes over where a word does not qualify.
#[inline]
fn simple_words(bytes: &[u8], start: usize, from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // High bit of each zero byte of `t`, exactly (no carries between bytes).
    let zero_bytes = |t: u64| !(((t & LOW7) + LOW7) | t | LOW7);
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // Any byte >= 0x80, < 0x20 or 0x7f ends the fast path.
        let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        if (w & HIGH) | below_space | zero_bytes(w ^ (ONES * 0x7f)) != 0 {
            break;
        }
        let spaces = zero_bytes(w ^ (ONES * 0x20));
        if spaces != 0 {
            let doubled = spaces & (spaces >> 8) != 0;
            let first_is_space = spaces & 0x80 != 0;
            if doubled || (first_is_space && (i == start || bytes[i - 1] == b' ')) {
                break;
            }
        }
        i += 8;
    }
    // A space last must be followed by a printable character: leave it to the byte loop.
    if i > from && bytes[i - 1] == b' ' {
        i -= 1;
    }
    i
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
    let text = crate::text::strip_escape_sequences(text);
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
    crate::text::nfc(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn build(f: impl FnOnce(&mut LineBuilder)) -> String {
        let mut b = LineBuilder::new(usize::MAX);
        f(&mut b);
        b.finish()
    }

    #[test]
    fn text_is_stored_composed_whichever_way_the_page_spelled_it() {
        // Vietnamese "tiếng Việt" decomposed (letters + combining marks) and composed.
        let decomposed = build(|b| b.push_str("tie\u{302}\u{301}ng Vie\u{323}\u{302}t"));
        let composed = build(|b| b.push_str("ti\u{1ebf}ng Vi\u{1ec7}t"));
        assert_eq!(decomposed, composed);
        assert_eq!(composed, "ti\u{1ebf}ng Vi\u{1ec7}t");
        // Bengali য় as one character (U+09DF) becomes য + nukta, its normal form.
        assert_eq!(
            build(|b| b.push_str("\u{9b9}\u{9df}")),
            "\u{9b9}\u{9af}\u{9bc}"
        );
        // Composed text and ASCII come back as they were.
        assert_eq!(build(|b| b.push_str("café — “quoted”")), "café — “quoted”");
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
        assert_eq!(s, "red bell x");
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

    #[derive(Debug, Clone)]
    enum Op {
        Str(String),
        Source(String),
        LineBreak,
        ParagraphBreak,
        Space,
        Pre(bool),
    }

    fn op() -> impl Strategy<Value = Op> {
        let text = "[a-z,.!é中 \n\r\t\u{a0}\u{200b}\u{1b}\u{85}]{0,24}";
        // Mostly words and single spaces: the 8-byte fast path.
        let words = "[a-z.,]{0,6}( {1,2}[a-zA-Z.,]{1,7}){0,8} ?";
        prop_oneof![
            4 => text.prop_map(Op::Str),
            4 => text.prop_map(Op::Source),
            4 => words.prop_map(Op::Str),
            2 => words.prop_map(Op::Source),
            1 => Just(Op::LineBreak),
            1 => Just(Op::ParagraphBreak),
            1 => Just(Op::Space),
            1 => any::<bool>().prop_map(Op::Pre),
        ]
    }

    proptest! {
        /// The run-copying fast path gives what pushing each character gives.
        #[test]
        fn runs_equal_char_by_char(ops in proptest::collection::vec(op(), 0..24), limit in 0usize..400) {
            let mut fast = LineBuilder::new(limit);
            let mut slow = LineBuilder::new(limit);
            let mut slow_escapes = EscapeStripper::default();
            for op in &ops {
                match op {
                    Op::Str(s) => {
                        fast.push_str(s);
                        slow_escapes.strip(s).chars().for_each(|c| slow.push_char(c));
                    }
                    Op::Source(s) => {
                        fast.push_source_str(s);
                        slow_escapes
                            .strip(s)
                            .chars()
                            .map(|c| if c == '\r' { '\n' } else { c })
                            .for_each(|c| slow.push_char(c));
                    }
                    Op::LineBreak => {
                        fast.line_break();
                        slow.line_break();
                    }
                    Op::ParagraphBreak => {
                        fast.paragraph_break();
                        slow.paragraph_break();
                    }
                    Op::Space => {
                        fast.space();
                        slow.space();
                    }
                    Op::Pre(pre) => {
                        fast.set_preformatted(*pre);
                        slow.set_preformatted(*pre);
                    }
                }
            }
            prop_assert_eq!(fast.truncated(), slow.truncated());
            prop_assert_eq!(fast.finish(), slow.finish());
        }
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
        assert_eq!(clean_plain_text("a\r\n\tb\rc\u{1b}[1m  d"), "a\n b\nc  d");
    }
}
