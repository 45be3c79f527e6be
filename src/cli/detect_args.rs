//! The `detect` flags, generated from the method table: `--db`, `--method` (the table's
//! names and `all`), `--text`, `--json`, then every method's declared parameters under a
//! heading of their own. Each value is parsed and range-checked by its declared kind (clap
//! reports a bad one as a usage error naming the flag and the valid range); the given flags
//! are then planned into a validated `DetectConfig`, whose errors are usage errors too.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, ValueParser};
use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

use super::TextArg;
use crate::cmd::detect::DetectRequest;
use crate::detect::{self, Given, Kind, Value, ALL, METHODS};

/// `spotcheck detect`'s arguments, already validated.
#[derive(Debug)]
pub struct DetectArgs {
    pub request: DetectRequest,
}

impl Args for DetectArgs {
    fn augment_args(cmd: Command) -> Command {
        let mut cmd = cmd
            .arg(
                Arg::new("db")
                    .long("db")
                    .value_name("DB")
                    .required(true)
                    .value_parser(clap::value_parser!(PathBuf))
                    .help("The project's SQLite database (created by `ingest`)."),
            )
            .arg(
                Arg::new("method")
                    .long("method")
                    .value_name("METHOD")
                    .default_value(ALL)
                    .value_parser(PossibleValuesParser::new(detect::method_names()))
                    .help(format!(
                        "Which detectors run; `all`: {}.",
                        detect::all_description()
                    )),
            )
            .arg(
                Arg::new("text")
                    .long("text")
                    .value_name("TEXT")
                    .value_parser(clap::value_parser!(TextArg))
                    .help(format!(
                        "The stored text the detectors read [default: {}].",
                        detect::default_texts()
                    )),
            )
            .arg(
                Arg::new("json")
                    .long("json")
                    .action(ArgAction::SetTrue)
                    .help("Print each run's report as one JSON object."),
            );
        for m in METHODS {
            for p in m.params() {
                let arg = Arg::new(p.flag)
                    .long(p.flag)
                    .help(p.help_line())
                    .help_heading(m.title());
                let kind = p.kind;
                cmd = cmd.arg(match kind {
                    Kind::Switch => arg.action(ArgAction::SetTrue),
                    _ => arg
                        .value_name(p.value_name)
                        .action(ArgAction::Set)
                        // So that `--bags -1` reaches the range check (and its message).
                        .allow_negative_numbers(true)
                        .value_parser(ValueParser::new(move |s: &str| kind.parse(s))),
                });
            }
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for DetectArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let usage = |msg: String| clap::Error::raw(ErrorKind::ValueValidation, msg + "\n");
        let db = m
            .get_one::<PathBuf>("db")
            .cloned()
            .ok_or_else(|| usage("--db DB is required".into()))?;
        let mut given = Given {
            method: m
                .get_one::<String>("method")
                .cloned()
                .unwrap_or_else(|| ALL.into()),
            text: m.get_one::<TextArg>("text").map(|t| t.kind()),
            values: BTreeMap::new(),
        };
        for method in METHODS {
            for p in method.params() {
                let value = match p.kind {
                    Kind::Switch => m.get_flag(p.flag).then_some(Value::Switch(true)),
                    _ => m.get_one::<Value>(p.flag).cloned(),
                };
                if let Some(v) = value {
                    given.values.insert(p.flag.to_string(), v);
                }
            }
        }
        let config = detect::plan(&given).map_err(usage)?;
        Ok(DetectArgs {
            request: DetectRequest {
                db,
                config,
                json: m.get_flag("json"),
            },
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}
