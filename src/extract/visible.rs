//! Visible text of an HTML page: what a browser would render, as plain lines.
//!
//! Two tokenizers feed one set of rules. The rules ([`State`]) keep just enough state to know
//! whether text is rendered: which raw-text element the tokenizer is in (`script`, `style`,
//! `title`…, switched explicitly because without a tree builder nobody else tells the
//! tokenizer) and a small stack of hidden subtrees: `template`, `svg`, `math`, `select`,
//! `object`, and elements with a required end tag that are hidden by a `hidden` attribute or
//! an inline `display:none` / `visibility:hidden` style (menus, modals, keyword stuffing).
//! Elements whose end tag is optional (`p`, `li`…) are not hidden by attributes: without a
//! tree builder an unclosed one would hide the rest of the page. Everything a `<head>` holds
//! is raw text or void (`title`, `script`, `style`, `meta`…), so no head rule is needed; stray
//! text in a head is kept, because browsers move it into the body and render it.
//! Block elements end lines, `p` and headings end paragraphs, table cells are separated by a
//! space. The same pass captures the `<title>` and the first `<h1>`, and counts elements and
//! nesting depth so the caller can decide whether a tree build is safe.
//!
//! The tokenizers: [`super::scan`], a specialised scanner that produces exactly the tokens
//! html5ever's tokenizer would for what these rules look at (the fast path), and html5ever's
//! tokenizer itself (no tree: the tree builder costs several times more and its open-element
//! stack is what deep nesting attacks), used for the pages the scanner declines and kept as
//! the reference the scanner is tested against.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{local_name, LocalName, TokenizerResult};

use super::lines::LineBuilder;
use super::structure::{self, BlockSignal, Marks};

/// Work limits of one visible-text pass.
#[derive(Debug, Clone, Copy)]
pub struct VisibleLimits {
    /// Tags processed before the pass stops (the text so far is kept and `truncated` set).
    pub max_tags: usize,
    /// Bytes of text kept before the pass stops.
    pub max_text_bytes: usize,
}

impl Default for VisibleLimits {
    fn default() -> Self {
        VisibleLimits {
            max_tags: 2_000_000,
            max_text_bytes: 4 << 20,
        }
    }
}

/// Result of one visible-text pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Visible {
    pub text: String,
    /// The first `<title>`, white space collapsed (empty when there is none).
    pub title: String,
    /// The text of the first non-empty `<h1>`.
    pub first_h1: String,
    /// A budget of [`VisibleLimits`] ran out: `text` is a prefix of the page's text.
    pub truncated: bool,
    /// Tags seen (start and end tags).
    pub elements: usize,
    /// Deepest nesting of elements, estimated with a stack of open element names that
    /// mimics the tree builder's implied end tags for siblings (`p`, `li`, `td`…) and ignores
    /// end tags that close nothing, so stray `</x>` cannot hide real depth.
    pub max_depth: usize,
    /// One structure signal per non-empty line of `text` (link share, boilerplate
    /// containers: [`super::structure`]); empty when no line carries one.
    pub blocks: Vec<BlockSignal>,
}

/// Longest title kept, in bytes.
const MAX_TITLE_BYTES: usize = 2048;
/// Deepest hidden-container nesting tracked; deeper ones are still hidden by their parent.
const MAX_HIDDEN_STACK: usize = 256;
/// Deepest nesting of boilerplate containers tracked; deeper ones add nothing.
const MAX_CONTAINER_STACK: usize = 256;

/// Extracts the visible text of `html`: the scanner, or html5ever's tokenizer for the pages
/// the scanner declines. Both give the same result (tests/extract/proptest.rs and
/// examples/scan_equality.rs check it).
pub fn visible_text(html: &str, limits: VisibleLimits) -> Visible {
    match super::scan::scan_visible_text(html, limits) {
        Ok(visible) => visible,
        Err(_declined) => visible_text_html5ever(html, limits),
    }
}

/// Extracts the visible text of `html` with html5ever's tokenizer (the reference path).
pub fn visible_text_html5ever(html: &str, limits: VisibleLimits) -> Visible {
    let sink = Sink {
        state: RefCell::new(State::new(html.len(), limits)),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let mut stopped = false;
    loop {
        match tokenizer.feed(&input) {
            TokenizerResult::Done => break,
            // Our sink asks for a "script pause" only to stop early on a spent budget.
            TokenizerResult::Script(()) => {
                stopped = true;
                break;
            }
            TokenizerResult::EncodingIndicator(_) => continue,
        }
    }
    if !stopped {
        tokenizer.end();
    }
    tokenizer.sink.state.into_inner().finish()
}

macro_rules! known_elements {
    ($($variant:ident $name:literal,)*) => {
        /// The element names the rules mention; every other name is `Other`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Known {
            Other,
            $($variant,)*
        }

        #[allow(non_upper_case_globals)]
        mod packed {
            $(pub(super) const $variant: u128 = super::pack($name);)*
        }

        impl Known {
            /// Classifies a tag name as the tokenizer would name it (ASCII letters
            /// lowercased, nothing else changed).
            pub(crate) fn classify(name: &[u8]) -> Known {
                match pack_lowercase(name) {
                    $(Some(packed::$variant) => Known::$variant,)*
                    _ => Known::Other,
                }
            }
        }
    };
}

known_elements! {
    A b"a", Address b"address", Area b"area", Article b"article", Aside b"aside", Base b"base",
    Blockquote b"blockquote", Body b"body", Br b"br", Button b"button", Caption b"caption",
    Center b"center", Col b"col", Datalist b"datalist", Dd b"dd", Details b"details",
    Dialog b"dialog", Dir b"dir", Div b"div", Dl b"dl", Dt b"dt", Embed b"embed",
    Fieldset b"fieldset", Figcaption b"figcaption", Figure b"figure", Footer b"footer",
    Form b"form", Frameset b"frameset", H1 b"h1", H2 b"h2", H3 b"h3", H4 b"h4", H5 b"h5",
    H6 b"h6", Header b"header", Hgroup b"hgroup", Hr b"hr", Html b"html", Iframe b"iframe",
    Img b"img", Input b"input", Label b"label", Legend b"legend", Li b"li", Link b"link",
    Listing b"listing", Main b"main", Math b"math", Menu b"menu", Meta b"meta", Nav b"nav",
    Noembed b"noembed", Noframes b"noframes", Noscript b"noscript", Object b"object", Ol b"ol",
    Option b"option", P b"p", Param b"param", Plaintext b"plaintext", Pre b"pre",
    Script b"script", Section b"section", Select b"select", Source b"source", Span b"span",
    Style b"style", Summary b"summary", Svg b"svg", Table b"table", Tbody b"tbody", Td b"td",
    Template b"template", Textarea b"textarea", Tfoot b"tfoot", Th b"th", Thead b"thead",
    Title b"title", Tr b"tr", Track b"track", Ul b"ul", Wbr b"wbr", Xmp b"xmp",
}

/// A name of at most 16 bytes as one integer (little-endian, zero-padded). Names never hold
/// a zero byte (the tokenizer turns NUL into U+FFFD), so different names pack differently.
const fn pack(name: &[u8]) -> u128 {
    let mut key = 0u128;
    let mut i = 0;
    while i < name.len() && i < 16 {
        key |= (name[i] as u128) << (8 * i);
        i += 1;
    }
    key
}

/// [`pack`] of the ASCII-lowercased name; `None` for names longer than any known one.
#[inline]
fn pack_lowercase(name: &[u8]) -> Option<u128> {
    if name.len() > 16 {
        return None;
    }
    let mut key = 0u128;
    for (i, b) in name.iter().enumerate() {
        key |= (b.to_ascii_lowercase() as u128) << (8 * i);
    }
    Some(key)
}

/// An element name as the rules see it: its class, and for unknown names the name itself
/// (compared only for equality, to pair end tags with start tags).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Element<N> {
    pub known: Known,
    pub name: N,
}

impl<N: PartialEq> PartialEq for Element<N> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.known == other.known && (self.known != Known::Other || self.name == other.name)
    }
}

/// How the tokenizer must continue after a start tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    Data,
    /// Raw text until the element's own end tag.
    Raw(RawMode),
    /// Everything to the end of the input is text.
    Plaintext,
}

/// The tokenizer state for elements whose content is raw text, as the HTML tree builder
/// would switch it (scripting enabled, so `noscript` is raw text too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RawMode {
    /// Character references are decoded (`title`, `textarea`).
    Rcdata,
    /// Nothing is decoded (`style`, `noscript`, `iframe`, `noembed`, `noframes`, `xmp`).
    Rawtext,
    /// `script`: like raw text, with the `<!--` escape states.
    ScriptData,
}

/// What the characters of a raw-text element are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RawUse {
    /// Not rendered (`script`, `style`, `noscript`, `iframe` fallback…).
    Skip,
    /// Rendered (`textarea`, `xmp`).
    Show,
    /// The document title.
    Title,
}

/// The visibility rules: consumes tokens, builds the text, title and first `h1`.
pub(crate) struct State<N> {
    text: LineBuilder,
    title: LineBuilder,
    title_seen: bool,
    h1: LineBuilder,
    in_h1: bool,
    h1_done: bool,
    raw: Option<RawUse>,
    /// Hidden subtrees, innermost last, each with the number of same-name elements opened
    /// inside it and not yet closed (so `<div hidden><div></div>…</div>` ends at the right
    /// `</div>`).
    hidden: Vec<(Element<N>, usize)>,
    pre_depth: usize,
    tags: usize,
    limits: VisibleLimits,
    exhausted: bool,
    open: Vec<Element<N>>,
    /// Open elements beyond [`MAX_OPEN_TRACKED`], counted but not named.
    open_overflow: usize,
    max_depth: usize,
    /// Open elements with a required end tag that give structure bits
    /// ([`structure::element_bits`], a boilerplate `class`/`id`), innermost last, each with
    /// its bits and the number of same-name elements opened inside it and not yet closed.
    containers: Vec<(Element<N>, usize, u8)>,
    /// Where the open `<a>`'s text starts in `text`, when one is open.
    link_start: Option<usize>,
    marks: Marks,
    /// Open elements that may be a heading ([`may_head_discussion`]), innermost last: their
    /// index in `open` and where their text starts.
    heading_candidates: Vec<(usize, usize, bool)>,
    /// The last line judged not to name a discussion (where it starts, the text's length
    /// then): the wrappers around one line (`<div><div><p>…</p></div></div>`) are not judged
    /// again.
    last_rejected_heading: (usize, usize),
    /// Discussions a heading named whose parent element is still open, innermost last: the
    /// depth of `open` under which the parent has closed, and where the heading starts.
    open_discussions: Vec<(usize, usize)>,
    /// Where the last heading that named a discussion starts, and how many wrappers around
    /// it alone may still carry its discussion out to their parent
    /// ([`WRAPPERS_A_COUNTED_HEADING_CROSSES`]): an element around it and nothing else is not
    /// another heading, even once the first discussion has ended.
    last_discussion_heading: Option<(usize, u8)>,
}

impl<N: Clone + PartialEq> State<N> {
    pub(crate) fn new(html_len: usize, limits: VisibleLimits) -> Self {
        State {
            // Text is typically a fifth of the markup or less.
            text: LineBuilder::with_capacity(html_len / 5, limits.max_text_bytes),
            title: LineBuilder::new(MAX_TITLE_BYTES),
            title_seen: false,
            h1: LineBuilder::new(MAX_TITLE_BYTES),
            in_h1: false,
            h1_done: false,
            raw: None,
            hidden: Vec::new(),
            pre_depth: 0,
            tags: 0,
            limits,
            exhausted: false,
            open: Vec::new(),
            open_overflow: 0,
            max_depth: 0,
            containers: Vec::new(),
            link_start: None,
            marks: Marks::default(),
            heading_candidates: Vec::new(),
            last_rejected_heading: (usize::MAX, 0),
            open_discussions: Vec::new(),
            last_discussion_heading: None,
        }
    }

    pub(crate) fn finish(mut self) -> Visible {
        self.end_link();
        self.elements_closed_to(0);
        let truncated = self.exhausted || self.text.truncated();
        let text = self.text.finish();
        let blocks = structure::block_signals(&text, &self.marks);
        Visible {
            text,
            blocks,
            title: self.title.finish(),
            first_h1: self.h1.finish(),
            truncated,
            elements: self.tags,
            max_depth: self.max_depth,
        }
    }

    /// True when characters arriving now are dropped (a skipped raw-text element, or a
    /// hidden subtree outside raw text), so a tokenizer need not decode them.
    #[inline]
    pub(crate) fn drops_text(&self) -> bool {
        match self.raw {
            Some(RawUse::Skip) => true,
            Some(RawUse::Title) => false,
            Some(RawUse::Show) | None => !self.hidden.is_empty(),
        }
    }

    /// Characters as the HTML tokenizer emits them (newlines normalized, references decoded).
    pub(crate) fn characters(&mut self, chars: &str) {
        self.push_characters::<false>(chars);
    }

    /// Characters copied from the source as they are, where a `\r` is still a newline the
    /// tokenizer would have normalized.
    pub(crate) fn source_characters(&mut self, chars: &str) {
        self.push_characters::<true>(chars);
    }

    fn push_characters<const SOURCE: bool>(&mut self, chars: &str) {
        let push = |builder: &mut LineBuilder| {
            if SOURCE {
                builder.push_source_str(chars)
            } else {
                builder.push_str(chars)
            }
        };
        match self.raw {
            Some(RawUse::Skip) => return,
            Some(RawUse::Title) => {
                push(&mut self.title);
                return;
            }
            Some(RawUse::Show) | None => {}
        }
        if !self.hidden.is_empty() {
            return;
        }
        push(&mut self.text);
        if self.in_h1 {
            push(&mut self.h1);
        }
    }

    /// Counts one tag; false when a budget is spent and the pass must stop here.
    #[inline]
    pub(crate) fn begin_tag(&mut self) -> bool {
        self.tags += 1;
        if self.tags > self.limits.max_tags || self.text.truncated() {
            self.exhausted = true;
            return false;
        }
        true
    }

    /// Handles a start tag (after [`Self::begin_tag`]); `hidden_by_attributes` and
    /// `marked_by_attributes` (a `class`/`id`/`role` naming boilerplate:
    /// [`structure::attributes_mark`]) are asked only when the answer matters.
    pub(crate) fn start_tag(
        &mut self,
        name: &Element<N>,
        self_closing: bool,
        hidden_by_attributes: impl FnOnce() -> bool,
        marked_by_attributes: impl FnOnce() -> u8,
    ) -> Next {
        let known = name.known;
        if let Some(mode) = raw_mode(known) {
            if self_closing {
                return Next::Data;
            }
            let is_title = known == Known::Title;
            // A `<title>` inside `<svg>` is an SVG tooltip: not raw text, not the page title.
            if is_title && !self.hidden.is_empty() {
                return Next::Data;
            }
            self.raw = Some(if is_title {
                if self.title_seen {
                    RawUse::Skip
                } else {
                    self.title_seen = true;
                    RawUse::Title
                }
            } else if known == Known::Textarea || known == Known::Xmp {
                self.text.line_break();
                RawUse::Show
            } else {
                RawUse::Skip
            });
            return Next::Raw(mode);
        }
        if known == Known::Plaintext {
            self.text.line_break();
            return Next::Plaintext;
        }
        // In HTML `<div/>` opens a div like `<div>` does; only foreign (svg) content knows `/>`.
        let opens = if self.hidden.is_empty() {
            !is_void(known)
        } else {
            !is_void(known) && !self_closing
        };
        if opens {
            self.open_element(name);
        }
        if let Some(top) = self.hidden.last_mut() {
            if top.0 == *name && opens {
                top.1 += 1;
                return Next::Data;
            }
        }
        let hides = if is_hidden_container(known) {
            !self_closing
        } else {
            opens && has_required_end_tag(known) && hidden_by_attributes()
        };
        if hides {
            if self.hidden.len() < MAX_HIDDEN_STACK {
                self.hidden.push((name.clone(), 0));
            }
            return Next::Data;
        }
        if opens && self.hidden.is_empty() {
            self.open_container(name, marked_by_attributes);
        }
        self.layout(known, true);
        Next::Data
    }

    /// Structure of a start tag outside hidden subtrees: links, and containers whose
    /// name or attributes say boilerplate.
    fn open_container(&mut self, name: &Element<N>, attribute_bits: impl FnOnce() -> u8) {
        let known = name.known;
        if known == Known::A {
            // An `<a>` inside an open one closes it (the tree builder's adoption agency).
            self.end_link();
            self.link_start = Some(self.text.len());
            self.update_marks();
            return;
        }
        if !(has_required_end_tag(known) || known == Known::Menu) {
            return;
        }
        let bits = structure::element_bits(known)
            | if !matches!(
                known,
                Known::Div
                    | Known::Section
                    | Known::Nav
                    | Known::Aside
                    | Known::Header
                    | Known::Footer
                    | Known::Ul
                    | Known::Ol
                    | Known::Dl
                    | Known::Form
                    | Known::Table
                    | Known::Figure
                    | Known::Article
                    | Known::Main
            ) {
                0
            } else {
                attribute_bits()
            };
        if bits != 0 && self.containers.len() < MAX_CONTAINER_STACK {
            self.containers.push((name.clone(), 0, bits));
            self.update_marks();
        } else if let Some(at) = self.containers.iter().rposition(|c| c.0 == *name) {
            self.containers[at].1 += 1;
        }
    }

    /// Structure of an end tag: closes a link, or the innermost container of its name.
    fn close_container(&mut self, name: &Element<N>) {
        if name.known == Known::A {
            if self.end_link() {
                self.update_marks();
            }
            return;
        }
        if let Some(at) = self.containers.iter().rposition(|c| c.0 == *name) {
            if self.containers[at].1 > 0 {
                self.containers[at].1 -= 1;
            } else {
                // Misnested markup: an outer container closes over unclosed inner ones.
                self.containers.truncate(at);
                self.update_marks();
            }
        }
    }

    /// Ends the open link, if any (true then). A link whose text is at least
    /// [`structure::LONG_LINK_BYTES`] is a story placed inside a link, not a link: its text
    /// is not counted as link text.
    fn end_link(&mut self) -> bool {
        let Some(start) = self.link_start.take() else {
            return false;
        };
        if self.text.len().saturating_sub(start) >= structure::LONG_LINK_BYTES {
            self.marks.clear_since(start, structure::LINK);
        }
        true
    }

    /// Records the flags in force from the text's current end on.
    fn update_marks(&mut self) {
        let mut flags = if self.link_start.is_some() {
            structure::LINK
        } else {
            0
        };
        for c in &self.containers {
            flags |= c.2;
        }
        self.marks.set(self.text.len(), flags);
    }

    /// Handles an end tag (after [`Self::begin_tag`]).
    pub(crate) fn end_tag(&mut self, name: &Element<N>) {
        self.close_element(name);
        if self.hidden.is_empty() && self.raw.is_none() {
            self.close_container(name);
        }
        if self.raw.is_some() && raw_mode(name.known).is_some() {
            if self.raw == Some(RawUse::Show) {
                self.text.line_break();
            }
            self.raw = None;
            return;
        }
        if let Some(top) = self.hidden.last_mut() {
            if top.0 == *name {
                if top.1 > 0 {
                    top.1 -= 1;
                } else {
                    self.hidden.pop();
                }
                return;
            }
        }
        // Misnested markup: an outer hidden subtree closes over unclosed inner ones.
        if let Some(at) = self.hidden.iter().rposition(|h| h.0 == *name) {
            self.hidden.truncate(at);
            return;
        }
        self.layout(name.known, false);
    }

    /// Inside `<svg>`/`<math>`, `<![CDATA[…]]>` is a CDATA section, not a bogus comment.
    #[inline]
    pub(crate) fn in_foreign_content(&self) -> bool {
        self.hidden
            .last()
            .is_some_and(|top| top.0.known == Known::Svg || top.0.known == Known::Math)
    }

    /// Tracks nesting depth: siblings that imply the end of their predecessor close it first.
    fn open_element(&mut self, name: &Element<N>) {
        if closes_same_sibling(name.known) {
            let window = self.open.len().saturating_sub(SIBLING_WINDOW);
            if let Some(at) = self.open[window..].iter().rposition(|n| n == name) {
                self.open.truncate(window + at);
                self.elements_closed_to(window + at);
            }
        }
        if self.open.len() < MAX_OPEN_TRACKED {
            // At most one candidate an open element (each leaves when its element closes):
            // bounded as `open` is.
            if may_head_discussion(name.known) && self.hidden.is_empty() {
                self.heading_candidates.push((
                    self.open.len(),
                    self.text.len(),
                    is_heading(name.known),
                ));
            }
            self.open.push(name.clone());
        } else {
            self.open_overflow += 1;
        }
        self.max_depth = self.max_depth.max(self.open.len() + self.open_overflow);
    }

    /// An end tag closes the innermost open element of its name, if one is near the top;
    /// an end tag that matches nothing is ignored, as the tree builder does.
    fn close_element(&mut self, name: &Element<N>) {
        if self.open_overflow > 0 {
            self.open_overflow -= 1;
            return;
        }
        let window = self.open.len().saturating_sub(END_TAG_WINDOW);
        if let Some(at) = self.open[window..].iter().rposition(|n| n == name) {
            self.open.truncate(window + at);
            self.elements_closed_to(window + at);
        }
    }

    /// The open elements from index `depth` on have closed: a heading among them may name a
    /// reader discussion that runs on to the end of its parent
    /// ([`structure::heading_names_discussion`]), and a discussion whose parent closed ends.
    fn elements_closed_to(&mut self, depth: usize) {
        while let Some(&(at, start, heading)) = self.heading_candidates.last() {
            if at < depth {
                break;
            }
            self.heading_candidates.pop();
            // The parent must be open still and not a table cell or list item (a column
            // or an item named "Reader comments" heads no discussion below it).
            let parent = match at.checked_sub(1).and_then(|p| self.open.get(p)) {
                Some(parent) if at == self.open.len() => parent.known,
                _ => continue,
            };
            if matches!(
                parent,
                Known::Td | Known::Th | Known::Li | Known::Dd | Known::Dt | Known::Caption
            ) {
                continue;
            }
            // An element around a heading and nothing else (`<div><h3>Comments</h3></div>`,
            // a count widget's `<div><div class="label">comments</div></div>`) is not a
            // second heading: the innermost one's parent bounds the discussion, never a
            // wrapper's parent (which can be the whole article, or the related stories
            // after an invitation: youbeauty.com's `div > div > h4` "Join the
            // Conversation"), except for a heading element that counts the comments
            // below it: a React site's `<div><div><h3>5 Comments</h3></div><div>…thread…`
            // wraps the heading alone and puts the thread beside the wrapper.
            if let Some((last_from, wrappers_left)) = self.last_discussion_heading {
                if self.line_start(start) == last_from {
                    let wraps_it_alone = self.open_discussions.last() == Some(&(at + 1, last_from))
                        && !self.text.as_str()[last_from..].trim_end().contains('\n');
                    if wrappers_left > 0 && wraps_it_alone {
                        self.open_discussions.pop();
                        self.open_discussions.push((at, last_from));
                        self.last_discussion_heading = Some((last_from, wrappers_left - 1));
                    }
                    continue;
                }
            }
            if let Some(from) = self.discussion_heading_at(start, heading) {
                let wrappers = if heading && structure::holds_count(&self.text.as_str()[from..]) {
                    WRAPPERS_A_COUNTED_HEADING_CROSSES
                } else {
                    0
                };
                self.last_discussion_heading = Some((from, wrappers));
                // The parent is `open[at - 1]`: the discussion lasts while `open` is deeper
                // than it.
                self.open_discussions.push((at, from));
            }
        }
        while let Some(&(parent_depth, from)) = self.open_discussions.last() {
            if depth >= parent_depth {
                break;
            }
            self.open_discussions.pop();
            self.marks.add_discussion(from, self.text.len());
        }
    }

    /// Where the line whose text starts at byte `start` of the text begins (past the
    /// paragraph breaks before it).
    fn line_start(&self, start: usize) -> usize {
        let tail = self.text.as_str().get(start..).unwrap_or("");
        start + (tail.len() - tail.trim_start_matches('\n').len())
    }

    /// Where the heading whose text starts at byte `start` of the text begins, when that
    /// text is one whole line, mostly not link text, that names a reader discussion; `heading`
    /// for `h1`–`h6`, whose line may carry a story's title ("4 thoughts on “…”"), where a
    /// paragraph or division that heads a discussion is short.
    fn discussion_heading_at(&mut self, start: usize, heading: bool) -> Option<usize> {
        let text = self.text.as_str();
        // `start` is a length the text had, so a char boundary; checked all the same.
        text.get(start..)?;
        let from = self.line_start(start);
        let line = &text[from..];
        let longest = if heading {
            structure::MAX_DISCUSSION_HEADING
        } else {
            MAX_BLOCK_DISCUSSION_HEADING
        };
        // Most blocks are prose, far longer than a heading: judged by their length alone.
        if line.is_empty()
            || line.len() > longest
            || (from, text.len()) == self.last_rejected_heading
            || line.contains('\n')
            || (from > 0 && !text[..from].ends_with('\n'))
        {
            return None;
        }
        if !structure::heading_names_discussion(line) {
            self.last_rejected_heading = (from, text.len());
            return None;
        }
        (2 * self.marks.bytes_with(structure::LINK, from, text.len()) < line.len()).then_some(from)
    }

    /// Line structure of rendered elements (start and end tags alike).
    fn layout(&mut self, known: Known, start: bool) {
        match known {
            Known::Br => self.text.line_break(),
            Known::P
            | Known::H2
            | Known::H3
            | Known::H4
            | Known::H5
            | Known::H6
            | Known::Blockquote
            | Known::Table => self.text.paragraph_break(),
            Known::H1 => {
                self.text.paragraph_break();
                if start && !self.h1_done && self.hidden.is_empty() {
                    self.in_h1 = true;
                } else if !start && self.in_h1 {
                    self.in_h1 = false;
                    self.h1_done = !self.h1.is_empty();
                }
            }
            Known::Pre => {
                self.text.paragraph_break();
                self.pre_depth = if start {
                    self.pre_depth + 1
                } else {
                    self.pre_depth.saturating_sub(1)
                };
                self.text.set_preformatted(self.pre_depth > 0);
            }
            Known::Td | Known::Th => self.text.space(),
            k if is_block(k) => self.text.line_break(),
            _ => {}
        }
    }
}

/// Elements whose text, when it is one whole line, may be a heading that names a reader
/// discussion: the headings, and the paragraphs and divisions sites write theirs in
/// (`<p><b>What readers say</b></p>`, Disqus's `<div class="nav-tab">`).
fn may_head_discussion(known: Known) -> bool {
    is_heading(known) || matches!(known, Known::P | Known::Div)
}

/// `h1`–`h6`.
fn is_heading(known: Known) -> bool {
    matches!(
        known,
        Known::H1 | Known::H2 | Known::H3 | Known::H4 | Known::H5 | Known::H6
    )
}

/// Wrappers around a heading element alone that a heading counting its comments ("5
/// Comments", "Comments (12)") carries its discussion through to their parent
/// ([`State::elements_closed_to`]): component frameworks wrap a heading in a division or two
/// and put the thread beside the wrapper (news-v11 whole, BENCHMARKS.md issue 14 session 26).
const WRAPPERS_A_COUNTED_HEADING_CROSSES: u8 = 2;

/// Longest paragraph or division (bytes) that can head a discussion ("Join the discussion:
/// 12 comments", "What readers say (12)"); a heading element may be longer
/// ([`structure::MAX_DISCUSSION_HEADING`]). Most short paragraphs of a page are longer and
/// are not looked at.
const MAX_BLOCK_DISCUSSION_HEADING: usize = 64;

/// How deep an element's own end tag searches the open elements (misnesting is local).
const END_TAG_WINDOW: usize = 16;
/// How deep a sibling that implies its predecessor's end searches for it.
const SIBLING_WINDOW: usize = 4;
/// Open element names kept; deeper nesting is only counted.
const MAX_OPEN_TRACKED: usize = 1 << 16;

/// Elements whose start tag ends an open element of the same name (`<li>a<li>b`).
fn closes_same_sibling(known: Known) -> bool {
    matches!(
        known,
        Known::P
            | Known::Li
            | Known::Dt
            | Known::Dd
            | Known::Option
            | Known::Tr
            | Known::Td
            | Known::Th
            | Known::A
    )
}

/// Raw-text elements and the tokenizer state their content is read in.
fn raw_mode(known: Known) -> Option<RawMode> {
    match known {
        Known::Script => Some(RawMode::ScriptData),
        Known::Style
        | Known::Noscript
        | Known::Iframe
        | Known::Noembed
        | Known::Noframes
        | Known::Xmp => Some(RawMode::Rawtext),
        Known::Title | Known::Textarea => Some(RawMode::Rcdata),
        _ => None,
    }
}

/// Elements whose whole subtree is never rendered as text.
fn is_hidden_container(known: Known) -> bool {
    matches!(
        known,
        Known::Template
            | Known::Svg
            | Known::Math
            | Known::Object
            | Known::Select
            | Known::Datalist
    )
}

/// Elements whose end tag may not be omitted, so their subtree ends where the author says.
fn has_required_end_tag(known: Known) -> bool {
    matches!(
        known,
        Known::Div
            | Known::Span
            | Known::Section
            | Known::Nav
            | Known::Aside
            | Known::Article
            | Known::Header
            | Known::Footer
            | Known::Main
            | Known::Ul
            | Known::Ol
            | Known::Dl
            | Known::Form
            | Known::Table
            | Known::Figure
            | Known::Blockquote
            | Known::A
            | Known::Button
            | Known::Label
            | Known::Dialog
            | Known::Fieldset
            | Known::H1
            | Known::H2
            | Known::H3
            | Known::H4
            | Known::H5
            | Known::H6
    )
}

/// A `hidden` attribute, or an inline style with `display:none` or `visibility:hidden`.
fn hidden_by_attributes(tag: &Tag) -> bool {
    tag.attrs.iter().any(|attr| match attr.name.local {
        local_name!("hidden") => true,
        local_name!("style") => style_hides(&attr.value),
        _ => false,
    })
}

/// The structure bits of a `class`, `id` and `role` ([`structure::attributes_bits`]).
fn marked_by_attributes(tag: &Tag) -> u8 {
    let value = |name: LocalName| {
        tag.attrs
            .iter()
            .find(|a| a.name.local == name)
            .map_or("", |a| &*a.value)
    };
    structure::attributes_bits(
        value(local_name!("class")),
        value(local_name!("id")),
        value(local_name!("role")),
    )
}

/// An inline style that hides its element.
pub(crate) fn style_hides(style: &str) -> bool {
    style.split(';').any(|declaration| {
        let Some((property, value)) = declaration.split_once(':') else {
            return false;
        };
        let property = property.trim();
        let value = value.trim().trim_end_matches("!important").trim();
        (property.eq_ignore_ascii_case("display") && value.eq_ignore_ascii_case("none"))
            || (property.eq_ignore_ascii_case("visibility") && value.eq_ignore_ascii_case("hidden"))
    })
}

/// Elements that start and end a line when rendered.
fn is_block(known: Known) -> bool {
    matches!(
        known,
        Known::Address
            | Known::Article
            | Known::Aside
            | Known::Body
            | Known::Caption
            | Known::Center
            | Known::Dd
            | Known::Details
            | Known::Dialog
            | Known::Dir
            | Known::Div
            | Known::Dl
            | Known::Dt
            | Known::Fieldset
            | Known::Figcaption
            | Known::Figure
            | Known::Footer
            | Known::Form
            | Known::Frameset
            | Known::Header
            | Known::Hgroup
            | Known::Hr
            | Known::Html
            | Known::Legend
            | Known::Li
            | Known::Listing
            | Known::Main
            | Known::Menu
            | Known::Nav
            | Known::Ol
            | Known::Option
            | Known::Section
            | Known::Summary
            | Known::Tbody
            | Known::Tfoot
            | Known::Thead
            | Known::Tr
            | Known::Ul
    )
}

/// Elements that never have content or an end tag.
fn is_void(known: Known) -> bool {
    matches!(
        known,
        Known::Area
            | Known::Base
            | Known::Br
            | Known::Col
            | Known::Embed
            | Known::Hr
            | Known::Img
            | Known::Input
            | Known::Link
            | Known::Meta
            | Known::Param
            | Known::Source
            | Known::Track
            | Known::Wbr
    )
}

/// Feeds html5ever's tokens to the rules.
struct Sink {
    state: RefCell<State<LocalName>>,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::CharacterTokens(chars) => {
                state.characters(&chars);
                TokenSinkResult::Continue
            }
            Token::TagToken(tag) => {
                if !state.begin_tag() {
                    return TokenSinkResult::Script(());
                }
                let name = Element {
                    known: Known::classify(tag.name.as_bytes()),
                    name: tag.name.clone(),
                };
                match tag.kind {
                    TagKind::StartTag => {
                        match state.start_tag(
                            &name,
                            tag.self_closing,
                            || hidden_by_attributes(&tag),
                            || marked_by_attributes(&tag),
                        ) {
                            Next::Data => TokenSinkResult::Continue,
                            Next::Raw(RawMode::Rcdata) => TokenSinkResult::RawData(RawKind::Rcdata),
                            Next::Raw(RawMode::Rawtext) => {
                                TokenSinkResult::RawData(RawKind::Rawtext)
                            }
                            Next::Raw(RawMode::ScriptData) => {
                                TokenSinkResult::RawData(RawKind::ScriptData)
                            }
                            Next::Plaintext => TokenSinkResult::Plaintext,
                        }
                    }
                    TagKind::EndTag => {
                        state.end_tag(&name);
                        TokenSinkResult::Continue
                    }
                }
            }
            Token::DoctypeToken(_)
            | Token::CommentToken(_)
            | Token::NullCharacterToken
            | Token::EOFToken
            | Token::ParseError(_) => TokenSinkResult::Continue,
        }
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.state.borrow().in_foreign_content()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both tokenizers, which must agree.
    fn both(html: &str, limits: VisibleLimits) -> Visible {
        let reference = visible_text_html5ever(html, limits);
        let fast = visible_text(html, limits);
        assert_eq!(fast, reference, "scanner and html5ever differ on {html:?}");
        reference
    }

    fn text(html: &str) -> String {
        both(html, VisibleLimits::default()).text
    }

    /// The visible lines of `html` with whether each is a reader discussion.
    fn discussion_lines(html: &str) -> Vec<(String, bool)> {
        let v = both(html, VisibleLimits::default());
        let lines: Vec<&str> = v.text.lines().filter(|l| !l.is_empty()).collect();
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let flags = v.blocks.get(i).map_or(0, |b| b.flags);
                (l.to_string(), flags & structure::DISCUSSION != 0)
            })
            .collect()
    }

    #[test]
    fn a_heading_names_a_discussion_to_the_end_of_its_parent() {
        let html = "<body><div class=\"story\"><h1>Title</h1><p>The story.</p>\
            <div class=\"k-91\"><h3>Comments (2)</h3><div class=\"c\"><b>ann</b> wrote:\
            <div>First.</div></div><div class=\"c\"><b>bob</b><p>Second.</p></div></div>\
            <p>After the discussion.</p></div></body>";
        let got = discussion_lines(html);
        let marked: Vec<&str> = got.iter().filter(|l| l.1).map(|l| l.0.as_str()).collect();
        assert_eq!(
            marked,
            ["Comments (2)", "ann wrote:", "First.", "bob", "Second."]
        );
        // A heading in a paragraph: the paragraph's parent bounds the discussion.
        let html = "<div><p>The story.</p></div><div><p><b>What readers say (2)</b></p>\
            <div><p><i>ann:</i></p><p>First.</p></div></div><p>Footer</p>";
        let got = discussion_lines(html);
        let marked: Vec<&str> = got.iter().filter(|l| l.1).map(|l| l.0.as_str()).collect();
        assert_eq!(marked, ["What readers say (2)", "ann:", "First."]);
    }

    #[test]
    fn a_comment_count_widget_is_not_a_discussion_heading_for_the_article() {
        // Advance Local's sites (gulflive, al.com, nola…) put a count widget at the top of
        // the article's wrapper: only the widget itself is the "discussion".
        let html = "<div id=\"article\"><div class=\"wrapper\"><div class=\"CommentCount\">\
            <a href=\"#comments\"><span></span></a><div class=\"label\">12 comments</div></div>\
            <h1>A headline</h1><p>The story's first paragraph.</p><p>Its second.</p></div></div>";
        let got = discussion_lines(html);
        assert!(got.iter().all(|l| !l.1 || l.0 == "12 comments"), "{got:?}");
        assert!(got.iter().any(|l| l.0 == "Its second."));
        // Wrappers around the heading alone, each closing in turn (youbeauty.com's
        // `div.comments_link > div.head > h4`): the page's related stories after them are
        // not the discussion.
        let html = "<div class=\"page\"><p>The story.</p><div class=\"w1\"><div class=\"w2\">\
            <h4>Join the Conversation<div class=\"fb\"><br></div></h4></div></div>\
            <div><p>Stories We Love</p></div></div>";
        let got = discussion_lines(html);
        assert!(
            got.iter().all(|l| !l.1 || l.0 == "Join the Conversation"),
            "{got:?}"
        );
        assert!(got.iter().any(|l| l.0 == "Stories We Love"));
        // A heading element that counts the comments, wrapped alone, the thread beside the
        // wrapper (a React site's components): the thread is the discussion, the story
        // above is not, and neither is what follows the wrappers' parent.
        let html = "<div><p>The story.</p></div><div class=\"sc-a\"><div class=\"sc-b\">\
            <h3>2 Comments</h3></div><div class=\"sc-c\"><div><strong>ann</strong> · 2h</div>\
            <p>First.</p></div></div><p>Footer</p>";
        let got = discussion_lines(html);
        let marked: Vec<&str> = got.iter().filter(|l| l.1).map(|l| l.0.as_str()).collect();
        assert_eq!(marked, ["2 Comments", "ann · 2h", "First."], "{got:?}");
        // Three wrappers are one too many: the heading alone is marked.
        let html = "<div><p>The story.</p><div><div><div><h3>2 Comments</h3></div></div></div>\
            <p>Related: another story.</p></div>";
        let got = discussion_lines(html);
        let marked: Vec<&str> = got.iter().filter(|l| l.1).map(|l| l.0.as_str()).collect();
        assert_eq!(marked, ["2 Comments"], "{got:?}");
        // A heading that is a link (a count in a byline, a manual's anchor) names nothing;
        // nor does a numbered section.
        for html in [
            "<div><h2><a href=\"#c\">12 Comments</a></h2><p>Text.</p></div>",
            "<div><h2>2.7 Comments</h2><p>A comment starts with #.</p></div>",
            "<div><h2>Comments</h2><p>A comment starts with #.</p></div>",
            "<table><tr><th><p>Reader comments (3)</p></th></tr><tr><td>x</td></tr></table>",
            "<div><p>Posted by ann, with 3 comments on the story so far</p><p>Text.</p></div>",
        ] {
            let got = discussion_lines(html);
            assert!(got.iter().all(|l| !l.1), "{html}: {got:?}");
        }
    }

    #[test]
    fn known_names_classify_case_insensitively() {
        assert_eq!(Known::classify(b"div"), Known::Div);
        assert_eq!(Known::classify(b"DiV"), Known::Div);
        assert_eq!(Known::classify(b"blockquote"), Known::Blockquote);
        assert_eq!(Known::classify(b"divx"), Known::Other);
        assert_eq!(Known::classify(b"d"), Known::Other);
        assert_eq!(Known::classify(b"averyveryverylongname"), Known::Other);
        assert_eq!(Known::classify("dív".as_bytes()), Known::Other);
        assert_eq!(Known::classify(b"option"), Known::Option);
    }

    #[test]
    fn scripts_styles_and_hidden_containers_are_dropped() {
        let html = "<html><head><style>p{color:red}</style><script>var a = '<p>no</p>';</script>\
            </head><body><p>Hello</p><noscript>enable js</noscript>\
            <template><p>tpl</p></template><svg><text>svgtext</text><title>tip</title></svg>\
            <math><mi>x</mi></math><select><option>opt</option></select>\
            <!-- a comment --><p>World</p><input type=hidden value=secret></body></html>";
        assert_eq!(text(html), "Hello\n\nWorld");
    }

    #[test]
    fn script_with_markup_inside_does_not_leak() {
        let html = "<script>document.write('</div><p>leak</p>'); if (a<b) {}</script>ok";
        assert_eq!(text(html), "ok");
    }

    #[test]
    fn entities_are_decoded() {
        assert_eq!(
            text("<p>Fish &amp; Chips &lt;3 &eacute;t&#233; &#x4e2d;&nbsp;x &copy</p>"),
            "Fish & Chips <3 été 中 x ©"
        );
    }

    #[test]
    fn block_elements_end_lines_and_inline_ones_do_not() {
        let html = "<div>one <b>bold</b> <a href=x>link</a></div><div>two<br>three</div>\
            <ul><li>a</li><li>b</li></ul><table><tr><td>c1</td><td>c2</td></tr>\
            <tr><td>d1</td><td>d2</td></tr></table><h2>Head</h2>tail";
        assert_eq!(
            text(html),
            "one bold link\ntwo\nthree\na\nb\n\nc1 c2\nd1 d2\n\nHead\n\ntail"
        );
    }

    #[test]
    fn whitespace_collapses_and_blank_lines_are_bounded() {
        let html = "<p>  lots   of\n\n   space\t\there </p><p></p><p></p><div></div><p>next</p>";
        assert_eq!(text(html), "lots of space here\n\nnext");
    }

    #[test]
    fn control_characters_and_ansi_escapes_are_removed() {
        let html = "<p>\u{1b}[31mred\u{1b}[0m &#27;[2J\u{9b}x\u{7}\u{0}y</p>";
        let t = text(html);
        assert!(!t.chars().any(|c| c.is_control()), "{t:?}");
        // Whole sequences go, parameters and all: ESC [31m, ESC [0m, the ESC of `&#27;` with
        // the `[2J` after it (two pushes of the scanner), and U+009B x (a complete CSI).
        assert_eq!(t, "red y");
    }

    #[test]
    fn textarea_and_pre_are_rendered() {
        assert_eq!(
            text("<textarea>typed &amp; text</textarea>"),
            "typed & text"
        );
        assert_eq!(
            text("<pre>line 1\n  line 2</pre>after"),
            "line 1\nline 2\n\nafter"
        );
        assert_eq!(
            text("<pre>crlf 1\r\ncrlf 2\rcr 3\n\rend</pre>"),
            "crlf 1\ncrlf 2\ncr 3\nend"
        );
    }

    #[test]
    fn title_and_first_h1_are_captured() {
        let v = both(
            "<title>  The\n Title &amp; more </title><svg><title>no</title></svg>\
             <h1></h1><h1>First <i>H1</i></h1><h1>Second</h1><title>later</title>",
            VisibleLimits::default(),
        );
        assert_eq!(v.title, "The Title & more");
        assert_eq!(v.first_h1, "First H1");
        assert!(!v.text.contains("later"));
        assert!(!v.text.contains("The Title"));
    }

    #[test]
    fn elements_hidden_by_attributes_are_dropped_until_their_end() {
        assert_eq!(
            text("<div hidden><div>in</div>still hidden</div>shown"),
            "shown"
        );
        assert_eq!(
            text("a<span style=\"color:red; DISPLAY : none !important\">x</span>b"),
            "ab"
        );
        assert_eq!(text("<ul style='visibility:hidden'><li>menu</ul>c"), "c");
        assert_eq!(text("<div style='display:block'>d</div>"), "d");
        // Optional end tags are not trusted: an unclosed `<p hidden>` would hide everything.
        assert_eq!(text("<p hidden>p<p>q"), "p\n\nq");
        assert_eq!(text("<div hidden><div hidden>x</div>y</div>z"), "z");
        // The first of duplicate attributes counts; references in values are decoded.
        assert_eq!(
            text("<div style=display:block style=display:none>d</div>"),
            "d"
        );
        assert_eq!(text("<div style='display&colon;none'>d</div>e"), "e");
        assert_eq!(text("<div STYLE=\"display: none\">d</div>e"), "e");
    }

    #[test]
    fn nested_svg_is_hidden_until_its_end() {
        assert_eq!(text("<svg><svg></svg>in</svg>out"), "out");
        assert_eq!(text("<svg><![CDATA[x<y]]></svg>ok"), "ok");
        // In HTML content it is a bogus comment, ending at the first `>`.
        assert_eq!(text("<p><![CDATA[x<y]]>ok"), "ok");
    }

    #[test]
    fn tag_budget_truncates() {
        let html = "<b>w</b>".repeat(1000);
        let v = both(
            &html,
            VisibleLimits {
                max_tags: 100,
                max_text_bytes: usize::MAX,
            },
        );
        assert!(v.truncated);
        assert!(v.text.len() < 100);
        assert!(!both(&html, VisibleLimits::default()).truncated);
    }

    #[test]
    fn text_budget_truncates() {
        let html = "<h1>".to_string() + &"word ".repeat(100) + "</h1><p>more";
        let v = both(
            &html,
            VisibleLimits {
                max_tags: 100,
                max_text_bytes: 50,
            },
        );
        assert!(v.truncated);
        assert!(v.text.len() <= 50);
    }

    #[test]
    fn deep_nesting_is_counted_not_recursed() {
        let html = "<div>".repeat(200_000) + "deep";
        let v = both(&html, VisibleLimits::default());
        assert_eq!(v.text, "deep");
        assert_eq!(v.max_depth, 200_000);
    }

    #[test]
    fn depth_estimate_follows_the_tree_builder_roughly() {
        let depth = |html: &str| both(html, VisibleLimits::default()).max_depth;
        assert_eq!(depth("<div><p>a<p>b<p>c</div><div></div>"), 2);
        assert_eq!(depth("<ul><li>a<li>b<li>c</ul>"), 2);
        assert_eq!(depth("<table><tr><td>1<td>2<tr><td>3</table>"), 3);
        // Stray end tags close nothing; self-closing HTML elements still open.
        assert_eq!(depth(&"<b>x</x>".repeat(1000)), 1000);
        assert_eq!(depth(&"<div/>".repeat(1000)), 1000);
        assert_eq!(depth(&"<img><br><input>".repeat(1000)), 0);
        assert_eq!(depth("<svg><path/><path/></svg>"), 1);
        // Unknown names pair up case-insensitively.
        assert_eq!(depth("<my-el><My-El></MY-EL></my-el><x-y>"), 2);
    }

    #[test]
    fn unterminated_constructs_do_not_panic() {
        for html in [
            "<script>never closed",
            "<!-- never closed",
            "<title>t",
            "<p class='x",
            "<svg><title>",
            "&#xFFFFFFFF; &#0; &#x110000;",
            "<plaintext><p>shown</p>",
            "</br></p></svg></title>",
        ] {
            let v = both(html, VisibleLimits::default());
            assert!(!v.text.chars().any(|c| c.is_control() && c != '\n'));
        }
        assert_eq!(text("<plaintext><p>shown</p>"), "<p>shown</p>");
    }
}
