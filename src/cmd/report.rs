//! `spotcheck report`: one methods-report file (HTML, or Markdown by the `.md` extension)
//! with what a methods section needs: corpus counts, each run's method and parameters, the
//! estimated precision, recall and F1 with 95% intervals from the labeled sample (if one
//! was drawn), the score histograms with each run's threshold (SVG inline, drawn by
//! `chart::svg`), the coders' agreement, and a paragraph to paste. Crawled text never
//! enters it (only counts, method names and parameters), and what does is escaped.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use super::eval::{evaluate_sample, fmt_interval, SampleEval};
use crate::chart::load::{load_figures, FigureRequest};
use crate::chart::svg::scores_svg;
use crate::store::Store;

/// What `report` writes.
#[derive(Debug, Clone)]
pub struct ReportConfig {
    pub db: PathBuf,
    pub out: PathBuf,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The report as Markdown (GitHub-flavoured tables; the SVG figures inline).
pub fn render_markdown(store: &Store) -> Result<String> {
    let mut md = String::new();
    let stats = store.stats()?;
    let runs: Vec<_> = store.runs()?.into_iter().filter(|r| r.finished).collect();
    let sample: Option<SampleEval> = match store.latest_sample()? {
        Some(s) => Some(evaluate_sample(store, Some(s.id))?),
        None => None,
    };
    writeln!(md, "# Near-duplicate detection: methods report\n")?;
    writeln!(md, "## Corpus\n")?;
    writeln!(
        md,
        "| sources | documents | exact-duplicate documents | ingest errors |"
    )?;
    writeln!(md, "|---|---|---|---|")?;
    writeln!(
        md,
        "| {} | {} | {} | {} |\n",
        stats.sources, stats.documents, stats.exact_duplicates, stats.errors
    )?;
    writeln!(md, "## Detector runs\n")?;
    writeln!(md, "| run | method | parameters |")?;
    writeln!(md, "|---|---|---|")?;
    for r in &runs {
        writeln!(
            md,
            "| {} | {} | `{}` |",
            r.id,
            esc(&r.method),
            esc(&r.params.to_string()).replace('|', "\\|")
        )?;
    }
    writeln!(md)?;
    writeln!(md, "## Estimated precision, recall and F1\n")?;
    match &sample {
        None => writeln!(
            md,
            "No labeled sample yet: draw one with `spotcheck sample`, label it, and \
             rerun the report.\n"
        )?,
        Some(e) => {
            writeln!(
                md,
                "| run | method | pairs | precision [95% CI] | recall [95% CI] | F1 [95% CI] |"
            )?;
            writeln!(md, "|---|---|---|---|---|---|")?;
            for r in &e.runs {
                writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} |",
                    r.run,
                    esc(&r.method),
                    r.estimate.predicted,
                    fmt_interval(r.estimate.precision),
                    fmt_interval(r.estimate.recall),
                    fmt_interval(r.estimate.f1)
                )?;
            }
            writeln!(md)?;
            let strata: Vec<String> = e
                .strata
                .iter()
                .zip(&e.stratum_counts)
                .map(|(s, c)| {
                    format!(
                        "{} ({} of {} pairs labeled)",
                        s.name, c.labeled, s.population
                    )
                })
                .collect();
            writeln!(
                md,
                "**Methods paragraph.** Precision and recall of each detector were estimated \
                 over all {} document pairs of the collection ({} documents) from a stratified \
                 random sample of {} pairs (seed {}), {} of which were labeled by human coders \
                 ({} pairs the coders disagreed on without adjudication were left out). Strata \
                 were formed by the highest similarity any detector or a candidate generator \
                 (MinHash LSH at Jaccard ≥ 0.3 on 5-word shingles; pairs sharing 3 or more \
                 5-word shingles found in at most 50 documents, scored by a Jaccard lower \
                 bound) gave a pair, with pairs no method proposed as a last, random stratum: \
                 {}. Estimates use {}. An estimated {:.0} \
                 (95% CI {:.0}–{:.0}) pairs are near-duplicates, of which {:.0} ({:.0}–{:.0}) \
                 were proposed by no detector.\n",
                e.strata.iter().map(|s| s.population).sum::<u64>(),
                e.sample.documents,
                e.pairs,
                e.sample.seed,
                e.labeled,
                e.disagreed,
                strata.join("; "),
                e.method,
                e.true_pairs.estimate,
                e.true_pairs.low,
                e.true_pairs.high,
                e.unfound.estimate,
                e.unfound.low,
                e.unfound.high
            )?;
        }
    }
    writeln!(md, "## Score histograms with thresholds\n")?;
    if runs.is_empty() {
        writeln!(md, "No finished detector run.\n")?;
    } else {
        let figures = load_figures(store, &FigureRequest::default())?;
        let histograms: Vec<_> = figures.runs.iter().map(|r| r.histogram.clone()).collect();
        let what_if: Vec<_> = figures
            .runs
            .iter()
            .map(|r| Some(r.what_if_at(&figures.labels, r.start_threshold())))
            .collect();
        let svg = scores_svg(&histograms, &what_if)?;
        writeln!(md, "<figure class=\"scores\">\n{svg}\n</figure>\n")?;
    }
    writeln!(md, "## Agreement between coders\n")?;
    let agreements = store.adjudicated_agreements()?;
    if agreements.is_empty() {
        writeln!(md, "Fewer than two coders labeled shared pairs.\n")?;
    } else {
        writeln!(
            md,
            "| coder A | coder B | shared pairs | agreed | Cohen's κ | disagreements adjudicated | κ after adjudication |"
        )?;
        writeln!(md, "|---|---|---|---|---|---|---|")?;
        let k = |k: Option<f64>| k.map_or("-".into(), |k| format!("{k:.3}"));
        for a in &agreements {
            writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} of {} | {} |",
                esc(&crate::review::sanitize_line(&a.before.coder_a)),
                esc(&crate::review::sanitize_line(&a.before.coder_b)),
                a.before.shared_pairs,
                a.before.agreed,
                k(a.before.kappa),
                a.resolved,
                a.disagreed,
                k(a.after.kappa)
            )?;
        }
        writeln!(md)?;
    }
    Ok(md)
}

/// Minimal Markdown → HTML for what [`render_markdown`] writes: headings, tables, paragraphs
/// and the inline figure (passed through).
pub fn markdown_to_html(md: &str) -> String {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>spotcheck methods report</title>\
         <style>body{font-family:sans-serif;max-width:60em;margin:2em auto}\
         table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}\
         td:last-child{overflow-wrap:anywhere}</style>\
         </head><body>\n",
    );
    let mut in_table = false;
    let mut in_raw = false;
    for line in md.lines() {
        if in_raw {
            html.push_str(line);
            html.push('\n');
            if line.starts_with("</figure>") {
                in_raw = false;
            }
            continue;
        }
        if line.starts_with("<figure") {
            in_raw = true;
            html.push_str(line);
            html.push('\n');
            continue;
        }
        if let Some(row) = line.strip_prefix('|') {
            if row.starts_with("---") {
                continue;
            }
            if !in_table {
                html.push_str("<table>\n");
                in_table = true;
            }
            let cells: Vec<&str> = row.trim_end_matches('|').split(" | ").collect();
            html.push_str("<tr>");
            for c in cells {
                let c = c.trim().trim_matches('`').replace("\\|", "|");
                let _ = write!(html, "<td>{c}</td>");
            }
            html.push_str("</tr>\n");
            continue;
        }
        if in_table {
            html.push_str("</table>\n");
            in_table = false;
        }
        if let Some(h) = line.strip_prefix("## ") {
            let _ = writeln!(html, "<h2>{h}</h2>");
        } else if let Some(h) = line.strip_prefix("# ") {
            let _ = writeln!(html, "<h1>{h}</h1>");
        } else if !line.trim().is_empty() {
            let text = line.replace("**Methods paragraph.**", "<b>Methods paragraph.</b>");
            let _ = writeln!(html, "<p>{text}</p>");
        }
    }
    if in_table {
        html.push_str("</table>\n");
    }
    html.push_str("</body></html>\n");
    html
}

pub fn run(a: &ReportConfig) -> Result<ExitCode> {
    let ext = a
        .out
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !matches!(ext.as_str(), "html" | "htm" | "md") {
        return super::usage_error("--out must end in .html or .md");
    }
    let store = Store::open_existing(&a.db)?;
    let md = render_markdown(&store)?;
    let text = if ext == "md" {
        md
    } else {
        markdown_to_html(&md)
    };
    std::fs::write(&a.out, text)
        .with_context(|| format!("cannot write the report to {}", a.out.display()))?;
    eprintln!("wrote {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}
