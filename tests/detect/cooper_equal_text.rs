//! Cooper's equal-text rule for short term lists (issue 14, session 13) through the CLI, on
//! pages written here: three one-page sites' index pages whose only salient term is the
//! same word ("0 of 1 terms differ"), two of them with the same text (case and white space
//! aside) and one with another text. By default only the two with the same text are a pair;
//! with `--cooper-min-terms 0` (the paper) all three are.

use crate::cooper_imatch_defaults::{method_pairs, pair};

/// A page whose whole text is `text` (no title, no template).
fn bare(text: &str) -> String {
    format!("<html><body><p>{text}</p></body></html>")
}

fn pages() -> Vec<(&'static str, String)> {
    // Words under four characters and numbers of two digits are no terms: "widgets" is
    // each page's only one.
    vec![
        ("one.example/index.html", bare("See the Widgets at 10 am.")),
        ("two.example/index.html", bare("Get the widgets by 11 pm.")),
        (
            "three.example/index.html",
            bare("see THE\n  widgets at 10 AM."),
        ),
    ]
}

#[test]
fn short_lists_are_a_pair_only_with_equal_texts_by_default() {
    let same = pair("one.example/index.html", "three.example/index.html");
    let found = method_pairs("cooper", &pages(), &[]);
    assert_eq!(found, [same.clone()].into_iter().collect(), "{found:?}");
    let paper = method_pairs("cooper", &pages(), &["--cooper-min-terms", "0"]);
    assert_eq!(paper.len(), 3, "{paper:?}");
    assert!(paper.contains(&same));
    assert!(paper.contains(&pair("one.example/index.html", "two.example/index.html")));
}
