//! Structure signals of the visible text's blocks, taken while the page's markup is at hand
//! (the visible-text pass) for the per-page content text ([`super::content::per_page`]),
//! which otherwise sees only the stored lines: how much of a block is link text, and
//! whether it sits in a container that names itself navigation, footer, sharing, cookie
//! notice, related links, newsletter or comments.
//!
//! The rules are the published extractors' own:
//! - *Link density*: jusText (`justext/core.py`, `classify_paragraphs`) calls a block bad
//!   when more than `max_link_density` = 0.2 of its characters are inside `<a>`, and a short
//!   block (under `length_low`) bad when it holds any link text at all.
//! - *Containers by element*: trafilatura removes `nav`, `aside`, `footer`, `menu` and
//!   `form` before it looks for text (`MANUALLY_CLEANED` in `trafilatura/settings.py`) and
//!   `header` in its precision mode (`PRECISION_DISCARD_XPATH` in `trafilatura/xpaths.py`).
//! - *Containers by `class`/`id`/`role`*: trafilatura's `OVERALL_DISCARD_XPATH` (footer,
//!   related, share, social, newsletter, cookie, consent, sidebar, menu, nav, breadcrumb,
//!   widget, outbrain, taboola, most-popular…), `TEASER_DISCARD_XPATH` (teaser) and
//!   `REMOVE_COMMENTS_XPATH` (comment…), and readability's `unlikelyCandidates`, with its
//!   `okMaybeItsACandidate` guard (a class that also says article, content, main or body is
//!   not unlikely) applied to the words that name a place on the page (footer, sidebar,
//!   menu…), not to those that name a kind of text (related, share, cookie…).
//!
//! The pass records where in the text the flags change ([`Marks`]); [`block_signals`] turns
//! that into one [`BlockSignal`] per non-empty line, the unit of the content text. They are
//! stored beside the document ([`encode`]/[`decode`]); a page whose blocks carry no signal
//! stores nothing, which reads back as all zeros, as a page stored before the signals does.

/// Inside an `<a>`.
pub const LINK: u8 = 1;
/// Inside `<nav>`, `<aside>`, `<footer>` or `<menu>`.
pub const NAV: u8 = 2;
/// Inside `<header>`.
pub const HEADER: u8 = 4;
/// Inside an element whose `class`, `id` or `role` names boilerplate.
pub const MARKED: u8 = 8;
/// Inside `<form>`.
pub const FORM: u8 = 16;
/// Inside `<article>`, `<main>`, or an element whose `class`/`id` names the article body
/// (trafilatura's `BODY_XPATH`: `article-body`, `entry-content`, `story-body`…).
pub const ARTICLE: u8 = 32;
/// Inside a block container whose `class` or `id` names a reader discussion (`comments`,
/// `comment-list`, `disqus_thread`; not `commentary`, a kind of article), or after a heading
/// that names one, to the end of the heading's parent ([`heading_names_discussion`],
/// [`Marks::add_discussion`]). Always given with
/// [`MARKED`]; the across-pages content text drops these blocks too
/// ([`super::content::content_text_with`]): a page's discussion is its own, so the site's
/// template counts never remove it.
pub const DISCUSSION: u8 = 64;

/// A link holding at least this many bytes of text is not counted as link text: it is a
/// story placed inside a link (a teaser slot of a template holding a whole article), not a
/// link to another page. Anchors name a page; teasers add a summary: on news-v2 (whole and
/// single, 966 pages) the longest anchor texts that are not a story are coolhunting's teasers
/// of 301–422 characters, and the shortest story inside a link is 902 (BENCHMARKS.md, issue
/// 14 session 5). trafilatura's `link_density_test` (`htmlprocessing.py`) likewise judges
/// only short elements (under 100 characters, 300 for the last of its parent; paragraphs
/// under 30–60): longer text is never dropped for its links.
pub const LONG_LINK_BYTES: usize = 800;

/// One block's (non-empty line's) structure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockSignal {
    /// Share of the block's bytes inside links, in 255ths.
    pub link: u8,
    /// The container bits ([`NAV`], [`HEADER`], [`MARKED`], [`FORM`]) that hold at least
    /// half of the block's bytes.
    pub flags: u8,
}

impl BlockSignal {
    /// The block's link density (0 to 1).
    pub fn link_density(self) -> f64 {
        f64::from(self.link) / 255.0
    }
}

/// Where the flags change in a text being built: `(byte offset, flags from there on)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    changes: Vec<(u32, u8)>,
    current: u8,
    /// Byte ranges of the text that a heading names a reader discussion
    /// ([`heading_names_discussion`]): from the heading to the end of its parent element.
    /// Their lines are [`DISCUSSION`] and [`MARKED`] as a named container's are.
    discussions: Vec<(u32, u32)>,
}

impl Marks {
    /// The flags are `flags` from byte `at` of the text on.
    #[inline]
    pub fn set(&mut self, at: usize, flags: u8) {
        if flags == self.current {
            return;
        }
        self.current = flags;
        let at = u32::try_from(at).unwrap_or(u32::MAX);
        match self.changes.last_mut() {
            Some(last) if last.0 == at => last.1 = flags,
            _ => self.changes.push((at, flags)),
        }
    }

    pub fn current(&self) -> u8 {
        self.current
    }

    /// Bytes of `from..to` that carry `bit` (the last change before `from` counts).
    pub fn bytes_with(&self, bit: u8, from: usize, to: usize) -> usize {
        // The changes are in text order: start at the last one at or before `from`.
        let first = self
            .changes
            .partition_point(|&(change, _)| change as usize <= from);
        let mut flags = first.checked_sub(1).map_or(0, |i| self.changes[i].1);
        let mut at = from;
        let mut n = 0;
        for &(change, f) in &self.changes[first..] {
            let change = change as usize;
            if change >= to {
                break;
            }
            if flags & bit != 0 {
                n += change - at;
            }
            at = change;
            flags = f;
        }
        if flags & bit != 0 && to > at {
            n += to - at;
        }
        n
    }

    /// Records bytes `from..to` of the text as a reader discussion that a heading named
    /// (at most [`MAX_DISCUSSIONS`] a page: a hostile page of many headings stays linear).
    pub fn add_discussion(&mut self, from: usize, to: usize) {
        if to > from && self.discussions.len() < MAX_DISCUSSIONS {
            let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
            self.discussions.push((clamp(from), clamp(to)));
        }
    }

    /// Clears `bits` from byte `at` of the text on (a link found, at its end, to be a story).
    pub fn clear_since(&mut self, at: usize, bits: u8) {
        let at = u32::try_from(at).unwrap_or(u32::MAX);
        for change in self.changes.iter_mut().rev() {
            if change.0 < at {
                break;
            }
            change.1 &= !bits;
        }
        self.current &= !bits;
    }
}

/// One signal per non-empty line of `text`, from the flag changes recorded while it was
/// built. Empty when no byte of the text carries a flag.
pub fn block_signals(text: &str, marks: &Marks) -> Vec<BlockSignal> {
    let changes = &marks.changes;
    if changes.is_empty() && marks.discussions.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut any = false;
    // `next` is the first change after the line's start; `flags` those in force there.
    let mut next = 0;
    let mut flags = 0u8;
    let mut start = 0usize;
    for line in text.split('\n') {
        let end = start + line.len();
        if !line.is_empty() {
            while next < changes.len() && (changes[next].0 as usize) <= start {
                flags = changes[next].1;
                next += 1;
            }
            // Bytes of the line under each bit.
            let mut per_bit = [0usize; 7];
            let mut at = start;
            let mut f = flags;
            let mut k = next;
            loop {
                let until = changes
                    .get(k)
                    .map_or(end, |c| (c.0 as usize).min(end))
                    .max(at);
                for (bit, n) in per_bit.iter_mut().enumerate() {
                    if f & (1 << bit) != 0 {
                        *n += until - at;
                    }
                }
                at = until;
                if at >= end || k >= changes.len() {
                    break;
                }
                f = changes[k].1;
                k += 1;
            }
            let len = line.len();
            let link = (per_bit[0] * 255 / len) as u8;
            let mut held = 0u8;
            for (bit, &n) in per_bit.iter().enumerate().skip(1) {
                if 2 * n >= len {
                    held |= 1 << bit;
                }
            }
            let in_discussion: usize = marks
                .discussions
                .iter()
                .map(|&(from, to)| {
                    (to as usize)
                        .min(end)
                        .saturating_sub((from as usize).max(start))
                })
                .sum();
            if 2 * in_discussion >= len {
                held |= DISCUSSION | MARKED;
            }
            any |= link > 0 || held != 0;
            out.push(BlockSignal { link, flags: held });
        }
        start = end + 1;
    }
    if any {
        out
    } else {
        Vec::new()
    }
}

/// The container bit an element gives by its name alone.
pub(crate) fn element_bits(known: super::visible::Known) -> u8 {
    use super::visible::Known;
    match known {
        Known::Nav | Known::Aside | Known::Footer | Known::Menu => NAV,
        Known::Header => HEADER,
        Known::Form => FORM,
        Known::Article | Known::Main => ARTICLE,
        _ => 0,
    }
}

/// Words that name a kind of text no article is made of: marked wherever they appear in
/// a class or id word.
const KIND_WORDS: &[&str] = &[
    "related",
    "share",
    "sharing",
    "social",
    "sociable",
    "newsletter",
    "subscribe",
    "signup",
    "cookie",
    "consent",
    "gdpr",
    "comment",
    "disqus",
    "breadcrumb",
    "bread-crumb",
    "outbrain",
    "taboola",
    "most-popular",
    "mostpopular",
    "trending",
    "teaser",
    "promo",
    "sponsor",
    "syndication",
];

/// Words that name a reader discussion ([`DISCUSSION`]; they are [`KIND_WORDS`] too), unless
/// the word goes on into [`NOT_DISCUSSION`].
const DISCUSSION_WORDS: &[&str] = &["comment", "disqus"];

/// Words that hold a [`DISCUSSION_WORDS`] keyword and name no discussion: a news site's
/// opinion pieces (`commentary`, `commentaire`, `commentator`) are stories, and a state of
/// the article (`commented`, `comments-open`, `has-comments`: Kinja's
/// `<article class="post hentry … commented">` around a whole Lifehacker story on news-v2
/// whole) or a count or link in its byline says nothing of what the container holds. (They
/// stay [`MARKED`], as readability's and trafilatura's `comment` rules have them.)
const NOT_DISCUSSION: &[&str] = &[
    "commentar",
    "commentat",
    "commented",
    "commentable",
    "comments-open",
    "comments-closed",
    "comments-on",
    "comments-off",
    "comments-enabled",
    "comments-disabled",
    "comment-count",
    "comments-count",
    "commentcount",
    "commentscount",
    "comment-link",
    "comments-link",
    "has-comment",
    "no-comment",
];

/// Most discussions a heading names that one page records ([`Marks::add_discussion`]).
pub const MAX_DISCUSSIONS: usize = 32;

/// Longest heading (bytes) that can name a discussion: WordPress's "12 thoughts on “…”"
/// carries the story's title.
pub const MAX_DISCUSSION_HEADING: usize = 200;

/// Plural nouns that name readers' comments, in the languages of the content text's
/// stopword lists and a few more (whole words of the lowercased heading). Alone they head
/// manual sections and table columns too ("Comments" in qmake's manual, a "Comments" column
/// of the kernel's ioctl table): they name a discussion beside a count ("Comments (12)",
/// "3 commentaires") or a word of [`DISCUSSION_QUALIFIERS`] ("Reader comments").
const COMMENT_NOUNS: &[&str] = &[
    "comments",
    "kommentare",
    "kommentaren",
    "kommentarer",
    "leserkommentare",
    "commentaires",
    "comentarios",
    "comentários",
    "commenti",
    "reacties",
    "комментарии",
    "комментариев",
    "комментария",
    "komentarze",
    "komentarzy",
    "komentáře",
    "yorumlar",
    "تعليقات",
    "التعليقات",
];

/// Singular nouns of readers' comments (and those a count takes in some languages:
/// "5 yorum", "21 комментарий"): only beside a count with no other word ("1 comment",
/// "Kommentar (1)"), since the singular is also a programmer's word ("Special comment
/// blocks", "21 /* comment block") and French for "how" ("Comment ça marche").
const COMMENT_NOUNS_SINGULAR: &[&str] = &[
    "comment",
    "kommentar",
    "commentaire",
    "comentario",
    "comentário",
    "commento",
    "reactie",
    "комментарий",
    "komentarz",
    "komentar",
    "yorum",
    "تعليق",
];

/// Nouns that name a discussion only beside a count ("12 responses", "Replies (3)",
/// "4 thoughts on “…”"): alone they head sections of articles.
const REPLY_NOUNS: &[&str] = &[
    "responses",
    "replies",
    "reactions",
    "réactions",
    "reacciones",
    "respuestas",
    "risposte",
    "antworten",
    "thoughts",
    // "Conversation (6)": a count beside it; alone ("The Conversation", a publisher; "Join
    // the conversation" is a phrase below) it names nothing.
    "conversation",
    "conversations",
];

/// Words that, beside a plural comment noun in a heading of at most three words, make it
/// a discussion's ("Reader comments", "Show all comments", "No comments yet").
const DISCUSSION_QUALIFIERS: &[&str] = &[
    "reader", "readers", "user", "users", "your", "latest", "recent", "top", "all", "show", "view",
    "read", "load", "hide", "post", "add", "no", "yet", "alle", "tous", "les", "todos", "los",
    "tutti", "i", "lezers",
];

/// Words after "N thoughts"/"N comments" that go on to the story's title ("on “…”").
const TITLE_PREPOSITIONS: &[&str] = &[
    "on", "to", "for", "about", "zu", "sur", "su", "a", "para", "en", "op", "на", "к",
];

/// Comment nouns in scripts written without spaces: matched in a heading of at most
/// [`SHORT_UNSPACED_HEADING`] characters, at most [`UNSPACED_QUALIFIER_CHARS`] characters
/// after its start ("评论 (3)", "コメント一覧", "댓글 5개", "网友评论").
const UNSPACED_COMMENT_NOUNS: &[&str] = &["评论", "評論", "留言", "コメント", "댓글"];

/// Characters of a heading in a script without spaces that names a discussion (a sentence
/// that mentions comments is longer: "「#」で始まる行はコメントで無視されます。").
const SHORT_UNSPACED_HEADING: usize = 10;

/// Characters a qualifier before an unspaced comment noun may take ("网友评论", "最新评论"):
/// a manual's heading that ends in the noun is a phrase about something else
/// ("引用概述中的评论:", a Chinese kernel manual's "comments in the citation overview").
const UNSPACED_QUALIFIER_CHARS: usize = 2;

/// Headings that open a discussion or its form in words without a comment noun (their
/// start, lowercased).
const DISCUSSION_PHRASES: &[&str] = &[
    "leave a reply",
    "leave a response",
    "leave a comment",
    "post a comment",
    "add a comment",
    "join the discussion",
    "join the conversation",
    "have your say",
    "what readers say",
    "what readers think",
    "what our readers",
    "readers respond",
    "reader reactions",
    "discussion about this",
    "diskutieren sie mit",
    "réagissez",
    "únete a la conversación",
    "partecipa alla discussione",
];

/// A word of digits (a count; "1,204" splits into two, read as one).
fn is_count(word: &str) -> bool {
    word.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a heading's text holds a count ("5 Comments", "Comments (12)"): a run
/// of ASCII digits between non-alphanumeric characters or the ends.
pub fn holds_count(heading: &str) -> bool {
    heading
        .split(|c: char| !c.is_alphanumeric())
        .any(|word| !word.is_empty() && is_count(word))
}

/// Words of a heading that opens with a [`DISCUSSION_PHRASES`] phrase.
const PHRASE_HEADING_WORDS: usize = 8;

/// A cheap first look for [`heading_names_discussion`], which most short lines of a page
/// reach (every short paragraph and division): false when `line` holds no word that starts
/// as a word of the rule does (its nouns' stems, its phrases' first words, ASCII letters in
/// any case), nor a non-ASCII stem ("коммент", "تعليق", "评论", "コメント", "댓글"…). A
/// proptest checks that it never turns away a heading the rule accepts. One pass over the
/// word starts, no allocation: the full rule lowercases and splits the line and looks each
/// word up in its lists, which took 10% of a doc corpus's ingest when every short line went
/// through it (dd6k, perf).
fn may_name_discussion(line: &[u8]) -> bool {
    let starts = |rest: &[u8], root: &[u8]| {
        rest.len() >= root.len()
            && rest
                .iter()
                .zip(root)
                .all(|(a, b)| a.to_ascii_lowercase() == *b)
    };
    let mut word_start = true;
    for (i, &b) in line.iter().enumerate() {
        let at_start = word_start;
        // Any byte outside ASCII may end a word: the full rule splits on non-ASCII
        // punctuation ("“Comments"), so the first look must too (it may look at more).
        word_start = !b.is_ascii_alphanumeric();
        let rest = &line[i..];
        let hit = match b.to_ascii_lowercase() {
            _ if !at_start && b < 0x80 => false,
            b'c' => {
                starts(rest, b"comment") || starts(rest, b"coment") || starts(rest, b"conversation")
            }
            b'k' => starts(rest, b"komment") || starts(rest, b"koment"),
            b'r' => {
                starts(rest, b"reacti")
                    || starts(rest, b"reacc")
                    || starts(rest, b"readers")
                    || starts(rest, b"respon")
                    || starts(rest, b"respu")
                    || starts(rest, b"repli")
                    || starts(rest, b"reply")
                    || starts(rest, b"rispost")
                    || starts(rest, "r\u{e9}a".as_bytes())
                    || starts(rest, "r\u{c9}a".as_bytes())
            }
            b'a' => starts(rest, b"antwort") || starts(rest, b"add a"),
            b't' => starts(rest, b"thought"),
            b'y' => starts(rest, b"yorum"),
            b'l' => starts(rest, b"leave a") || starts(rest, b"leserkomment"),
            b'p' => starts(rest, b"post a") || starts(rest, b"partecipa"),
            b'j' => starts(rest, b"join the"),
            b'h' => starts(rest, b"have your"),
            b'd' => starts(rest, b"discussion about") || starts(rest, b"diskutieren"),
            b'w' => starts(rest, b"what "),
            // Lead bytes of the non-ASCII stems: Cyrillic, Arabic, CJK, Hangul, "ú".
            0xc3 => starts(rest, "\u{fa}nete".as_bytes()) || starts(rest, "\u{da}nete".as_bytes()),
            0xd0 => {
                rest.starts_with("коммент".as_bytes())
                    || rest.starts_with("Коммент".as_bytes())
                    || rest.starts_with("КОММЕНТ".as_bytes())
            }
            0xd8 => rest.starts_with("تعليق".as_bytes()) || rest.starts_with("التعليق".as_bytes()),
            0xe8 => rest.starts_with("评论".as_bytes()) || rest.starts_with("評論".as_bytes()),
            0xe7 => rest.starts_with("留言".as_bytes()),
            0xe3 => rest.starts_with("コメント".as_bytes()),
            0xeb => rest.starts_with("댓글".as_bytes()),
            _ => false,
        };
        if hit {
            return true;
        }
    }
    false
}

/// Whether a heading (a whole line of the visible text: `h1`–`h6`, or a `p`/`div` that is
/// one short line) names a reader discussion below it. Many discussions sit in containers
/// whose class says nothing (CSS-module hashes, none at all: news-v8/v9/v10 whole, where
/// they held 122 of news-v9 whole's 151 missed pairs), but a real one carries a heading that
/// counts its comments ("Comments (12)", "12 Comments", "3 commentaires", "5 responses",
/// "4 thoughts on “The story”"), qualifies them ("Reader comments", "Show all comments"),
/// or invites them ("Leave a reply", "Join the conversation", "Have your say"). Manuals and
/// tables use the nouns alone ("Comments", "Comment syntax"), number them ("2.7 Comments")
/// or put them in code ("21 /* comment"); none of those is a discussion.
pub fn heading_names_discussion(heading: &str) -> bool {
    may_name_discussion(heading.trim().as_bytes()) && heading_names_discussion_unfiltered(heading)
}

/// [`heading_names_discussion`] without its first look.
fn heading_names_discussion_unfiltered(heading: &str) -> bool {
    let heading = heading.trim();
    if heading.is_empty() || heading.len() > MAX_DISCUSSION_HEADING {
        return false;
    }
    // A section number: digits, a dot and more ("2.7 Comments", "3.1. Comments", "2. Comments").
    let digits = heading.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && heading.as_bytes().get(digits) == Some(&b'.') {
        return false;
    }
    let lower = heading.to_lowercase();
    if heading.chars().count() <= SHORT_UNSPACED_HEADING
        && UNSPACED_COMMENT_NOUNS.iter().any(|n| {
            lower
                .find(n)
                .is_some_and(|at| lower[..at].chars().count() <= UNSPACED_QUALIFIER_CHARS)
        })
    {
        return true;
    }
    // Words: letters, digits, `_` (an identifier such as `get_comments` is one word) and
    // `'`; digit groups of one number ("1,204") count as one count.
    let mut words: Vec<&str> = Vec::new();
    for w in lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
    {
        if is_count(w) && words.last().is_some_and(|last| is_count(last)) {
            continue;
        }
        words.push(w);
    }
    if words.len() <= PHRASE_HEADING_WORDS
        && DISCUSSION_PHRASES.iter().any(|p| lower.starts_with(p))
    {
        return true;
    }
    let plural = |w: &&str| COMMENT_NOUNS.contains(w);
    let singular = |w: &&str| COMMENT_NOUNS_SINGULAR.contains(w);
    let reply = |w: &&str| REPLY_NOUNS.contains(w);
    let counts = words.iter().filter(|w| is_count(w)).count();
    let nouns: Vec<&&str> = words.iter().filter(|w| !is_count(w)).collect();
    match (counts, nouns.as_slice()) {
        // "12 Comments", "Comments (12)", "1 comment", "Replies: 3".
        (1, [noun]) => plural(noun) || singular(noun) || reply(noun),
        _ => {
            // "4 thoughts on “The story”", "5 Responses to “…”".
            if let [count, noun, preposition, ..] = words.as_slice() {
                if is_count(count)
                    && (plural(noun) || reply(noun))
                    && TITLE_PREPOSITIONS.contains(preposition)
                {
                    return true;
                }
            }
            // "Reader comments", "Reader comments (12)", "Show all 12 comments".
            words.len() <= 3 + counts.min(1)
                && nouns.iter().any(|w| plural(w))
                && nouns
                    .iter()
                    .all(|w| plural(w) || DISCUSSION_QUALIFIERS.contains(w))
                && nouns.len() >= 2
        }
    }
}

/// Words that name a place on the page: marked unless the same class or id word also says
/// it is the article's (readability's `okMaybeItsACandidate`).
const PLACE_WORDS: &[&str] = &[
    "footer",
    "sidebar",
    "menu",
    "navigation",
    "navbar",
    "banner",
    "widget",
    "masthead",
    "skyscraper",
    "pagination",
    "pager",
    "popup",
    "modal",
];

/// Words of a class or id that say "this may be the article": readability's
/// `okMaybeItsACandidate` (`and` left out: it is in `brand`, `band`, `landing`…).
const MAYBE_ARTICLE_WORDS: &[&str] = &["article", "body", "column", "content", "main", "shadow"];

/// Class or id words that name the article body (trafilatura's `BODY_XPATH`).
const BODY_WORDS: &[&str] = &[
    "article-body",
    "article__body",
    "articlebody",
    "article-content",
    "article__content",
    "articlecontent",
    "article-text",
    "articletext",
    "article__container",
    "art-content",
    "entry-content",
    "post-content",
    "post_content",
    "postcontent",
    "post-body",
    "post-text",
    "post_text",
    "post-entry",
    "postentry",
    "story-body",
    "storybody",
    "story-content",
    "storycontent",
    "body-text",
    "text-content",
    "page-content",
    "field-body",
    "fulltext",
    "main-content",
    "maincontent",
    "content-main",
    "content-body",
    "contentbody",
    "content__body",
];

/// The bits a `class`, `id` and `role` give an element (see the module header):
/// [`MARKED`] when they name boilerplate, [`ARTICLE`] when they name the article body.
/// Words are looked at lowercased; readability's guard is on the whole of class and id, as
/// readability tests `className + " " + id`.
pub fn attributes_bits(class: &str, id: &str, role: &str) -> u8 {
    let role = role.trim();
    if role.eq_ignore_ascii_case("navigation")
        || role.eq_ignore_ascii_case("complementary")
        || role.eq_ignore_ascii_case("contentinfo")
    {
        return MARKED;
    }
    if class.is_empty() && id.is_empty() {
        return 0;
    }
    if class.len() + id.len() > 1024 {
        return 0;
    }
    let mut lists = 0u8;
    for word in class
        .split_ascii_whitespace()
        .chain(id.split_ascii_whitespace())
    {
        let w = word.as_bytes();
        if w.len() >= 3 && w[..3].eq_ignore_ascii_case(b"nav") {
            lists |= IN_PLACE;
        }
        let found = keyword_lists(w);
        lists |= found & !(IN_DISCUSSION | IN_NOT_DISCUSSION);
        if found & IN_DISCUSSION != 0 && found & IN_NOT_DISCUSSION == 0 {
            lists |= IN_DISCUSSION;
        }
    }
    let mut bits = 0;
    if lists & IN_BODY != 0 {
        bits |= ARTICLE;
    }
    if lists & IN_KIND != 0 || (lists & IN_PLACE != 0 && lists & IN_MAYBE == 0) {
        bits |= MARKED;
    }
    if lists & IN_DISCUSSION != 0 {
        bits |= DISCUSSION;
    }
    bits
}

/// Which of the word lists a class or id word holds a keyword of (bits of [`keyword_lists`]).
const IN_KIND: u8 = 1;
const IN_PLACE: u8 = 2;
const IN_MAYBE: u8 = 4;
const IN_BODY: u8 = 8;
const IN_DISCUSSION: u8 = 16;
const IN_NOT_DISCUSSION: u8 = 32;

/// A keyword and the list (`IN_*` bit) it is of.
type Keyword = (&'static [u8], u8);

/// The lists (`IN_*` bits) with a keyword inside `word`, ASCII case ignored. Keywords are
/// looked up by their first byte: `str::contains` for each of the 70 keywords on every
/// class word of every element cost a third of ingest's instructions on news-v2 (whole)
/// (BENCHMARKS.md, issue 14 session 5).
fn keyword_lists(word: &[u8]) -> u8 {
    static INDEX: std::sync::OnceLock<Vec<Vec<Keyword>>> = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = vec![Vec::new(); 256];
        let lists: [(&[&'static str], u8); 7] = [
            (KIND_WORDS, IN_KIND),
            (DISCUSSION_WORDS, IN_DISCUSSION),
            (NOT_DISCUSSION, IN_NOT_DISCUSSION),
            (PLACE_WORDS, IN_PLACE),
            (&["-nav", "_nav"], IN_PLACE),
            (MAYBE_ARTICLE_WORDS, IN_MAYBE),
            (BODY_WORDS, IN_BODY),
        ];
        for (list, bit) in lists {
            for k in list {
                index[usize::from(k.as_bytes()[0])].push((k.as_bytes(), bit));
            }
        }
        index
    });
    let mut found = 0;
    for i in 0..word.len() {
        for &(k, bit) in &index[usize::from(word[i].to_ascii_lowercase())] {
            if word.len() - i >= k.len() && word[i..i + k.len()].eq_ignore_ascii_case(k) {
                found |= bit;
            }
        }
    }
    found
}

/// True when a `class`, `id` or `role` names boilerplate ([`attributes_bits`]).
pub fn attributes_mark(class: &str, id: &str, role: &str) -> bool {
    attributes_bits(class, id, role) & MARKED != 0
}

/// Stored form: two bytes a block (link, flags); `None` when there is nothing to store.
pub fn encode(signals: &[BlockSignal]) -> Option<Vec<u8>> {
    if signals.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(2 * signals.len());
    for s in signals {
        out.push(s.link);
        out.push(s.flags);
    }
    Some(out)
}

/// The signals of a stored blob (an odd trailing byte is ignored).
pub fn decode(blob: &[u8]) -> Vec<BlockSignal> {
    blob.chunks_exact(2)
        .map(|c| BlockSignal {
            link: c[0],
            flags: c[1],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_that_name_a_discussion() {
        for heading in [
            "Reader comments",
            "No comments yet",
            "Show all 12 comments",
            "12 Comments",
            "1 comment",
            "Comments (12)",
            "Comments: 1,204",
            "4 thoughts on “Get your frontend code covered”",
            "5 Responses to \"A story\"",
            "Replies (3)",
            "3 comments:",
            "Leave a Reply",
            "Join the conversation",
            "Have your say",
            "Kommentare (3)",
            "3 commentaires",
            "Comentarios (4)",
            "5 yorum",
            "Комментарии (7)",
            "评论 (3)",
            "网友评论",
            "コメント一覧",
            "RÉACTIONS (3)",
            "Conversation (6)",
            "12 conversations",
        ] {
            assert!(heading_names_discussion(heading), "{heading:?}");
        }
    }

    /// Every word and phrase of the rule's lists, in lower, upper and title case, with
    /// counts and punctuation: what the first look must let through.
    fn heading_tokens() -> Vec<String> {
        let lists: [&[&str]; 7] = [
            COMMENT_NOUNS,
            COMMENT_NOUNS_SINGULAR,
            REPLY_NOUNS,
            DISCUSSION_QUALIFIERS,
            TITLE_PREPOSITIONS,
            UNSPACED_COMMENT_NOUNS,
            DISCUSSION_PHRASES,
        ];
        let mut out: Vec<String> = ["12", "1,204", "(", ")", ":", "“", "”", "the", "story", "x"]
            .iter()
            .map(|t| t.to_string())
            .collect();
        for word in lists.iter().flat_map(|l| l.iter()) {
            let mut title: Vec<char> = word.chars().collect();
            if let Some(first) = title.first_mut() {
                *first = first.to_uppercase().next().unwrap_or(*first);
            }
            out.push(word.to_string());
            out.push(word.to_uppercase());
            out.push(title.into_iter().collect());
        }
        out
    }

    proptest::proptest! {
        // Enough cases that each list's word meets a count (a heading the rule accepts).
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        /// The first look never turns away a heading the full rule accepts.
        #[test]
        fn the_first_look_keeps_every_discussion_heading(
            words in proptest::collection::vec(proptest::sample::select(heading_tokens()), 1..4),
            spaced in proptest::collection::vec(proptest::bool::ANY, 6),
        ) {
            let mut heading = String::new();
            for (word, space) in words.iter().zip(&spaced) {
                heading.push_str(word);
                if *space {
                    heading.push(' ');
                }
            }
            proptest::prop_assert_eq!(
                heading_names_discussion(&heading),
                heading_names_discussion_unfiltered(&heading),
                "{:?}", heading
            );
        }
    }

    #[test]
    fn headings_that_do_not_name_a_discussion() {
        for heading in [
            "",
            // Manuals number their sections.
            "2.7 Comments",
            "3.1. Comments",
            "2. Comments",
            // Reply nouns head article sections unless a count says they are posts.
            "Responses",
            "Replies",
            "Discussion",
            "Public responses to the plan",
            // A longer heading that only mentions comments.
            "Comments from the minister on the budget",
            "The minister's comments on the new budget were brief",
            "Commentary",
            // Alone, or in a manual's words, the nouns head sections and table columns.
            "Comments",
            "Comments:",
            "Function: comment",
            "Special comment blocks",
            "SQL Comment Syntax",
            "Comment ça marche",
            "◆ get_comments()",
            "21 * comment block!",
            "54/* Comment this if you want to build without any C library",
            "「#」で始まる行はコメントで無視されます。",
            "引用概述中的评论:",
            "The Conversation",
            "Conversations",
        ] {
            assert!(!heading_names_discussion(heading), "{heading:?}");
        }
        assert!(!heading_names_discussion(&"Comments ".repeat(60)));
    }

    #[test]
    fn a_discussion_range_marks_the_lines_it_holds() {
        let text = "Story line one\nComments (2)\nann: first\nbob: second";
        let mut m = Marks::default();
        m.add_discussion(15, text.len());
        let s = block_signals(text, &m);
        let flags: Vec<u8> = s.iter().map(|b| b.flags).collect();
        let both = DISCUSSION | MARKED;
        assert_eq!(flags, vec![0, both, both, both]);
        // Link bytes are counted from the last change before the range.
        let mut m = Marks::default();
        m.set(0, LINK);
        m.set(4, 0);
        m.set(10, LINK);
        assert_eq!(m.bytes_with(LINK, 2, 12), 4);
        assert_eq!(m.bytes_with(LINK, 5, 9), 0);
    }

    #[test]
    fn signals_follow_the_lines() {
        // "Home" link line, then a prose line with a link in its middle, then a footer.
        let text = "Home\nSome words and a link here\n\nCopyright";
        let mut m = Marks::default();
        m.set(0, LINK | NAV);
        m.set(4, 0);
        m.set(22, LINK);
        m.set(26, 0);
        m.set(33, NAV);
        let s = block_signals(text, &m);
        assert_eq!(s.len(), 3);
        assert_eq!(
            s[0],
            BlockSignal {
                link: 255,
                flags: NAV
            }
        );
        assert_eq!(s[1].flags, 0);
        assert_eq!(s[1].link, (4 * 255 / 26) as u8);
        assert_eq!(
            s[2],
            BlockSignal {
                link: 0,
                flags: NAV
            }
        );
        assert_eq!(decode(&encode(&s).unwrap()), s);
        assert!(block_signals(text, &Marks::default()).is_empty());
    }

    #[test]
    fn a_cleared_link_is_text_again_and_its_containers_stay() {
        // A NAV container from byte 0; a link from byte 5 to the end, later found long.
        let text = "Menu\nA story in a link\nmore of it";
        let mut m = Marks::default();
        m.set(0, NAV);
        m.set(5, NAV | LINK);
        m.set(12, NAV | LINK | HEADER);
        m.clear_since(5, LINK);
        assert_eq!(m.current(), NAV | HEADER);
        let s = block_signals(text, &m);
        assert!(s.iter().all(|b| b.link == 0), "{s:?}");
        assert_eq!(s[0].flags, NAV);
        assert_eq!(s[2].flags, NAV | HEADER);
    }

    /// The first implementation of [`attributes_bits`]: substring search of each list.
    fn attributes_bits_slow(class: &str, id: &str, role: &str) -> u8 {
        let role = role.trim();
        if role.eq_ignore_ascii_case("navigation")
            || role.eq_ignore_ascii_case("complementary")
            || role.eq_ignore_ascii_case("contentinfo")
        {
            return MARKED;
        }
        if (class.is_empty() && id.is_empty()) || class.len() + id.len() > 1024 {
            return 0;
        }
        let words = format!("{class} {id}").to_ascii_lowercase();
        let words: Vec<&str> = words.split_ascii_whitespace().collect();
        let any = |list: &[&str]| words.iter().any(|w| list.iter().any(|k| w.contains(k)));
        let mut bits = 0;
        if any(BODY_WORDS) {
            bits |= ARTICLE;
        }
        let place = any(PLACE_WORDS)
            || words
                .iter()
                .any(|w| w.starts_with("nav") || w.contains("-nav") || w.contains("_nav"));
        if any(KIND_WORDS) || (place && !any(MAYBE_ARTICLE_WORDS)) {
            bits |= MARKED;
        }
        let discussion = words.iter().any(|w| {
            DISCUSSION_WORDS.iter().any(|k| w.contains(k))
                && !NOT_DISCUSSION.iter().any(|k| w.contains(k))
        });
        if discussion {
            bits |= DISCUSSION;
        }
        bits
    }

    proptest::proptest! {
        #[test]
        fn keyword_lookup_equals_substring_search(
            class in "( |[a-zA-Z_-]{0,6}|nav|Nav|-nav|_NAV|footer|Sidebar|related|article-body|content|main|slideshow|teaser|comments|Comment|commentary|commented|-list|-count|has-|disqus_thread|\u{e9}){0,6}",
            id in "( |[a-z_-]{0,5}|menu|main-content|cookie|post_content|body){0,3}",
            role in "(|navigation|main| Complementary )",
        ) {
            proptest::prop_assert_eq!(
                attributes_bits(&class, &id, &role),
                attributes_bits_slow(&class, &id, &role)
            );
        }
    }

    #[test]
    fn class_words_mark_boilerplate_with_the_article_guard() {
        assert!(attributes_mark("site-footer", "", ""));
        assert!(attributes_mark("a b related-links", "", ""));
        assert!(attributes_mark("", "cookie-banner", ""));
        assert!(attributes_mark("", "", "navigation"));
        assert!(attributes_mark("navbar", "", ""));
        assert!(!attributes_mark("article-footer", "", ""));
        assert!(!attributes_mark("main-content with", "page", ""));
        // Readability's guard is on the whole class: a sidebar layout of the article body.
        assert!(!attributes_mark("l-sidebar-fixed l-article-body", "", ""));
        assert_eq!(
            attributes_bits("l-sidebar-fixed l-article-body", "", ""),
            ARTICLE
        );
        assert!(!attributes_mark("canvas", "", ""));
        // Kinds of text are marked even inside an article word.
        assert!(attributes_mark("article-related", "", ""));
    }

    #[test]
    fn discussions_are_named_by_comment_words_but_not_commentary() {
        assert_eq!(attributes_bits("comments", "", ""), MARKED | DISCUSSION);
        assert_eq!(
            attributes_bits("", "disqus_thread", ""),
            MARKED | DISCUSSION
        );
        assert_eq!(
            attributes_bits("comment-list article-comments", "", ""),
            MARKED | DISCUSSION
        );
        // An opinion piece is a story: marked as the published rules have it, no discussion.
        assert_eq!(attributes_bits("commentary", "", ""), MARKED);
        assert_eq!(attributes_bits("post", "commentator-bio", ""), MARKED);
        assert_eq!(attributes_bits("k-91", "", ""), 0);
        // States of the article, not containers of a discussion.
        assert_eq!(
            attributes_bits("post hentry js_post_item commented", "", ""),
            MARKED
        );
        assert_eq!(attributes_bits("entry has-comments", "", ""), MARKED);
    }
}
