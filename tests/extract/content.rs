//! Regression tests of the content text (issue 14) on small fixtures written for them: a
//! site template larger than its stories, a footer that a main-content extractor takes for
//! the article, a truncated syndicated copy, and copies in Spanish and Chinese inside an
//! English template. Each ingests a folder of pages and reads the stored content texts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use spotcheck::cmd::ingest::{ingest_paths, IngestOptions};
use spotcheck::extract::ExtractOptions;
use spotcheck::sig::spotsigs::{extract_text, SpotSigParams};
use spotcheck::store::{Store, TextKind};

/// Words for the stories: each story draws its own sequence from them (seeded by its
/// topic), so two stories share words but hardly a SpotSigs chain.
const WORDS: &[&str] = &[
    "council",
    "harbour",
    "budget",
    "residents",
    "bridge",
    "station",
    "minister",
    "report",
    "schools",
    "funding",
    "workers",
    "contract",
    "festival",
    "river",
    "farmers",
    "prices",
    "museum",
    "visitors",
    "airport",
    "runway",
    "police",
    "court",
    "judge",
    "election",
    "voters",
    "hospital",
    "doctors",
    "patients",
    "library",
    "students",
    "teachers",
    "library",
    "railway",
    "tickets",
    "engineers",
    "storm",
    "damage",
    "insurers",
    "market",
    "traders",
];

/// Four paragraphs of a story about `topic` (each over 200 characters, as the body of a
/// news article is), different for every topic.
fn story(topic: &str) -> Vec<String> {
    let mut state = topic.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut word = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        WORDS[(state % WORDS.len() as u64) as usize]
    };
    (1..=4)
        .map(|i| {
            let mut p = format!("Paragraph {i} of the {topic} story:");
            for _ in 0..4 {
                p.push_str(&format!(
                    " The {} of the {} is {} {} and the {} will have a {} {}.",
                    word(),
                    word(),
                    word(),
                    word(),
                    word(),
                    word(),
                    word()
                ));
            }
            p
        })
        .collect()
}

/// A news page: a big template (menus, teasers, a footer) around `paragraphs`.
fn page(site: &str, headline: &str, paragraphs: &[String]) -> String {
    let menu: String = [
        "Home", "World", "Business", "Sport", "Culture", "Opinion", "Weather",
    ]
    .iter()
    .map(|m| format!("<li><a href='/{m}'>{m}</a></li>"))
    .collect();
    // Teasers are headlines (short blocks): the per-page extraction has no link density to
    // tell a long teaser from prose.
    let teasers: String = (1..=8)
        .map(|i| format!("<li><a href='/t{i}'>Most read on {site}: story {i}</a></li>"))
        .collect();
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<html><head><title>{headline}</title></head><body><nav><ul>{menu}</ul></nav>\
         <h1>{headline}</h1><article>{body}</article><aside><ul>{teasers}</ul></aside>\
         <footer><p>Copyright {site}. All rights reserved. This material may not be \
         published, broadcast, rewritten or redistributed without the permission of the \
         owners of {site}, who can be reached through the contact page.</p></footer>\
         </body></html>"
    )
}

/// Writes `pages` (path → HTML) under a temporary folder, ingests it, and returns the
/// stored content texts by URL.
fn content_texts(pages: &[(String, String)]) -> HashMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("crawl");
    for (path, html) in pages {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, html).unwrap();
    }
    let db = dir.path().join("c.db");
    let opts = IngestOptions {
        extract: ExtractOptions {
            main_content: false,
            ..ExtractOptions::default()
        },
        ..IngestOptions::default()
    };
    ingest_paths(&db, &[PathBuf::from(&root)], &opts).unwrap();
    read_texts(&db)
}

fn read_texts(db: &Path) -> HashMap<String, String> {
    let store = Store::open(db).unwrap();
    let mut out = HashMap::new();
    store
        .for_each_text_chunk(TextKind::Content, 100, |docs| {
            for d in docs {
                out.insert(d.url, d.text);
            }
            Ok(())
        })
        .unwrap();
    out
}

/// SpotSigs multiset Jaccard of two texts (default antecedents, d = 2, c = 3).
fn spotsigs_jaccard(a: &str, b: &str) -> f64 {
    let p = SpotSigParams::default();
    let count = |t: &str| {
        let mut m: HashMap<String, usize> = HashMap::new();
        for s in extract_text(t, &p) {
            *m.entry(s.sig).or_default() += 1;
        }
        m
    };
    let (ma, mb) = (count(a), count(b));
    let keys: std::collections::HashSet<&String> = ma.keys().chain(mb.keys()).collect();
    let (mut min, mut max) = (0, 0);
    for k in keys {
        let (x, y) = (
            ma.get(k).copied().unwrap_or(0),
            mb.get(k).copied().unwrap_or(0),
        );
        min += x.min(y);
        max += x.max(y);
    }
    if max == 0 {
        0.0
    } else {
        min as f64 / max as f64
    }
}

#[test]
fn a_template_larger_than_the_stories_is_removed_across_the_sites_pages() {
    // Six stories on one site: the template is most of each page's visible text.
    let topics = [
        "harbour", "library", "railway", "school", "hospital", "museum",
    ];
    let pages: Vec<(String, String)> = topics
        .iter()
        .map(|t| {
            (
                format!("daily.example/{t}.html"),
                page("daily.example", &format!("The {t} plan"), &story(t)),
            )
        })
        .collect();
    let texts = content_texts(&pages);
    let harbour = &texts["daily.example/harbour.html"];
    let library = &texts["daily.example/library.html"];
    for text in [harbour, library] {
        assert!(!text.contains("Most read on"), "{text}");
        assert!(!text.contains("All rights reserved"), "{text}");
        assert!(!text.contains("Business"), "{text}");
    }
    assert!(harbour.contains("Paragraph 4 of the harbour story"));
    // Two different stories of the site now share nothing a detector reads.
    assert!(spotsigs_jaccard(harbour, library) < 0.1);
}

#[test]
fn a_footer_is_not_taken_for_the_main_text_of_an_api_page() {
    // One reference page of a small manual: signatures and a license footer, the case where
    // a readability-style extractor returns the footer.
    let rows: String = (0..120)
        .map(|i| format!("<tr><td>int</td><td>widget_get_{i}(Widget *w, guint flags)</td></tr>"))
        .collect();
    let html = format!(
        "<html><body><h1>Widget API</h1><table>{rows}</table><p>This manual is free \
         documentation; you can redistribute it and modify it under the terms of the license \
         that came with it, in the hope that it will be useful to the people who read it.</p>\
         </body></html>"
    );
    let texts = content_texts(&[("manual/widget.html".into(), html)]);
    let text = &texts["manual/widget.html"];
    assert!(
        text.contains("widget_get_0(Widget *w, guint flags)"),
        "{text}"
    );
    assert!(text.contains("widget_get_119"), "{text}");
}

#[test]
fn a_truncated_copy_on_another_site_stays_close_to_its_original() {
    let full = story("harbour");
    let mut truncated: Vec<String> = full[..2].to_vec();
    truncated[0].insert_str(0, "LONDON (Reuters) - ");
    truncated.push("(Reporting by Jane Doe; Editing by Tom Berg)".into());
    let texts = content_texts(&[
        (
            "first.example/a.html".into(),
            page("first.example", "Harbour plan", &full),
        ),
        (
            "second.example/b.html".into(),
            page("second.example", "UPDATE 1-Harbour plan", &truncated),
        ),
        (
            "third.example/c.html".into(),
            page("third.example", "Library plan", &story("library")),
        ),
    ]);
    let (a, b, c) = (
        &texts["first.example/a.html"],
        &texts["second.example/b.html"],
        &texts["third.example/c.html"],
    );
    assert!(!a.contains("Most read on"), "{a}");
    let copy = spotsigs_jaccard(a, b);
    let other = spotsigs_jaccard(a, c);
    // Half the story is at most half the signatures; the templates add nothing.
    assert!(copy >= 0.4, "copy {copy}");
    assert!(other < 0.2, "other story {other}");
}

#[test]
fn copies_in_other_languages_keep_their_article() {
    let es: Vec<String> = (1..=4)
        .map(|i| {
            format!(
                "Párrafo {i}: el consejo regional dijo el lunes que el plan del puerto sería \
                 revisado de nuevo después de escuchar a los vecinos, y que se espera una \
                 decisión sobre el presupuesto antes del final del mes, cuando los miembros \
                 del comité se reúnan por última vez este año."
            )
        })
        .collect();
    let zh: Vec<String> = (1..=4)
        .map(|i| {
            format!(
                "第{i}段：地区议会周一表示，在听取居民意见之后，港口计划将再次接受审查，\
                 预计在本月底之前就预算作出决定，届时委员会成员将在今年最后一次开会讨论此事。"
            )
        })
        .collect();
    let texts = content_texts(&[
        (
            "one.example/es.html".into(),
            page("one.example", "Plan del puerto", &es),
        ),
        (
            "two.example/zh.html".into(),
            page("two.example", "港口计划", &zh),
        ),
    ]);
    let es_text = &texts["one.example/es.html"];
    assert!(es_text.contains("Párrafo 4"), "{es_text}");
    assert!(!es_text.contains("Most read on"), "{es_text}");
    let zh_text = &texts["two.example/zh.html"];
    assert!(zh_text.contains("第4段"), "{zh_text}");
    assert!(!zh_text.contains("Most read on"), "{zh_text}");
}
