//! Many languages (issue 14): a Spanish wire story copied on three Spanish sites is found
//! like an English one, with no false pair among other Spanish stories of the same sites;
//! every document gets a language in `docs` and `stats`, also in a database made before
//! languages were kept.

use std::path::Path;

use crate::common;

/// A wire story of the kind agencies send to every subscriber (written for this test).
const WIRE: [&str; 4] = [
    "El Gobierno aprobó este martes un plan de inversiones de 3.000 millones de euros para \
     modernizar la red de trenes de cercanías, que según el ministerio de Transportes \
     transporta cada día a más de un millón de viajeros en las grandes ciudades del país.",
    "La ministra explicó en rueda de prensa que las obras comenzarán en la primavera y que \
     los primeros trenes nuevos estarán en servicio antes del verano de 2027, aunque los \
     sindicatos han advertido de que la plantilla actual es insuficiente para el calendario.",
    "Las asociaciones de usuarios, que llevan años denunciando retrasos y averías, recibieron \
     el anuncio con cautela y pidieron un calendario detallado de las obras, así como \
     compensaciones para los viajeros afectados por los cortes de las líneas más antiguas.",
    "El plan incluye además la renovación de cuarenta estaciones, la instalación de nuevos \
     sistemas de señalización y la contratación de mil doscientos trabajadores, una cifra que \
     la oposición considera escasa para una red que ha perdido personal durante una década.",
];

/// Other stories of the same sites: a second story the first and third sites share (cut on
/// the third), and one of the second site alone.
const OTHER: [[&str; 3]; 2] = [
    [
        "El ayuntamiento de la ciudad anunció ayer el cierre temporal del mercado central por \
         obras de rehabilitación que durarán al menos seis meses, según informó el concejal \
         de Urbanismo en un comunicado dirigido a los comerciantes y a los vecinos del barrio.",
        "Los comerciantes, que serán trasladados a una carpa instalada en la plaza contigua, \
         han expresado su preocupación por la pérdida de clientes durante el invierno y han \
         solicitado una reducción de las tasas municipales mientras duren los trabajos.",
        "El concejal aseguró que el nuevo mercado tendrá aparcamiento subterráneo, un espacio \
         para productores locales y una cubierta de paneles solares que permitirá reducir el \
         consumo eléctrico del edificio en más de la mitad respecto al actual.",
    ],
    [
        "La selección nacional de baloncesto se clasificó el domingo para la final del \
         campeonato tras vencer por un solo punto a Francia en un partido que se decidió en \
         el último segundo con un triple del base, elegido mejor jugador del encuentro.",
        "El seleccionador destacó la defensa del equipo en el último cuarto y recordó que \
         varios jugadores han disputado el torneo con molestias físicas, por lo que el cuerpo \
         técnico decidirá el sábado quiénes estarán disponibles para el partido decisivo.",
        "Miles de aficionados celebraron la victoria en las calles de la capital, donde el \
         ayuntamiento ha anunciado la instalación de pantallas gigantes en varias plazas para \
         que los vecinos puedan seguir la final del próximo domingo por la noche.",
    ],
];

/// A page of `site` in a Spanish news template around `headline` and `paragraphs`.
fn page(site: &str, headline: &str, paragraphs: &[String]) -> String {
    let menu: String = [
        "Portada",
        "Nacional",
        "Internacional",
        "Economía",
        "Deportes",
        "Cultura",
        "Opinión",
    ]
    .iter()
    .map(|m| format!("<li><a href='/{m}'>{m}</a></li>"))
    .collect();
    let teasers: String = (1..=8)
        .map(|i| format!("<li><a href='/t{i}'>Lo más leído en {site}: noticia {i}</a></li>"))
        .collect();
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<html lang='es'><head><title>{headline}</title></head><body><nav><ul>{menu}</ul>\
         </nav><h1>{headline}</h1><article>{body}</article><aside><ul>{teasers}</ul></aside>\
         <footer><p>© {site}. Todos los derechos reservados. Queda prohibida la reproducción \
         total o parcial de este contenido sin la autorización expresa de {site}, a la que \
         puede escribir desde la página de contacto.</p></footer></body></html>"
    )
}

/// Three sites, each with a copy of the wire story (edited as syndication edits it: a
/// dateline and a trailer added, a copy cut to three paragraphs with its headline
/// rewritten) and one or two other stories. Returns the folder.
fn spanish_sites(root: &Path) {
    let wire: Vec<String> = WIRE.iter().map(|p| p.to_string()).collect();
    let mut dated = wire.clone();
    dated[0] = format!("MADRID, 18 nov (Agencia). - {}", dated[0]);
    dated.push("(Información de Ana López; edición de Carlos Ruiz)".into());
    let mut cut: Vec<String> = wire[..3].to_vec();
    cut[1] = cut[1].replace("rueda de prensa", "una comparecencia");
    let other = |i: usize| -> Vec<String> { OTHER[i].iter().map(|p| p.to_string()).collect() };
    let pages = [
        (
            "diario-uno.es/trenes.html",
            page(
                "diario-uno.es",
                "El Gobierno invertirá 3.000 millones en cercanías",
                &wire,
            ),
        ),
        (
            "diario-uno.es/mercado.html",
            page("diario-uno.es", "Cierra el mercado central", &other(0)),
        ),
        (
            "noticias-dos.es/cercanias.html",
            page(
                "noticias-dos.es",
                "Plan de 3.000 millones para los trenes",
                &dated,
            ),
        ),
        (
            "noticias-dos.es/baloncesto.html",
            page("noticias-dos.es", "España, a la final", &other(1)),
        ),
        (
            "gaceta-tres.es/plan-trenes.html",
            page("gaceta-tres.es", "Cercanías: nuevos trenes en 2027", &cut),
        ),
        (
            "gaceta-tres.es/mercado.html",
            page("gaceta-tres.es", "Obras en el mercado", &other(0)[..2]),
        ),
    ];
    for (path, html) in pages {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, html).unwrap();
    }
}

/// The pairs `pairs --method M` lists, each sorted.
fn pairs(db: &str, method: &str) -> Vec<(String, String)> {
    let (out, _) =
        common::spotcheck_ok(&["pairs", "--db", db, "--method", method, "--format", "tsv"]);
    let mut ps: Vec<(String, String)> = out
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split('\t');
            let (a, b) = (f.next()?.to_string(), f.next()?.to_string());
            Some(if a < b { (a, b) } else { (b, a) })
        })
        .collect();
    ps.sort();
    ps
}

const COPIES: [&str; 3] = [
    "diario-uno.es/trenes.html",
    "gaceta-tres.es/plan-trenes.html",
    "noticias-dos.es/cercanias.html",
];

#[test]
fn a_spanish_wire_story_on_three_spanish_sites_is_found_with_default_settings() {
    let (dir, db) = common::temp_db();
    let root = dir.path().join("crawl");
    spanish_sites(&root);
    let db = db.to_str().unwrap();
    common::spotcheck_ok(&["ingest", "--quiet", "--db", db, root.to_str().unwrap()]);
    common::spotcheck_ok(&["detect", "--db", db]);
    let market = (
        "diario-uno.es/mercado.html".to_string(),
        "gaceta-tres.es/mercado.html".to_string(),
    );
    let want: Vec<(String, String)> = vec![
        market.clone(),
        (COPIES[0].into(), COPIES[1].into()),
        (COPIES[0].into(), COPIES[2].into()),
        (COPIES[1].into(), COPIES[2].into()),
    ];
    // SpotSigs alone finds every pair of copies and nothing else; the union of the default
    // detectors (what the queue shows) holds no pair of different stories.
    assert_eq!(pairs(db, "spotsigs"), want);
    for method in ["imatch", "cooper"] {
        for pair in pairs(db, method) {
            let (a, b) = (pair.0.as_str(), pair.1.as_str());
            assert!(
                (COPIES.contains(&a) && COPIES.contains(&b)) || pair == market,
                "{method} paired different stories: {a} {b}"
            );
        }
    }
    // With the English antecedents alone (the paper's list) the same copies are not found:
    // the Spanish ones are what sign them.
    let english = dir.path().join("english.txt");
    std::fs::write(
        &english,
        "a\nan\nthe\nbe\nis\nare\nwas\nwere\nbeen\ncan\ncould\nwill\nwould\nhave\nhas\nhad\n\
         do\ndoes\ndid\n",
    )
    .unwrap();
    common::spotcheck_ok(&[
        "detect",
        "--db",
        db,
        "--method",
        "spotsigs",
        "--antecedents",
        english.to_str().unwrap(),
    ]);
    let english_pairs = pairs(db, "spotsigs");
    assert!(
        english_pairs.len() < want.len(),
        "English antecedents alone found {english_pairs:?}"
    );
}

#[test]
fn every_document_gets_a_language_in_docs_and_stats_even_in_an_older_database() {
    let (dir, db) = common::temp_db();
    let root = dir.path().join("crawl");
    spanish_sites(&root);
    std::fs::write(
        root.join("diario-uno.es/menu.html"),
        "<html><body><p>Portada · Mapa</p></body></html>",
    )
    .unwrap();
    let db_path = db.clone();
    let db = db.to_str().unwrap();
    common::spotcheck_ok(&["ingest", "--quiet", "--db", db, root.to_str().unwrap()]);
    let check = || {
        let (out, _) = common::spotcheck_ok(&["docs", "--db", db]);
        let langs: Vec<(String, String)> = out
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["url"].as_str().unwrap().to_string(),
                    v["lang"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(langs.len(), 7, "{out}");
        for (url, lang) in &langs {
            // A page of two words says nothing about its language.
            let want = if url.ends_with("menu.html") {
                "und"
            } else {
                "es"
            };
            assert_eq!(lang, want, "{url}");
        }
        let (tsv, _) = common::spotcheck_ok(&["docs", "--db", db, "--format", "tsv"]);
        assert!(
            tsv.starts_with("url\ttitle\tchars\tdup_group\tsource\tlang\tdate\n"),
            "{tsv}"
        );
        assert_eq!(
            tsv.lines().filter(|l| l.contains("\tes\t")).count(),
            6,
            "{tsv}"
        );
        let (stats, _) = common::spotcheck_ok(&["stats", "--db", db]);
        assert!(
            stats.contains("languages               es 6, und 1"),
            "{stats}"
        );
        let (json, _) = common::spotcheck_ok(&["stats", "--db", db, "--json"]);
        let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
        assert_eq!(v["languages"]["es"], 6, "{v}");
    };
    check();
    // A database from before languages were kept has no rows: the next reader fills them.
    {
        let conn = rusqlite::Connection::open(&db_path).unwrap();
        conn.execute("DELETE FROM document_langs", []).unwrap();
    }
    check();
}
