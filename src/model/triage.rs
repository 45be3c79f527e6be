//! Noise triage: the rules (as data: name, test, help) that keep pages no coder should
//! spend a key on out of the default queue (error responses, redirects — HTTP ones and
//! client-side redirect stubs —, robots.txt, near-empty pages), and the collapse of byte-identical captures into one member. The
//! help text of `--help` and the README's table are generated from [`TRIAGE_RULES`].

use serde::Serialize;

/// What triage looks at in a stored document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocFacts {
    pub id: i64,
    pub url: String,
    pub http_status: Option<i64>,
    /// Characters of the visible text.
    pub chars: i64,
    /// The smallest document id with byte-identical text (itself when it has no copy).
    pub dup_group: Option<i64>,
    /// Ingest found the page to be a client-side redirect stub (`extract::redirect_stub`).
    pub redirect_stub: bool,
}

impl DocFacts {
    /// The member that stands for this document's byte-identical copies.
    pub fn representative(&self) -> i64 {
        self.dup_group.unwrap_or(self.id)
    }
}

/// One triage rule: a document it matches is noise.
pub struct TriageRule {
    pub name: &'static str,
    pub test: fn(&DocFacts) -> bool,
    pub help: &'static str,
}

/// Pages with fewer visible characters than this are near-empty (the store counts the
/// characters of texts under 4 × this many bytes only).
pub const NEAR_EMPTY_CHARS: i64 = 50;

/// The triage rules, in the order they are tried (a page counts under the first it matches).
pub const TRIAGE_RULES: &[TriageRule] = &[
    TriageRule {
        name: "error",
        test: |d| d.http_status.is_some_and(|s| s >= 400),
        help: "error responses (HTTP status 400 or more)",
    },
    TriageRule {
        name: "redirect",
        test: |d| d.http_status.is_some_and(|s| (300..400).contains(&s)),
        help: "redirects (HTTP status 300-399)",
    },
    TriageRule {
        name: "client-redirect",
        test: |d| d.redirect_stub,
        help: "client-side redirect stubs (a meta refresh to a URL or a script that sets location, and at most 25 words besides)",
    },
    TriageRule {
        name: "robots",
        test: |d| is_robots_txt(&d.url),
        help: "robots.txt files",
    },
    TriageRule {
        name: "near-empty",
        test: |d| d.chars < NEAR_EMPTY_CHARS,
        help: "near-empty pages (under 50 characters of visible text)",
    },
];

/// How byte-identical captures are handled (shown with the rules).
pub const EXACT_COPIES_HELP: &str =
    "byte-identical text (revisits, recaptures) is collapsed into one member shown as \"×N captures\"; never an entry of its own";

fn is_robots_txt(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.to_ascii_lowercase().ends_with("/robots.txt") || path.eq_ignore_ascii_case("robots.txt")
}

/// The first rule `doc` matches (None: not noise).
pub fn triage(doc: &DocFacts) -> Option<&'static str> {
    TRIAGE_RULES.iter().find(|r| (r.test)(doc)).map(|r| r.name)
}

/// Documents triaged, per rule, plus the byte-identical copies collapsed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TriageCounts {
    /// (rule name, documents), in rule order; every rule is listed.
    pub rules: Vec<(String, u64)>,
    /// Documents that are a copy of a smaller-id document with the same text.
    pub copies: u64,
}

impl TriageCounts {
    /// Counts `docs` under the rules.
    pub fn of<'a>(docs: impl IntoIterator<Item = &'a DocFacts>) -> TriageCounts {
        let mut rules: Vec<(String, u64)> = TRIAGE_RULES
            .iter()
            .map(|r| (r.name.to_string(), 0))
            .collect();
        let mut copies = 0;
        for d in docs {
            if let Some(name) = triage(d) {
                if let Some(slot) = rules.iter_mut().find(|(n, _)| n == name) {
                    slot.1 += 1;
                }
            }
            if d.representative() != d.id {
                copies += 1;
            }
        }
        TriageCounts { rules, copies }
    }

    /// "triaged: error 3 · redirect 1 · … · 12 exact copies".
    pub fn summary(&self) -> String {
        let mut parts: Vec<String> = self
            .rules
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        if self.copies > 0 {
            parts.push(format!("{} exact copies", self.copies));
        }
        if parts.is_empty() {
            return String::new();
        }
        format!("triaged: {}", parts.join(" · "))
    }
}

/// The rules as a help table (for `--help` and the README): one "name  help" line each.
pub fn triage_help() -> String {
    let mut out = String::new();
    for r in TRIAGE_RULES {
        out.push_str(&format!("  {:<15} {}\n", r.name, r.help));
    }
    out.push_str(&format!("  {:<15} {}\n", "exact-copy", EXACT_COPIES_HELP));
    out
}

/// The rules as the README's markdown table (kept in sync by a test).
pub fn triage_markdown() -> String {
    let mut out = String::from("| rule | what it keeps out |\n|---|---|\n");
    for r in TRIAGE_RULES {
        out.push_str(&format!("| `{}` | {} |\n", r.name, r.help));
    }
    out.push_str(&format!("| `exact-copy` | {EXACT_COPIES_HELP} |\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: i64, url: &str, status: Option<i64>, chars: i64) -> DocFacts {
        DocFacts {
            id,
            url: url.into(),
            http_status: status,
            chars,
            dup_group: Some(id),
            redirect_stub: false,
        }
    }

    #[test]
    fn the_first_matching_rule_names_the_noise() {
        assert_eq!(triage(&doc(1, "http://a/x", Some(404), 5)), Some("error"));
        assert_eq!(
            triage(&doc(1, "http://a/x", Some(301), 500)),
            Some("redirect")
        );
        assert_eq!(
            triage(&doc(1, "http://a/robots.txt", Some(200), 500)),
            Some("robots")
        );
        assert_eq!(
            triage(&doc(1, "http://a/x", Some(200), 5)),
            Some("near-empty")
        );
        assert_eq!(triage(&doc(1, "http://a/x", None, 500)), None);
        let mut stub = doc(1, "http://a/x", Some(200), 60);
        stub.redirect_stub = true;
        assert_eq!(triage(&stub), Some("client-redirect"));
        stub.chars = 10;
        assert_eq!(triage(&stub), Some("client-redirect"));
        let mut copy = doc(2, "http://a/x", None, 500);
        copy.dup_group = Some(1);
        let c = TriageCounts::of(&[doc(1, "u", Some(500), 500), copy]);
        assert_eq!(c.copies, 1);
        assert_eq!(c.summary(), "triaged: error 1 · 1 exact copies");
        assert!(triage_help().contains("near-empty"));
    }
}
