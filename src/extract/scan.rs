//! The fast tokenizer of the visible-text pass: a scanner specialised to what the rules in
//! [`super::visible`] look at, producing for those rules exactly the tokens html5ever's
//! tokenizer would (the same characters, tags, self-closing flags and the attributes that
//! matter), at a fraction of the cost.
//!
//! How it stays exact, state by state of the HTML tokenizer (as html5ever 0.40 implements
//! it): text runs are found with `memchr` over `<` and `&` and passed on as slices of the
//! source; character references are decoded with the tokenizer's own table
//! (`html5ever::data::NAMED_ENTITIES`, longest match, the attribute-value rule for a missing
//! `;`, numeric references with its replacements); tags are parsed with every attribute
//! state (quotes, `/`, missing values, the first of duplicate attributes wins) but only
//! `hidden` and `style` are kept; raw-text elements end at their own end tag by name;
//! `<script>` follows the script-data escape states (`<!--`, `<script>` inside it);
//! comments end at the first `-->` or `--!>` (or `<!-->`, `<!--->`), doctypes and bogus
//! comments at the first `>`, CDATA sections (only in `<svg>`/`<math>`, as the rules say) at
//! `]]>`; a construct cut by the end of the input is dropped or kept as text exactly as the
//! tokenizer does at EOF. A `\r` stays in source slices: the line builder treats it as the
//! newline the tokenizer would have normalized it to.
//!
//! What it declines: pages with a NUL character (the tokenizer drops or replaces NULs
//! differently in every state). [`super::visible::visible_text`] hands those to html5ever.
//! The equality is tested on generated hostile markup (tests/extract/proptest.rs) and on
//! every page of the real corpora (examples/scan_equality.rs).

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};
use memchr::{memchr, memchr2, memmem};

use super::visible::{style_hides, Element, Known, Next, RawMode, State, Visible, VisibleLimits};

/// Why the scanner declined a page (html5ever's tokenizer takes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declined {
    /// The page holds a NUL character.
    NulCharacter,
}

/// The visible text of `html` by the scanner, or why it declined the page.
pub fn scan_visible_text(html: &str, limits: VisibleLimits) -> Result<Visible, Declined> {
    if memchr(0, html.as_bytes()).is_some() {
        return Err(Declined::NulCharacter);
    }
    let mut scanner = Scanner {
        html,
        bytes: html.as_bytes(),
        state: State::new(html.len(), limits),
    };
    scanner.run();
    Ok(scanner.state.finish())
}

/// A tag name as written in the source. Two are equal when the tokenizer would give them
/// the same name: equal after lowercasing ASCII letters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SourceName<'a>(&'a [u8]);

impl PartialEq for SourceName<'_> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_ignore_ascii_case(other.0)
    }
}

struct Scanner<'a> {
    html: &'a str,
    bytes: &'a [u8],
    state: State<SourceName<'a>>,
}

/// White space between the parts of a tag (`\r` included: the tokenizer sees it as `\n`).
#[inline]
fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

impl<'a> Scanner<'a> {
    /// The data state, until the input ends or a budget stops the pass.
    fn run(&mut self) {
        let b = self.bytes;
        let mut pos = 0;
        while pos < b.len() {
            // Inside a hidden subtree text is dropped, so references need no decoding.
            let found = if self.state.drops_text() {
                memchr(b'<', &b[pos..])
            } else {
                memchr2(b'<', b'&', &b[pos..])
            };
            let Some(offset) = found else {
                self.source_text(pos, b.len());
                return;
            };
            let at = pos + offset;
            self.source_text(pos, at);
            if b[at] == b'&' {
                pos = self.reference_in_text(at);
                continue;
            }
            match self.markup(at) {
                Some(next) => pos = next,
                None => return,
            }
        }
    }

    /// Source text `from..to` as characters.
    #[inline]
    fn source_text(&mut self, from: usize, to: usize) {
        if from < to {
            self.state.source_characters(&self.html[from..to]);
        }
    }

    /// Source text `from..to` of an RCDATA element: references decoded.
    fn rcdata_text(&mut self, from: usize, to: usize) {
        if self.state.drops_text() {
            return;
        }
        let mut pos = from;
        while let Some(offset) = memchr(b'&', &self.bytes[pos..to]) {
            let at = pos + offset;
            self.source_text(pos, at);
            // A reference never runs over the `<` that ends the text (see `char_ref`).
            pos = self.reference_in_text(at);
        }
        self.source_text(pos, to);
    }

    /// The character reference at `at` (an `&`) in text; returns where text resumes.
    fn reference_in_text(&mut self, at: usize) -> usize {
        match char_ref(self.html, at, false) {
            Some((first, second, next)) => {
                let mut buf = [0u8; 8];
                let len = first.encode_utf8(&mut buf).len();
                let len = match second {
                    Some(c) => len + c.encode_utf8(&mut buf[len..]).len(),
                    None => len,
                };
                // `buf[..len]` holds whole characters just encoded.
                if let Ok(chars) = std::str::from_utf8(&buf[..len]) {
                    self.state.characters(chars);
                }
                next
            }
            None => {
                self.state.characters("&");
                at + 1
            }
        }
    }

    /// The markup starting with the `<` at `at`; returns where the data state resumes, or
    /// `None` when nothing follows (end of input, or a spent budget).
    fn markup(&mut self, at: usize) -> Option<usize> {
        let b = self.bytes;
        let Some(&c) = b.get(at + 1) else {
            self.state.characters("<");
            return None;
        };
        if c.is_ascii_alphabetic() {
            return self.tag(at + 1, true);
        }
        match c {
            b'/' => match b.get(at + 2) {
                None => {
                    self.state.characters("</");
                    None
                }
                Some(c) if c.is_ascii_alphabetic() => self.tag(at + 2, false),
                Some(b'>') => Some(at + 3),
                Some(_) => bogus_comment(b, at + 2),
            },
            b'!' => self.declaration(at + 2),
            b'?' => bogus_comment(b, at + 1),
            // Not markup: the `<` is text and what follows is read again as data.
            _ => {
                self.state.characters("<");
                Some(at + 1)
            }
        }
    }

    /// A tag whose name starts at `name_start`; `start` for a start tag.
    fn tag(&mut self, name_start: usize, start: bool) -> Option<usize> {
        let b = self.bytes;
        // Cut by the end of the input: the tokenizer drops the tag, and nothing follows.
        let tag = parse_tag(b, name_start)?;
        if !self.state.begin_tag() {
            return None;
        }
        let source = &b[name_start..tag.name_end];
        let name = Element {
            known: Known::classify(source),
            name: SourceName(source),
        };
        if !start {
            self.state.end_tag(&name);
            return Some(tag.end);
        }
        let html = self.html;
        match self.state.start_tag(
            &name,
            tag.self_closing,
            || tag.hidden_by_attributes(html),
            || tag.marked_by_attributes(html),
        ) {
            Next::Data => Some(tag.end),
            Next::Plaintext => {
                self.source_text(tag.end, b.len());
                None
            }
            Next::Raw(mode) => self.raw_text(mode, source, tag.end),
        }
    }

    /// The content of a raw-text element named `name` from `from`, then its end tag.
    fn raw_text(&mut self, mode: RawMode, name: &[u8], from: usize) -> Option<usize> {
        let b = self.bytes;
        let end = match mode {
            RawMode::Rcdata | RawMode::Rawtext => find_end_tag(b, from, name),
            RawMode::ScriptData => find_script_end(b, from, name),
        };
        let text_end = end.unwrap_or(b.len());
        match mode {
            RawMode::Rcdata => self.rcdata_text(from, text_end),
            RawMode::Rawtext | RawMode::ScriptData => self.source_text(from, text_end),
        }
        // `end` is the `<` of `</name`; the end tag is read like any other tag.
        self.tag(end? + 2, false)
    }

    /// `<!` markup from `from` (just after the `!`).
    fn declaration(&mut self, from: usize) -> Option<usize> {
        let b = self.bytes;
        let rest = &b[from..];
        if rest.starts_with(b"--") {
            return comment(b, from + 2);
        }
        if rest.len() >= 7 && rest[..7].eq_ignore_ascii_case(b"doctype") {
            // Every doctype state ends the doctype at the first `>`.
            return memchr(b'>', &rest[7..]).map(|g| from + 7 + g + 1);
        }
        if self.state.in_foreign_content() && rest.starts_with(b"[CDATA[") {
            let start = from + 7;
            return match memmem::find(&b[start..], b"]]>") {
                Some(offset) => {
                    self.source_text(start, start + offset);
                    Some(start + offset + 3)
                }
                None => {
                    self.source_text(start, b.len());
                    None
                }
            };
        }
        bogus_comment(b, from)
    }
}

/// A bogus comment (`<?…>`, `</ …>`, `<!…>`) ends at the first `>`.
fn bogus_comment(b: &[u8], from: usize) -> Option<usize> {
    memchr(b'>', &b[from..]).map(|g| from + g + 1)
}

/// A comment whose body starts at `body`: `<!-->` and `<!--->` end at once; otherwise the
/// comment states end it at the first `>` that follows `--` or `--!` inside the body (the
/// nested `<!--` states only track dashes the same way).
fn comment(b: &[u8], body: usize) -> Option<usize> {
    let rest = &b[body..];
    if rest.first() == Some(&b'>') {
        return Some(body + 1);
    }
    if rest.starts_with(b"->") {
        return Some(body + 2);
    }
    let mut from = 0;
    while let Some(offset) = memchr(b'>', &rest[from..]) {
        let g = from + offset;
        if rest[..g].ends_with(b"--") || rest[..g].ends_with(b"--!") {
            return Some(body + g + 1);
        }
        from = g + 1;
    }
    None
}

/// `</name` (ASCII case-insensitive) at `at` (just after `</`), followed by what ends a tag
/// name: the "appropriate end tag" of a raw-text element.
#[inline]
fn is_end_tag(b: &[u8], at: usize, name: &[u8]) -> bool {
    let end = at + name.len();
    end < b.len()
        && b[at..end].eq_ignore_ascii_case(name)
        && (is_space(b[end]) || b[end] == b'/' || b[end] == b'>')
}

/// The `<` of the end tag of an RCDATA or RAWTEXT element named `name`.
fn find_end_tag(b: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut pos = from;
    while let Some(offset) = memchr(b'<', &b[pos..]) {
        let lt = pos + offset;
        if b.get(lt + 1) == Some(&b'/') && is_end_tag(b, lt + 2, name) {
            return Some(lt);
        }
        pos = lt + 1;
    }
    None
}

/// The script-data states of the tokenizer, as far as they decide where a script ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Data,
    Escaped,
    EscapedDash,
    EscapedDashDash,
    DoubleEscaped,
    DoubleEscapedDash,
    DoubleEscapedDashDash,
}

/// The `<` of the end tag of a `<script>` (named `name` in the source), following the
/// script-data escape states: after `<!--`, a `<script>` starts a double-escaped section in
/// which `</script>` does not end the script; `-->` returns to plain script data.
fn find_script_end(b: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut state = Script::Data;
    let mut i = from;
    loop {
        match state {
            Script::Data => {
                let lt = i + memchr(b'<', &b[i..])?;
                match b.get(lt + 1) {
                    Some(b'/') if is_end_tag(b, lt + 2, name) => return Some(lt),
                    Some(b'!') if b.get(lt + 2) == Some(&b'-') && b.get(lt + 3) == Some(&b'-') => {
                        state = Script::EscapedDashDash;
                        i = lt + 4;
                    }
                    // Anything else is script text; none of it can be a `<`.
                    _ => i = lt + 1,
                }
            }
            Script::Escaped | Script::DoubleEscaped => {
                let at = i + memchr2(b'-', b'<', &b[i..])?;
                let double = state == Script::DoubleEscaped;
                if b[at] == b'-' {
                    state = if double {
                        Script::DoubleEscapedDash
                    } else {
                        Script::EscapedDash
                    };
                    i = at + 1;
                } else if double {
                    (state, i) = double_escaped_less_than(b, at + 1)?;
                } else {
                    match escaped_less_than(b, at + 1, name)? {
                        Ok(end) => return Some(end),
                        Err(next) => (state, i) = next,
                    }
                }
            }
            Script::EscapedDash
            | Script::EscapedDashDash
            | Script::DoubleEscapedDash
            | Script::DoubleEscapedDashDash => {
                let c = *b.get(i)?;
                let double = matches!(
                    state,
                    Script::DoubleEscapedDash | Script::DoubleEscapedDashDash
                );
                let dash_dash = matches!(
                    state,
                    Script::EscapedDashDash | Script::DoubleEscapedDashDash
                );
                match c {
                    b'-' => {
                        state = if double {
                            Script::DoubleEscapedDashDash
                        } else {
                            Script::EscapedDashDash
                        };
                        i += 1;
                    }
                    b'<' if double => (state, i) = double_escaped_less_than(b, i + 1)?,
                    b'<' => match escaped_less_than(b, i + 1, name)? {
                        Ok(end) => return Some(end),
                        Err(next) => (state, i) = next,
                    },
                    b'>' if dash_dash => {
                        state = Script::Data;
                        i += 1;
                    }
                    _ => {
                        state = if double {
                            Script::DoubleEscaped
                        } else {
                            Script::Escaped
                        };
                        i += 1;
                    }
                }
            }
        }
    }
}

/// After a `<` in escaped script data (`at` just after it): `Ok(lt)` when it starts the end
/// tag, else the next state and position; `None` at the end of the input.
fn escaped_less_than(b: &[u8], at: usize, name: &[u8]) -> Option<Result<usize, (Script, usize)>> {
    let c = *b.get(at)?;
    if c == b'/' {
        if is_end_tag(b, at + 1, name) {
            return Some(Ok(at - 1));
        }
        // `</` and any letters are text; the next character is read again as escaped data.
        return Some(Err((Script::Escaped, at + 1)));
    }
    if c.is_ascii_alphabetic() {
        // The double-escape start state: `<script` plus a delimiter starts double escaping.
        let (word_end, delimiter) = letters_then_delimiter(b, at)?;
        let state = if delimiter && b[at..word_end].eq_ignore_ascii_case(b"script") {
            Script::DoubleEscaped
        } else {
            Script::Escaped
        };
        return Some(Err((
            state,
            if delimiter { word_end + 1 } else { word_end },
        )));
    }
    Some(Err((Script::Escaped, at)))
}

/// After a `<` in double-escaped script data: `</script` plus a delimiter returns to
/// (single) escaped data.
fn double_escaped_less_than(b: &[u8], at: usize) -> Option<(Script, usize)> {
    if *b.get(at)? != b'/' {
        return Some((Script::DoubleEscaped, at));
    }
    let start = at + 1;
    if !b.get(start)?.is_ascii_alphabetic() {
        return Some((Script::DoubleEscaped, start));
    }
    let (word_end, delimiter) = letters_then_delimiter(b, start)?;
    let state = if delimiter && b[start..word_end].eq_ignore_ascii_case(b"script") {
        Script::Escaped
    } else {
        Script::DoubleEscaped
    };
    Some((state, if delimiter { word_end + 1 } else { word_end }))
}

/// The end of the run of ASCII letters at `at`, and whether the character after it is one
/// that ends the double-escape start/end states (white space, `/`, `>`); `None` when the
/// input ends first.
fn letters_then_delimiter(b: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut end = at;
    while end < b.len() && b[end].is_ascii_alphabetic() {
        end += 1;
    }
    let c = *b.get(end)?;
    Some((end, is_space(c) || c == b'/' || c == b'>'))
}

/// The most attributes written in one tag of `html` (duplicates included), for the
/// main-content extractor's work budget ([`super::MainLimits::max_attributes`]). Every `<`
/// followed by a letter is parsed as a start tag, even inside comments or scripts: an
/// over-estimate is safe for a budget, and the pass touches only tags.
pub fn max_attributes_per_tag(html: &str) -> usize {
    let b = html.as_bytes();
    let mut most = 0;
    let mut at = 0;
    while let Some(i) = memchr(b'<', &b[at..]).map(|i| at + i) {
        at = i + 1;
        if b.get(at).is_some_and(u8::is_ascii_alphabetic) {
            match parse_tag(b, at) {
                Some(tag) => {
                    most = most.max(tag.attributes);
                    at = tag.end;
                }
                None => break,
            }
        }
    }
    most
}

/// What the rules need of a parsed tag.
struct ParsedTag {
    /// End of the name (the name starts where parsing started).
    name_end: usize,
    /// Just after the closing `>`.
    end: usize,
    self_closing: bool,
    /// A `hidden` attribute is present.
    hidden: bool,
    /// The value of the first `style` attribute (the tokenizer drops later duplicates).
    style: Option<(usize, usize)>,
    /// Attributes written in the tag (duplicates included): the tree builder's work on a
    /// tag grows with their square (it drops duplicates by a linear search).
    attributes: usize,
    /// The values of the first `class`, `id` and `role` attributes.
    class: Option<(usize, usize)>,
    id: Option<(usize, usize)>,
    role: Option<(usize, usize)>,
}

impl ParsedTag {
    /// [`super::structure::attributes_bits`] on this tag's `class`, `id` and `role`.
    fn marked_by_attributes(&self, html: &str) -> u8 {
        let value = |range: Option<(usize, usize)>| -> std::borrow::Cow<'_, str> {
            match range {
                None => "".into(),
                Some((from, to)) if html[from..to].contains('&') => {
                    decode_attribute(html, from, to).into()
                }
                Some((from, to)) => html[from..to].into(),
            }
        };
        super::structure::attributes_bits(&value(self.class), &value(self.id), &value(self.role))
    }

    /// [`super::visible`]'s attribute rule on this tag.
    fn hidden_by_attributes(&self, html: &str) -> bool {
        if self.hidden {
            return true;
        }
        let Some((from, to)) = self.style else {
            return false;
        };
        let value = &html[from..to];
        if value.contains('&') {
            style_hides(&decode_attribute(html, from, to))
        } else {
            style_hides(value)
        }
    }
}

/// Parses a tag from its name (at `name_start`, an ASCII letter) to its `>`, through the
/// tokenizer's attribute states. `None` when the input ends inside the tag.
fn parse_tag(b: &[u8], name_start: usize) -> Option<ParsedTag> {
    let mut i = name_start + 1;
    while i < b.len() && !(is_space(b[i]) || b[i] == b'/' || b[i] == b'>') {
        i += 1;
    }
    let mut tag = ParsedTag {
        name_end: i,
        end: 0,
        self_closing: false,
        hidden: false,
        style: None,
        attributes: 0,
        class: None,
        id: None,
        role: None,
    };
    loop {
        // Before attribute name (also where after-value and after-name states lead).
        let c = *b.get(i)?;
        if is_space(c) {
            i += 1;
            continue;
        }
        match c {
            b'>' => {
                tag.end = i + 1;
                return Some(tag);
            }
            b'/' => {
                // Self-closing start tag state: only `/>` sets the flag.
                if *b.get(i + 1)? == b'>' {
                    tag.self_closing = true;
                    tag.end = i + 2;
                    return Some(tag);
                }
                i += 1;
                continue;
            }
            _ => {}
        }
        // Attribute name: its first character is taken whatever it is (even `=`).
        let name_from = i;
        i += 1;
        while i < b.len() && !(is_space(b[i]) || matches!(b[i], b'/' | b'>' | b'=')) {
            i += 1;
        }
        let attr = &b[name_from..i];
        tag.attributes += 1;
        // After attribute name.
        while i < b.len() && is_space(b[i]) {
            i += 1;
        }
        let mut value = None;
        if *b.get(i)? == b'=' {
            i += 1;
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            match *b.get(i)? {
                quote @ (b'"' | b'\'') => {
                    let close = i + 1 + memchr(quote, &b[i + 1..])?;
                    value = Some((i + 1, close));
                    i = close + 1;
                }
                // A missing value: the loop emits the tag at this `>`.
                b'>' => {}
                _ => {
                    let from = i;
                    while i < b.len() && !(is_space(b[i]) || b[i] == b'>') {
                        i += 1;
                    }
                    if i == b.len() {
                        return None;
                    }
                    value = Some((from, i));
                }
            }
        }
        if attr.eq_ignore_ascii_case(b"hidden") {
            tag.hidden = true;
        } else if attr.eq_ignore_ascii_case(b"style") && tag.style.is_none() {
            tag.style = Some(value.unwrap_or((i, i)));
        } else if attr.eq_ignore_ascii_case(b"class") && tag.class.is_none() {
            tag.class = Some(value.unwrap_or((i, i)));
        } else if attr.eq_ignore_ascii_case(b"id") && tag.id.is_none() {
            tag.id = Some(value.unwrap_or((i, i)));
        } else if attr.eq_ignore_ascii_case(b"role") && tag.role.is_none() {
            tag.role = Some(value.unwrap_or((i, i)));
        }
    }
}

/// An attribute value `from..to` with its character references decoded.
fn decode_attribute(html: &str, from: usize, to: usize) -> String {
    let b = html.as_bytes();
    let mut out = String::with_capacity(to - from);
    let mut pos = from;
    while let Some(offset) = memchr(b'&', &b[pos..to]) {
        let at = pos + offset;
        out.push_str(&html[pos..at]);
        // A reference never runs over the quote, space or `>` that ends the value.
        match char_ref(html, at, true) {
            Some((first, second, next)) => {
                out.push(first);
                out.extend(second);
                pos = next;
            }
            None => {
                out.push('&');
                pos = at + 1;
            }
        }
    }
    out.push_str(&html[pos..to]);
    out
}

/// Longest entity name with its `;` (`CounterClockwiseContourIntegral;`).
const MAX_ENTITY_NAME: usize = 32;

/// The character reference at `at` (an `&`) as html5ever's tokenizer reads it: its one or
/// two characters and where the input resumes, or `None` when it is not a reference (the
/// `&` is text and the input resumes just after it). References consume only ASCII
/// letters, digits, `#`, `x` and `;`, so they never run over markup.
fn char_ref(html: &str, at: usize, in_attribute: bool) -> Option<(char, Option<char>, usize)> {
    let b = html.as_bytes();
    let rest = &b[at + 1..];
    let first = *rest.first()?;
    if first == b'#' {
        return numeric_ref(b, at + 2);
    }
    if !first.is_ascii_alphanumeric() {
        return None;
    }
    // Common case: a whole name and its `;` (no longer name can extend past a `;`).
    let run = rest
        .iter()
        .take(MAX_ENTITY_NAME)
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    if run < MAX_ENTITY_NAME && rest.get(run) == Some(&b';') {
        if let Some(&(c1, c2)) = NAMED_ENTITIES.get(&html[at + 1..at + 2 + run]) {
            if c1 != 0 {
                return Some((
                    char::from_u32(c1)?,
                    char::from_u32(c2).filter(|_| c2 != 0),
                    at + 2 + run,
                ));
            }
        }
    }
    // The tokenizer's walk: extend the name while it is a prefix of some entity name
    // (the table holds every prefix, with (0, 0) for those that are not names themselves)
    // and keep the longest full name seen.
    let mut best = None;
    let mut len = 1;
    while len <= rest.len() && rest[len - 1].is_ascii() {
        match NAMED_ENTITIES.get(&html[at + 1..at + 1 + len]) {
            Some(&(c1, c2)) => {
                if c1 != 0 {
                    best = Some((len, c1, c2));
                }
                len += 1;
            }
            None => break,
        }
    }
    let (len, c1, c2) = best?;
    // In an attribute, a name without `;` followed by `=` or an alphanumeric is text
    // (`?a=1&copy=2`), for historical reasons.
    if in_attribute && rest[len - 1] != b';' {
        if let Some(&next) = rest.get(len) {
            if next == b'=' || next.is_ascii_alphanumeric() {
                return None;
            }
        }
    }
    // The table holds valid scalar values only.
    Some((
        char::from_u32(c1)?,
        char::from_u32(c2).filter(|_| c2 != 0),
        at + 1 + len,
    ))
}

/// A numeric reference whose digits (or `x`) start at `at`, just after `&#`.
fn numeric_ref(b: &[u8], at: usize) -> Option<(char, Option<char>, usize)> {
    let mut i = at;
    let base = if matches!(b.get(i), Some(b'x' | b'X')) {
        i += 1;
        16
    } else {
        10
    };
    let digits = i;
    let mut num: u32 = 0;
    let mut too_big = false;
    while let Some(d) = b.get(i).and_then(|&c| (c as char).to_digit(base)) {
        num = num.wrapping_mul(base);
        if num > 0x10FFFF {
            too_big = true;
        }
        num = num.wrapping_add(d);
        i += 1;
    }
    if i == digits {
        // `&#` or `&#x` without digits is text.
        return None;
    }
    if b.get(i) == Some(&b';') {
        i += 1;
    }
    let c = match num {
        n if n > 0x10FFFF || too_big => '\u{fffd}',
        0 | 0xD800..=0xDFFF => '\u{fffd}',
        0x80..=0x9F => C1_REPLACEMENTS[(num - 0x80) as usize]
            .or_else(|| char::from_u32(num))
            .unwrap_or('\u{fffd}'),
        n => char::from_u32(n).unwrap_or('\u{fffd}'),
    };
    Some((c, None, i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::visible::visible_text_html5ever;

    /// The scanner's result, asserted equal to html5ever's.
    fn same(html: &str) -> Visible {
        let limits = VisibleLimits::default();
        let fast = scan_visible_text(html, limits).expect("scanner accepts the page");
        assert_eq!(
            fast,
            visible_text_html5ever(html, limits),
            "scanner and html5ever differ on {html:?}"
        );
        fast
    }

    #[test]
    fn attributes_per_tag_are_counted_with_duplicates() {
        assert_eq!(max_attributes_per_tag("<p>no attributes</p>"), 0);
        assert_eq!(
            max_attributes_per_tag("<p a=1 b='x y' c d=\"2\"><i a a a>x</i>"),
            4
        );
        let bomb = format!("<p {}>x</p>", "a=1 ".repeat(5000));
        assert_eq!(max_attributes_per_tag(&bomb), 5000);
        // A tag cut off at the end of the page ends the count.
        assert_eq!(max_attributes_per_tag("<p a b><i c d e"), 2);
    }

    #[test]
    fn nul_characters_are_declined() {
        assert_eq!(
            scan_visible_text("a\0b", VisibleLimits::default()),
            Err(Declined::NulCharacter)
        );
    }

    #[test]
    fn character_references_follow_the_tokenizer() {
        for html in [
            "&amp; &amp &AMP; &ampx &notit; &notin; &noti &not &#38; &#x26 &#X26; &#; &#x; &#",
            "&#0; &#x80; &#x81; &#x9f; &#xD800; &#x110000; &#99999999999; &#13; &#x0d;",
            "&nbsp;&NotNestedGreaterGreater; &CounterClockwiseContourIntegral; &acE; &fjlig;",
            "&; &&amp; &#&amp; &a &zzz; &lt3 &gt&lt; & amp; &amp<b>x</b>",
            "<title>&amp;&lt</title><textarea>&gt&#33;&</textarea>",
            "<pre>&#13;\r\n&#10;x</pre>",
            "trailing &amp",
            "trailing &",
            "trailing &#x",
            "trailing &#12",
            "é&eacute;&Eacute &eacuteé",
        ] {
            same(html);
        }
    }

    #[test]
    fn attribute_references_keep_the_historical_rule() {
        for html in [
            "<div style='display&colon;none'>x</div>y",
            "<div style='display:none&amp=1'>x</div>y",
            "<div style='display:non&eacutex'>x</div>y",
            "<div style=\"&#100;isplay:none\">x</div>y",
            "<div style=display:none&>x</div>y",
            "<div style='display:&nonez'>x</div>y",
            // Decoded, the no-break space is trimmed and the style hides; kept, it does not.
            "<div style='display:&nbspnone'>x</div>y",
            "<div style='display:&nbsp;none'>x</div>y",
            "<div style='display:&nbsp'>x</div>y",
        ] {
            same(html);
        }
    }

    #[test]
    fn tags_follow_the_attribute_states() {
        for html in [
            "<div hidden>x</div>y",
            "<div HIDDEN=''>x</div>y",
            "<div =hidden>x</div>y",
            "<div style=display:none/>x</div>y",
            "<div style='display:none'/>x</div>y",
            "<div/style='display:none'>x</div>y",
            "<div style = 'display:none' >x</div>y",
            "<div style='display:none'style=x>x</div>y",
            "<div style>x</div>y",
            "<div style=>x</div>y",
            "<div a='>' style=\"display:none\">x</div>y",
            "<div a=\"b\"c='d' style='display:none'>x</div>y",
            "<div\rhidden\r\n>x</div>y",
            "<svg/><p>after</p>",
            "<svg><path/><g/></svg>shown",
            "<svg><svg/></svg>shown",
            "<br/><br / ><br/ x>",
            "<a href=x/>link</a>",
            "</div a='>'>x",
            "<div",
            "<div a='",
            "<div a=",
            "<div a=b",
            "<div /",
        ] {
            same(html);
        }
    }

    #[test]
    fn markup_that_is_not_a_tag() {
        for html in [
            "a < b > c",
            "a <3 b",
            "a <",
            "a </",
            "a </>",
            "a </ x> b",
            "a </3> b",
            "<?php x ?> y",
            "<!> x",
            "<!x> y",
            "<!-> z",
            "<!-",
            "<!",
            "<!doc",
            "<!DOCTYPE html> x",
            "<!doctype",
            "<!DocType html PUBLIC \"a>b\"> c",
            "<![CDATA[x]]> y",
            "<&amp;",
            "<<p>>",
        ] {
            same(html);
        }
    }

    #[test]
    fn comments_end_where_the_tokenizer_ends_them() {
        for html in [
            "<!---->a",
            "<!-->a",
            "<!--->a",
            "<!---->>a",
            "<!-- -- -->a",
            "<!-- --!>a",
            "<!--!>a-->b",
            "<!---!>a-->b",
            "<!----!>a",
            "<!--<!-->a",
            "<!--<!--->a",
            "<!--a-->b",
            "<!-- x ->y -->z",
            "<!-- x --",
            "<!-- x --!",
            "<!--",
            "<!-- --!-->a",
            "<!-- - -> -- >-->a",
        ] {
            same(html);
        }
    }

    #[test]
    fn raw_text_ends_at_its_own_end_tag() {
        for html in [
            "<style>a</styl</style >b",
            "<style>a</STYLE>b",
            "<style>a</style",
            "<style>a</style",
            "<style>a</stylex>b</style>c",
            "<title>a</title\n>b",
            "<title>a</title/>b",
            "<title>a</title x='>'>b",
            "<textarea>a<b>c</textarea>d",
            "<xmp><b>x</b></xmp>y",
            "<noscript><p>x</p></noscript>y",
            "<iframe>x</iframe>y",
            "<script/>visible",
            "<title/>visible",
            "<title>a</title",
            "<title>a</title ",
            "<title>a</",
            "<title>a<",
            "<SCRIPT>x</script>y",
            "<script>x</SCRIPT\t>y",
            "<plaintext>a</plaintext><b>&amp;",
        ] {
            same(html);
        }
    }

    #[test]
    fn script_escape_states() {
        for html in [
            "<script><!-- x --></script>y",
            "<script><!-- <script>x</script> --></script>y</script>z",
            "<script><!-- <script>x</script> </script>y",
            "<script><!--<script></script>--></script>y",
            "<script><!-- <script x --></script>y",
            "<script><!-- <scripts></script>y",
            "<script><!-- </scr --></script>y",
            "<script><!--></script>y",
            "<script><!---></script>y",
            "<script><!-- -- > --></script>y",
            "<script><!-- <script>--></script>y",
            "<script><!-- <script> - -> </script>a</script>b",
            "<script><!-- <script> <!-- </script> --> </script>a",
            "<script><!-x</script>y",
            "<script><!</script>y",
            "<script><!-- x",
            "<script><!-- <script",
            "<script><!-- <script>",
            "<script><!-- <script></scrip",
            "<script><!-- <script></script",
            "<script><!-- -",
            "<script><!-- --",
            "<script><!-- <",
            "<script><!-- </",
            "<script><!-- <SCRIPT>x</SCRIPT>--></script>y",
            "<script><!-- <script/x></script>y",
            "<script><!-- <script\r></script>-->\r\n</script>y",
        ] {
            same(html);
        }
    }

    #[test]
    fn hidden_subtrees_and_budgets() {
        same("<div hidden>&amp;<b>x</b><![CDATA[y]]></div>z");
        same("<svg><![CDATA[a]]b]]]>c</svg>d");
        same("<svg><![CDATA[a");
        same("<math><![cdata[x]]></math>y");
        let html = "<p>a</p>".repeat(50);
        let limits = VisibleLimits {
            max_tags: 33,
            max_text_bytes: usize::MAX,
        };
        let fast = scan_visible_text(&html, limits).expect("accepted");
        assert_eq!(fast, visible_text_html5ever(&html, limits));
        assert!(fast.truncated);
    }
}
