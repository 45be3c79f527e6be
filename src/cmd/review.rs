//! `spotcheck review`: open the project database, start a review session for one coder and
//! hand it to the terminal UI.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::review::Session;
use crate::store::Store;
use crate::tui::{self, Keymap};

/// The coder name when `--coder` is not given: `$USER`, else "coder".
pub fn default_coder() -> String {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| "coder".to_string())
}

/// Who reviews which database, how.
#[derive(Debug, Clone)]
pub struct ReviewConfig {
    pub db: PathBuf,
    /// `None`: [`default_coder`].
    pub coder: Option<String>,
    pub blind: bool,
    /// A keymap file merged over the bundled one.
    pub keymap: Option<PathBuf>,
    /// The queue order to start in.
    pub order: crate::model::QueueSort,
    /// Move on to the next entry after a verdict (the default; `--no-auto-advance`).
    pub auto_advance: bool,
    /// Replay base for members' replay links (pywb collection, Wayback Machine).
    pub replay_url: Option<String>,
}

pub fn run(a: &ReviewConfig) -> Result<ExitCode> {
    let keys = Keymap::load(a.keymap.as_deref())?;
    let store = Store::open_existing(&a.db)?;
    let coder = a.coder.clone().unwrap_or_else(default_coder);
    if coder.trim().is_empty() {
        bail!("--coder must not be empty");
    }
    let mut session = Session::start(store, &coder, a.blind)?;
    if a.order != crate::model::QueueSort::default() {
        session.set_sort(a.order)?;
    }
    session.auto_advance = a.auto_advance;
    session.replay_base = a.replay_url.clone();
    if !std::io::stdout().is_terminal() {
        bail!("`spotcheck review` needs a terminal (stdout is not one)");
    }
    tui::run(session, &keys)?;
    Ok(ExitCode::SUCCESS)
}
