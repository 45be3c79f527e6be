//! Cooper's passage rule (issue 14, session 12) through the CLI, on pages written here (no
//! corpus page is copied): one story on two one-page sites, each copy beside as much prose
//! of its own site's template (the template's own article, which a per-page content text
//! cannot tell from the story: same container, no links). Neither whole term list is
//! contained in the other, so the paper's test and containment miss the pair; the story's
//! run of lines is contained, and the default finds it. Two pages of one template on two
//! hosts (the same menu, the same template prose) with different stories are not paired,
//! though they share a passage.

use crate::cooper_imatch_defaults::{method_pairs, pair, story};

/// A page of a one-page site: its menu (in `<nav>`, dropped from the content text), the
/// story's paragraphs, then the template's own prose in the same container.
fn page_with_prose(menu: &[String], title: &str, story: &[String], prose: &[String]) -> String {
    let nav: String = menu
        .iter()
        .map(|m| format!("<li><a href=/{m}>{m}</a></li>"))
        .collect();
    // Three sentences a paragraph: long blocks, as an article's are.
    let paras = |s: &[String]| -> String {
        s.chunks(3)
            .map(|c| format!("<p>{}</p>\n", c.join(" ")))
            .collect()
    };
    format!(
        "<html><head><title>{title}</title></head><body><nav><ul>{nav}</ul></nav>\
         <div class=story><h1>{title}</h1>{}{}</div></body></html>",
        paras(story),
        paras(prose)
    )
}

fn menu(site: &str) -> Vec<String> {
    ["home", "world", "business", "sport", "culture", "weather"]
        .iter()
        .map(|m| format!("{site} {m}"))
        .collect()
}

#[test]
fn a_story_beside_template_prose_on_one_page_sites_is_found_by_default() {
    let harbour = story("harbour", 9);
    let mut copy = harbour.clone();
    copy[0].insert_str(0, "LONDON (Reuters) - ");
    let herald_menu = menu("herald");
    let gazette_menu = menu("gazette");
    let pages = [
        (
            "herald.example/harbour.html",
            page_with_prose(
                &herald_menu,
                "Harbour",
                &harbour,
                &story("herald own article", 9),
            ),
        ),
        (
            "gazette.example/wire-1.html",
            page_with_prose(
                &gazette_menu,
                "UPDATE 1-Harbour",
                &copy,
                &story("gazette own article", 12),
            ),
        ),
    ];
    let want = pair("herald.example/harbour.html", "gazette.example/wire-1.html");
    let found = method_pairs("cooper", &pages, &[]);
    assert!(found.contains(&want), "{found:?}");
    assert_eq!(found.len(), 1, "{found:?}");
    // The whole lists: half of each is the page's own prose, so the paper's test and
    // containment miss it.
    let found = method_pairs("cooper", &pages, &["--cooper-passage", "0"]);
    assert!(!found.contains(&want), "{found:?}");
}

#[test]
fn two_hosts_of_one_template_are_not_paired_by_the_prose_they_share() {
    let menu = menu("lifestyle");
    let shared = story("the template's own article", 9);
    let pages = [
        (
            "lifestyle-a.example/one.html",
            page_with_prose(&menu, "Nails", &story("nails", 9), &shared),
        ),
        (
            "lifestyle-b.example/two.html",
            page_with_prose(&menu, "Sleep", &story("sleep", 9), &shared),
        ),
    ];
    let found = method_pairs("cooper", &pages, &[]);
    assert!(found.is_empty(), "{found:?}");
}

/// A page of a one-page site whose story is followed, in the same container, by a reader's
/// comment quoting `quote` under a name line (a container whose class says nothing, under a
/// heading the content text's discussion rule does not read, so the comment stays in the
/// text Cooper reads: "Comments (1)" would name it and drop it).
fn page_with_comment(site: &str, title: &str, own: &[String], quote: &str) -> String {
    let nav: String = menu(site)
        .iter()
        .map(|m| format!("<li><a href=/{m}>{m}</a></li>"))
        .collect();
    let paras: String = own
        .chunks(3)
        .map(|c| format!("<p>{}</p>\n", c.join(" ")))
        .collect();
    format!(
        "<html><head><title>{title}</title></head><body><nav><ul>{nav}</ul></nav>\
         <div class=story><h1>{title}</h1>{paras}<div class=k-91><h3>Conversation</h3>\
         <div class=c><div class=who>jk_1987 wrote:</div><div class=said>{quote}</div></div>\
         </div></div></body></html>"
    )
}

#[test]
fn different_stories_quoting_one_paragraph_are_not_paired() {
    // news-v8 (issue 14, session 21): two stories' pages each carry a reader's comment
    // quoting one paragraph (48 words) of a third story, whose own page holds it. One
    // paragraph, under a name line, is what different stories share; a copy of a story is
    // paragraphs.
    let quoted = story("the quoted story", 10);
    let quote = quoted[..4].join(" ");
    let source_paras: String = std::iter::once(quote.clone())
        .chain(quoted[4..].chunks(3).map(|c| c.join(" ")))
        .map(|p| format!("<p>{p}</p>\n"))
        .collect();
    let pages = [
        (
            "source.example/quoted.html",
            format!(
                "<html><head><title>Quoted</title></head><body><div class=story>\
                 <h1>Quoted</h1>{source_paras}</div></body></html>"
            ),
        ),
        (
            "alpha.example/a.html",
            page_with_comment("alpha", "Alpha", &story("alpha story", 9), &quote),
        ),
        (
            "bravo.example/b.html",
            page_with_comment("bravo", "Bravo", &story("bravo story", 9), &quote),
        ),
    ];
    let found = method_pairs("cooper", &pages, &[]);
    assert!(found.is_empty(), "{found:?}");
    // Any passage of 40 terms, one paragraph too (the rule before): the quote pairs them.
    let found = method_pairs("cooper", &pages, &["--cooper-passage-paragraphs", "0"]);
    assert!(!found.is_empty(), "{found:?}");
}
