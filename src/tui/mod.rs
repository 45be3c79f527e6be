//! The terminal UI: the only module that uses ratatui and crossterm (event loop, actions,
//! keymap, views). It maps keys to the named actions of `review::ACTIONS`, draws the
//! session with a pure view function, and always gives the terminal back: on quit, on
//! Ctrl-C (a key in raw mode), on SIGINT/SIGTERM, on error and on panic; on SIGHUP (the
//! terminal is gone) it exits.

mod adjudicate;
pub mod keymap;
pub mod view;

use std::io::{stdout, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use ratatui::backend::{Backend, CrosstermBackend, TestBackend};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::Terminal;

use crate::review::Session;
pub use keymap::{key_name, parse_key, Keymap};
pub use view::{draw, viewport_for};

/// Handles one key: the prompt eats keys while open; otherwise the key's action (screen
/// binding first, then global) runs. An action's error becomes the status message rather
/// than ending the session: the decision log is intact either way. While an earlier key
/// waits for the background worker's read (a verdict asking what it changes, …) the key
/// is typed ahead: [`render`] replays it, in order, once that key has finished.
pub fn handle_key(s: &mut Session, keys: &Keymap, key: KeyEvent) {
    if key.kind == KeyEventKind::Release {
        return;
    }
    if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
        s.quit = true;
        return;
    }
    if s.awaiting() || s.has_typed_ahead() {
        if let Some(name) = key_name(&key) {
            s.type_ahead(name);
        }
        return;
    }
    run_key(s, keys, key);
}

/// Replays the keys typed ahead while a key waited, once it no longer does (the next one
/// that waits stops the replay again).
fn replay_typed_ahead(s: &mut Session, keys: &Keymap) {
    while let Some(name) = s.next_typed_ahead() {
        if let Some(ev) = parse_key(&name) {
            run_key(s, keys, ev);
        }
    }
}

fn run_key(s: &mut Session, keys: &Keymap, key: KeyEvent) {
    let result = if s.pending.is_some() {
        s.answer_pending(key.code == KeyCode::Char('y') && key.modifiers.is_empty())
    } else if s.input.is_some() {
        match key.code {
            KeyCode::Esc => {
                s.input_cancel();
                Ok(())
            }
            KeyCode::Enter => s.input_submit(),
            KeyCode::Backspace => {
                s.input_backspace();
                Ok(())
            }
            KeyCode::Tab => {
                s.input_complete();
                Ok(())
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                s.input_char(c);
                Ok(())
            }
            _ => Ok(()),
        }
    } else {
        match key_name(&key).and_then(|k| keys.lookup(s.mode(), &k).map(str::to_string)) {
            Some(action) => s.run_action(&action),
            None => Ok(()),
        }
    };
    if let Err(e) = result {
        s.message = format!("error: {e:#}");
    }
}

/// Lays the session out for `area` (loading the visible rows, wrapping) and draws it.
pub fn render<B: Backend>(
    terminal: &mut Terminal<B>,
    s: &mut Session,
    keys: &Keymap,
) -> Result<()> {
    let size = terminal.size()?;
    if s.has_typed_ahead() {
        s.poll_background();
        replay_typed_ahead(s, keys);
    }
    s.prepare(viewport_for(Rect::new(0, 0, size.width, size.height)))?;
    terminal.draw(|f| draw(f, s, keys))?;
    Ok(())
}

/// Feeds named keys (keymap names such as `j`, `Enter`, `Ctrl-r`; text for a prompt is
/// typed one character per name) and returns the frame drawn after the last one, on a
/// `width`×`height` test terminal. After each key it waits for the work the key started
/// off the UI thread, so the frames do not depend on timing. For tests and benchmarks.
pub fn render_keys(
    s: &mut Session,
    keys: &Keymap,
    names: &[&str],
    width: u16,
    height: u16,
) -> Result<Buffer> {
    let mut terminal = Terminal::new(TestBackend::new(width, height))?;
    render(&mut terminal, s, keys)?;
    for name in names {
        let Some(ev) = parse_key(name) else {
            anyhow::bail!("unknown key name {name:?}");
        };
        handle_key(s, keys, ev);
        render(&mut terminal, s, keys)?;
        settle(&mut terminal, s, keys)?;
    }
    Ok(terminal.backend().buffer().clone())
}

/// Waits for the work running off the UI thread and for the keys typed ahead meanwhile
/// (each replayed as the key before it finishes), drawing as it goes. What a harness that
/// drives a [`Session`] without the event loop calls before it looks at the database:
/// [`Session::wait_background`] alone returns with typed-ahead keys still to replay (the
/// next frame replays them), and a decision they record would then race the reader.
pub fn settle<B: Backend>(
    terminal: &mut Terminal<B>,
    s: &mut Session,
    keys: &Keymap,
) -> Result<()> {
    loop {
        s.wait_background();
        render(terminal, s, keys)?;
        if !s.busy() && !s.has_typed_ahead() {
            return Ok(());
        }
    }
}

/// Lets the held background worker run (see [`Session::hold_background`]), waits for it
/// and for the keys typed ahead meanwhile, and returns the frame drawn then. For tests.
pub fn release_and_render(
    s: &mut Session,
    keys: &Keymap,
    width: u16,
    height: u16,
) -> Result<Buffer> {
    let mut terminal = Terminal::new(TestBackend::new(width, height))?;
    s.hold_background(false);
    settle(&mut terminal, s, keys)?;
    Ok(terminal.backend().buffer().clone())
}

/// Puts the terminal back in its normal state (idempotent).
fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(stdout(), LeaveAlternateScreen, cursor::Show);
}

/// Restores the terminal when dropped, whatever way the loop ends.
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Gives the terminal back before the default hook prints a panic (a panic on the review
/// worker or the label writer thread is caught there and shown in the status line instead).
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let name = std::thread::current().name().map(str::to_string);
        if name.as_deref() == Some(crate::review::background::WORKER_THREAD)
            || name.as_deref() == Some(crate::review::writer::WRITER_THREAD)
        {
            return;
        }
        restore_terminal();
        previous(info);
    }));
}

/// A flag set by SIGINT or SIGTERM, so the loop ends and the guard restores the terminal
/// (in raw mode Ctrl-C is a key, handled as quit; this covers `kill`). A second SIGINT or
/// SIGTERM ends the process at once.
///
/// SIGHUP means the terminal is gone (a closed window, `tmux kill-session`): there is
/// nothing to restore, and the loop could not notice the flag anyway, because crossterm's
/// event source spins forever on a dead tty that reads EOF (crossterm issue #793, open in
/// 0.28/0.29). A watcher thread ends the process instead; every decision is already
/// committed, so nothing is lost.
fn stop_flag() -> Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        for (sig, status) in [(SIGINT, 130), (SIGTERM, 143)] {
            signal_hook::flag::register_conditional_shutdown(sig, status, flag.clone())?;
        }
        for sig in [SIGINT, SIGTERM] {
            signal_hook::flag::register(sig, flag.clone())?;
        }
        let mut hangups = signal_hook::iterator::Signals::new([SIGHUP])?;
        std::thread::Builder::new()
            .name("sighup".into())
            .spawn(move || {
                if hangups.forever().next().is_some() {
                    std::process::exit(129);
                }
            })?;
    }
    Ok(flag)
}

/// Test hook: the key named by this variable panics (tests check that a panic gives the
/// terminal back).
const DEBUG_PANIC_KEY: &str = "SPOTCHECK_DEBUG_PANIC_KEY";

/// Runs the workbench on the real terminal until the coder quits (or Ctrl-C, or a signal).
/// Waits for keys without spinning; while work runs off the UI thread it also wakes every
/// 15 ms to draw its result.
pub fn run(mut session: Session, keys: &Keymap) -> Result<()> {
    install_panic_hook();
    let stop = stop_flag()?;
    let panic_key = std::env::var(DEBUG_PANIC_KEY).ok();
    enable_raw_mode()?;
    let _guard = TerminalGuard;
    execute!(stdout(), EnterAlternateScreen, cursor::Hide)?;
    let mut terminal: Terminal<CrosstermBackend<Stdout>> =
        Terminal::new(CrosstermBackend::new(stdout()))?;
    terminal.clear()?;
    let mut dirty = true;
    loop {
        if dirty {
            render(&mut terminal, &mut session, keys)?;
            dirty = false;
        }
        if session.quit || stop.load(Ordering::Relaxed) {
            break;
        }
        // Keys typed ahead are replayed by the next frame (their key's read may have
        // landed while the last one was drawn).
        let wait = if session.busy() || session.has_typed_ahead() {
            Duration::from_millis(15)
        } else {
            Duration::from_millis(250)
        };
        if !event::poll(wait)? {
            dirty = session.poll_background() || session.has_typed_ahead();
            continue;
        }
        match event::read()? {
            Event::Key(k) => {
                if panic_key.is_some() && key_name(&k) == panic_key {
                    panic!("{DEBUG_PANIC_KEY} was pressed");
                }
                handle_key(&mut session, keys, k);
                if let Some(text) = session.clipboard.take() {
                    // Already sanitized; base64 inside the sequence besides.
                    use std::io::Write;
                    let mut out = stdout();
                    let _ = out.write_all(crate::review::replay::osc52(&text).as_bytes());
                    let _ = out.flush();
                }
                dirty = true;
            }
            Event::Resize(..) => {
                terminal.autoresize()?;
                dirty = true;
            }
            _ => {}
        }
    }
    Ok(())
}
