//! Visible text of an HTML page: what a browser would render, as plain lines.
//!
//! Runs the `html5ever` tokenizer only (no tree: the tree builder costs several times more
//! and its open-element stack is what deep nesting attacks). The sink keeps just enough state
//! to know whether text is rendered: which raw-text element it is in (`script`, `style`,
//! `title`…, switched explicitly because without a tree builder nobody else tells the
//! tokenizer) and a small stack of hidden subtrees: `template`, `svg`, `math`, `select`,
//! `object`, and elements with a required end tag that are hidden by a `hidden` attribute or
//! an inline `display:none` / `visibility:hidden` style (menus, modals, keyword stuffing).
//! Elements whose end tag is optional (`p`, `li`…) are not hidden by attributes: without a
//! tree builder an unclosed one would hide the rest of the page. Everything a `<head>` holds
//! is raw text or void (`title`, `script`, `style`, `meta`…), so no head rule is needed; stray
//! text in a head is kept, because browsers move it into the body and render it.
//! Block elements end lines, `p` and headings end paragraphs, table cells are separated by a
//! space. The same pass captures the `<title>` and the first `<h1>` (the title fallback), and
//! counts elements and nesting depth so the caller can decide whether a tree build is safe.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{local_name, LocalName, TokenizerResult};

use super::lines::LineBuilder;

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
#[derive(Debug, Clone, Default)]
pub struct Visible {
    pub text: String,
    /// The first `<title>`, white space collapsed (empty when there is none).
    pub title: String,
    /// The text of the first non-empty `<h1>`.
    pub first_h1: String,
    /// A budget of [`VisibleLimits`] ran out: `text` is a prefix of the page's text.
    pub truncated: bool,
    /// Start tags seen.
    pub elements: usize,
    /// Deepest nesting of elements, estimated with a stack of open element names that
    /// mimics the tree builder's implied end tags for siblings (`p`, `li`, `td`…) and ignores
    /// end tags that close nothing, so stray `</x>` cannot hide real depth.
    pub max_depth: usize,
}

/// Longest title kept, in bytes.
const MAX_TITLE_BYTES: usize = 2048;
/// Deepest hidden-container nesting tracked; deeper ones are still hidden by their parent.
const MAX_HIDDEN_STACK: usize = 256;

/// Extracts the visible text of `html`.
pub fn visible_text(html: &str, limits: VisibleLimits) -> Visible {
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

struct State {
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
    hidden: Vec<(LocalName, usize)>,
    pre_depth: usize,
    tags: usize,
    limits: VisibleLimits,
    exhausted: bool,
    open: Vec<LocalName>,
    /// Open elements beyond [`MAX_OPEN_TRACKED`], counted but not named.
    open_overflow: usize,
    max_depth: usize,
}

impl State {
    fn new(html_len: usize, limits: VisibleLimits) -> Self {
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
        }
    }

    fn finish(self) -> Visible {
        let truncated = self.exhausted || self.text.truncated();
        Visible {
            text: self.text.finish(),
            title: self.title.finish(),
            first_h1: self.h1.finish(),
            truncated,
            elements: self.tags,
            max_depth: self.max_depth,
        }
    }

    fn characters(&mut self, chars: &str) {
        match self.raw {
            Some(RawUse::Skip) => return,
            Some(RawUse::Title) => {
                self.title.push_str(chars);
                return;
            }
            Some(RawUse::Show) | None => {}
        }
        if !self.hidden.is_empty() {
            return;
        }
        self.text.push_str(chars);
        if self.in_h1 {
            self.h1.push_str(chars);
        }
    }

    /// Handles one tag; returns what the tokenizer must do next.
    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        self.tags += 1;
        if self.tags > self.limits.max_tags || self.text.truncated() {
            self.exhausted = true;
            return TokenSinkResult::Script(());
        }
        match tag.kind {
            TagKind::StartTag => self.start_tag(tag),
            TagKind::EndTag => {
                self.end_tag(&tag.name);
                TokenSinkResult::Continue
            }
        }
    }

    fn start_tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name = &tag.name;
        if let Some(kind) = raw_kind(name) {
            if tag.self_closing {
                return TokenSinkResult::Continue;
            }
            let is_title = *name == local_name!("title");
            // A `<title>` inside `<svg>` is an SVG tooltip: not raw text, not the page title.
            if is_title && !self.hidden.is_empty() {
                return TokenSinkResult::Continue;
            }
            self.raw = Some(if is_title {
                if self.title_seen {
                    RawUse::Skip
                } else {
                    self.title_seen = true;
                    RawUse::Title
                }
            } else if *name == local_name!("textarea") || *name == local_name!("xmp") {
                self.text.line_break();
                RawUse::Show
            } else {
                RawUse::Skip
            });
            return TokenSinkResult::RawData(kind);
        }
        if *name == local_name!("plaintext") {
            self.text.line_break();
            return TokenSinkResult::Plaintext;
        }
        // In HTML `<div/>` opens a div like `<div>` does; only foreign (svg) content knows `/>`.
        let opens = if self.hidden.is_empty() {
            !is_void(name)
        } else {
            !is_void(name) && !tag.self_closing
        };
        if opens {
            self.open_element(name);
        }
        if let Some(top) = self.hidden.last_mut() {
            if top.0 == *name && opens {
                top.1 += 1;
                return TokenSinkResult::Continue;
            }
        }
        let hides = if is_hidden_container(name) {
            !tag.self_closing
        } else {
            opens && has_required_end_tag(name) && hidden_by_attributes(tag)
        };
        if hides {
            if self.hidden.len() < MAX_HIDDEN_STACK {
                self.hidden.push((name.clone(), 0));
            }
            return TokenSinkResult::Continue;
        }
        self.layout(name, true);
        TokenSinkResult::Continue
    }

    fn end_tag(&mut self, name: &LocalName) {
        self.close_element(name);
        if self.raw.is_some() && raw_kind(name).is_some() {
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
        self.layout(name, false);
    }

    /// Tracks nesting depth: siblings that imply the end of their predecessor close it first.
    fn open_element(&mut self, name: &LocalName) {
        if closes_same_sibling(name) {
            let window = self.open.len().saturating_sub(SIBLING_WINDOW);
            if let Some(at) = self.open[window..].iter().rposition(|n| n == name) {
                self.open.truncate(window + at);
            }
        }
        if self.open.len() < MAX_OPEN_TRACKED {
            self.open.push(name.clone());
        } else {
            self.open_overflow += 1;
        }
        self.max_depth = self.max_depth.max(self.open.len() + self.open_overflow);
    }

    /// An end tag closes the innermost open element of its name, if one is near the top;
    /// an end tag that matches nothing is ignored, as the tree builder does.
    fn close_element(&mut self, name: &LocalName) {
        if self.open_overflow > 0 {
            self.open_overflow -= 1;
            return;
        }
        let window = self.open.len().saturating_sub(END_TAG_WINDOW);
        if let Some(at) = self.open[window..].iter().rposition(|n| n == name) {
            self.open.truncate(window + at);
        }
    }

    /// Line structure of rendered elements (start and end tags alike).
    fn layout(&mut self, name: &LocalName, start: bool) {
        match *name {
            local_name!("br") => self.text.line_break(),
            local_name!("p")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("blockquote")
            | local_name!("table") => self.text.paragraph_break(),
            local_name!("h1") => {
                self.text.paragraph_break();
                if start && !self.h1_done && self.hidden.is_empty() {
                    self.in_h1 = true;
                } else if !start && self.in_h1 {
                    self.in_h1 = false;
                    self.h1_done = !self.h1.is_empty();
                }
            }
            local_name!("pre") => {
                self.text.paragraph_break();
                self.pre_depth = if start {
                    self.pre_depth + 1
                } else {
                    self.pre_depth.saturating_sub(1)
                };
                self.text.set_preformatted(self.pre_depth > 0);
            }
            local_name!("td") | local_name!("th") => self.text.space(),
            ref n if is_block(n) => self.text.line_break(),
            _ => {}
        }
    }
}

/// How deep an element's own end tag searches the open elements (misnesting is local).
const END_TAG_WINDOW: usize = 16;
/// How deep a sibling that implies its predecessor's end searches for it.
const SIBLING_WINDOW: usize = 4;
/// Open element names kept; deeper nesting is only counted.
const MAX_OPEN_TRACKED: usize = 1 << 16;

/// Elements whose start tag ends an open element of the same name (`<li>a<li>b`).
fn closes_same_sibling(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("p")
            | local_name!("li")
            | local_name!("dt")
            | local_name!("dd")
            | local_name!("option")
            | local_name!("tr")
            | local_name!("td")
            | local_name!("th")
            | local_name!("a")
    )
}

/// Tokenizer state for elements whose content is raw text, as the HTML tree builder would
/// switch it (scripting enabled, so `noscript` is raw text too).
fn raw_kind(name: &LocalName) -> Option<RawKind> {
    match *name {
        local_name!("script") => Some(RawKind::ScriptData),
        local_name!("style")
        | local_name!("noscript")
        | local_name!("iframe")
        | local_name!("noembed")
        | local_name!("noframes")
        | local_name!("xmp") => Some(RawKind::Rawtext),
        local_name!("title") | local_name!("textarea") => Some(RawKind::Rcdata),
        _ => None,
    }
}

/// Elements whose whole subtree is never rendered as text.
fn is_hidden_container(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("template")
            | local_name!("svg")
            | local_name!("math")
            | local_name!("object")
            | local_name!("select")
            | local_name!("datalist")
    )
}

/// Elements whose end tag may not be omitted, so their subtree ends where the author says.
fn has_required_end_tag(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("div")
            | local_name!("span")
            | local_name!("section")
            | local_name!("nav")
            | local_name!("aside")
            | local_name!("article")
            | local_name!("header")
            | local_name!("footer")
            | local_name!("main")
            | local_name!("ul")
            | local_name!("ol")
            | local_name!("dl")
            | local_name!("form")
            | local_name!("table")
            | local_name!("figure")
            | local_name!("blockquote")
            | local_name!("a")
            | local_name!("button")
            | local_name!("label")
            | local_name!("dialog")
            | local_name!("fieldset")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
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

fn style_hides(style: &str) -> bool {
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
fn is_block(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("address")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("body")
            | local_name!("caption")
            | local_name!("center")
            | local_name!("dd")
            | local_name!("details")
            | local_name!("dialog")
            | local_name!("dir")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("dt")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("form")
            | local_name!("frameset")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("hr")
            | local_name!("html")
            | local_name!("legend")
            | local_name!("li")
            | local_name!("listing")
            | local_name!("main")
            | local_name!("menu")
            | local_name!("nav")
            | local_name!("ol")
            | local_name!("option")
            | local_name!("section")
            | local_name!("summary")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("thead")
            | local_name!("tr")
            | local_name!("ul")
    )
}

/// Elements that never have content or an end tag.
fn is_void(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("area")
            | local_name!("base")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("input")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("param")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
    )
}

struct Sink {
    state: RefCell<State>,
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
            Token::TagToken(tag) => state.tag(&tag),
            Token::DoctypeToken(_)
            | Token::CommentToken(_)
            | Token::NullCharacterToken
            | Token::EOFToken
            | Token::ParseError(_) => TokenSinkResult::Continue,
        }
    }

    /// Inside `<svg>`/`<math>`, `<![CDATA[…]]>` is a CDATA section, not a bogus comment.
    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.state
            .borrow()
            .hidden
            .last()
            .is_some_and(|top| top.0 == local_name!("svg") || top.0 == local_name!("math"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(html: &str) -> String {
        visible_text(html, VisibleLimits::default()).text
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
        assert_eq!(t, "[31mred[0m [2Jxy");
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
    }

    #[test]
    fn title_and_first_h1_are_captured() {
        let v = visible_text(
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
    }

    #[test]
    fn nested_svg_is_hidden_until_its_end() {
        assert_eq!(text("<svg><svg></svg>in</svg>out"), "out");
        assert_eq!(text("<svg><![CDATA[x<y]]></svg>ok"), "ok");
    }

    #[test]
    fn tag_budget_truncates() {
        let html = "<b>w</b>".repeat(1000);
        let v = visible_text(
            &html,
            VisibleLimits {
                max_tags: 100,
                max_text_bytes: usize::MAX,
            },
        );
        assert!(v.truncated);
        assert!(v.text.len() < 100);
        assert!(!visible_text(&html, VisibleLimits::default()).truncated);
    }

    #[test]
    fn deep_nesting_is_counted_not_recursed() {
        let html = "<div>".repeat(200_000) + "deep";
        let v = visible_text(&html, VisibleLimits::default());
        assert_eq!(v.text, "deep");
        assert_eq!(v.max_depth, 200_000);
    }

    #[test]
    fn depth_estimate_follows_the_tree_builder_roughly() {
        let depth = |html: &str| visible_text(html, VisibleLimits::default()).max_depth;
        assert_eq!(depth("<div><p>a<p>b<p>c</div><div></div>"), 2);
        assert_eq!(depth("<ul><li>a<li>b<li>c</ul>"), 2);
        assert_eq!(depth("<table><tr><td>1<td>2<tr><td>3</table>"), 3);
        // Stray end tags close nothing; self-closing HTML elements still open.
        assert_eq!(depth(&"<b>x</x>".repeat(1000)), 1000);
        assert_eq!(depth(&"<div/>".repeat(1000)), 1000);
        assert_eq!(depth(&"<img><br><input>".repeat(1000)), 0);
        assert_eq!(depth("<svg><path/><path/></svg>"), 1);
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
            let v = visible_text(html, VisibleLimits::default());
            assert!(!v.text.chars().any(|c| c.is_control() && c != '\n'));
        }
        assert_eq!(text("<plaintext><p>shown</p>"), "<p>shown</p>");
    }
}
