//! Keys as data: `MODE KEY ACTION` lines (the default file `assets/keymap.txt`, with a
//! user file merged over it), the names of crossterm key events, and lookups from a key on
//! a screen to a named action of `review::ACTIONS`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};

use crate::review::{action, Mode, ACTIONS};

/// The bundled default keymap.
pub const DEFAULT_KEYMAP: &str = include_str!("../../assets/keymap.txt");

/// Where a binding applies: one screen, or every screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Global,
    Screen(Mode),
}

/// Key bindings: (scope, key name) → action name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Keymap {
    bindings: BTreeMap<(Scope, String), String>,
}

impl Keymap {
    /// The default keymap (a parse error here is a bug caught by the tests).
    pub fn defaults() -> Keymap {
        let mut k = Keymap::default();
        if let Err(e) = k.merge(DEFAULT_KEYMAP, "assets/keymap.txt") {
            // Unreachable with the bundled file (tested); keep the UI usable regardless.
            eprintln!("spotcheck: {e:#}");
        }
        k
    }

    /// The defaults with a user file merged over them.
    pub fn load(user: Option<&Path>) -> Result<Keymap> {
        let mut k = Keymap::defaults();
        if let Some(p) = user {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read keymap {}", p.display()))?;
            k.merge(&text, &p.display().to_string())?;
        }
        Ok(k)
    }

    /// Adds the bindings of `text` (named `origin` in errors), replacing equal keys.
    pub fn merge(&mut self, text: &str, origin: &str) -> Result<()> {
        for (no, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [mode, key, act] = fields[..] else {
                bail!(
                    "{origin}:{}: expected `MODE KEY ACTION`, got {line:?}",
                    no + 1
                );
            };
            let scope = match mode {
                "global" => Scope::Global,
                m => match Mode::parse(m) {
                    Some(m) => Scope::Screen(m),
                    None => bail!("{origin}:{}: unknown mode {m:?}", no + 1),
                },
            };
            if parse_key(key).is_none() {
                bail!("{origin}:{}: unknown key {key:?}", no + 1);
            }
            if act != "none" && action(act).is_none() {
                bail!("{origin}:{}: unknown action {act:?}", no + 1);
            }
            self.bindings
                .insert((scope, key.to_string()), act.to_string());
        }
        Ok(())
    }

    /// The action bound to `key` on screen `mode` (the screen's binding wins over global).
    pub fn lookup(&self, mode: Mode, key: &str) -> Option<&str> {
        let found = self
            .bindings
            .get(&(Scope::Screen(mode), key.to_string()))
            .or_else(|| self.bindings.get(&(Scope::Global, key.to_string())))?;
        (found != "none").then_some(found.as_str())
    }

    /// The keys that trigger `action_name` on screen `mode`, in keymap order.
    pub fn keys_for(&self, mode: Mode, action_name: &str) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .bindings
            .keys()
            .filter(|(_, key)| self.lookup(mode, key) == Some(action_name))
            .filter(|(scope, _)| *scope == Scope::Global || *scope == Scope::Screen(mode))
            .map(|(_, k)| k.as_str())
            .collect();
        out.sort_by_key(|k| (k.chars().count() > 1, *k));
        out.dedup();
        out
    }

    /// Every action name that has no key anywhere (for the help screen to say so).
    pub fn unbound_actions(&self) -> Vec<&'static str> {
        ACTIONS
            .iter()
            .filter(|a| !self.bindings.values().any(|v| v == a.name))
            .map(|a| a.name)
            .collect()
    }
}

/// The keymap name of a key event (`j`, `G`, `Space`, `Ctrl-r`, `PageDown`), or None for
/// keys that have no name here.
pub fn key_name(ev: &KeyEvent) -> Option<String> {
    let base = match ev.code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "BackTab".into(),
        KeyCode::Backspace => "Backspace".into(),
        KeyCode::Delete => "Delete".into(),
        KeyCode::Up => "Up".into(),
        KeyCode::Down => "Down".into(),
        KeyCode::Left => "Left".into(),
        KeyCode::Right => "Right".into(),
        KeyCode::PageUp => "PageUp".into(),
        KeyCode::PageDown => "PageDown".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::F(n) => format!("F{n}"),
        _ => return None,
    };
    let mut name = String::new();
    if ev.modifiers.contains(KeyModifiers::CONTROL) {
        name.push_str("Ctrl-");
    }
    if ev.modifiers.contains(KeyModifiers::ALT) {
        name.push_str("Alt-");
    }
    name.push_str(&base);
    Some(name)
}

/// The key event a keymap name stands for (the inverse of [`key_name`]).
pub fn parse_key(name: &str) -> Option<KeyEvent> {
    let mut mods = KeyModifiers::NONE;
    let mut rest = name;
    loop {
        if let Some(r) = rest.strip_prefix("Ctrl-") {
            mods |= KeyModifiers::CONTROL;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("Alt-") {
            mods |= KeyModifiers::ALT;
            rest = r;
        } else {
            break;
        }
    }
    let code = match rest {
        "Space" => KeyCode::Char(' '),
        "Enter" => KeyCode::Enter,
        "Esc" => KeyCode::Esc,
        "Tab" => KeyCode::Tab,
        "BackTab" => KeyCode::BackTab,
        "Backspace" => KeyCode::Backspace,
        "Delete" => KeyCode::Delete,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "PageUp" => KeyCode::PageUp,
        "PageDown" => KeyCode::PageDown,
        "Home" => KeyCode::Home,
        "End" => KeyCode::End,
        f if f.len() > 1 && f.starts_with('F') => KeyCode::F(f[1..].parse().ok()?),
        s => {
            let mut cs = s.chars();
            let c = cs.next()?;
            if cs.next().is_some() {
                return None;
            }
            if c.is_uppercase() {
                mods |= KeyModifiers::SHIFT;
            }
            KeyCode::Char(c)
        }
    };
    Some(KeyEvent {
        code,
        modifiers: mods,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_keymap_parses_and_binds_every_action() {
        let mut k = Keymap::default();
        k.merge(DEFAULT_KEYMAP, "default").unwrap();
        assert_eq!(k.unbound_actions(), Vec::<&str>::new());
        // The keys issue 5 names.
        for (mode, key, act) in [
            (Mode::Queue, "j", "down"),
            (Mode::Queue, "Down", "down"),
            (Mode::Queue, "k", "up"),
            (Mode::Queue, "Enter", "open"),
            (Mode::Cluster, "Esc", "back"),
            (Mode::Queue, "y", "confirm"),
            (Mode::Cluster, "s", "split"),
            (Mode::Pair, "x", "reject"),
            (Mode::Queue, "?", "help"),
            (Mode::Queue, "t", "tag"),
            (Mode::Queue, "Space", "select"),
            (Mode::Queue, "u", "undo"),
            (Mode::Queue, "Ctrl-r", "redo"),
            (Mode::Pair, "d", "diff"),
            (Mode::Queue, "/", "search"),
            (Mode::Queue, "q", "quit"),
        ] {
            assert_eq!(k.lookup(mode, key), Some(act), "{mode:?} {key}");
        }
    }

    #[test]
    fn a_user_file_overrides_and_unbinds() {
        let mut k = Keymap::defaults();
        k.merge("queue J down\nglobal j none\n", "user").unwrap();
        assert_eq!(k.lookup(Mode::Queue, "J"), Some("down"));
        assert_eq!(k.lookup(Mode::Queue, "j"), None);
        assert_eq!(k.lookup(Mode::Queue, "k"), Some("up"));
        let e = k.merge("queue j fly", "user.txt").unwrap_err();
        assert!(e.to_string().contains("user.txt:1"), "{e}");
        assert!(k.merge("nowhere j down", "u").is_err());
        assert!(k.merge("queue Hyper-j down", "u").is_err());
    }

    #[test]
    fn key_names_round_trip() {
        for name in [
            "j", "G", "?", "Space", "Ctrl-r", "PageDown", "Esc", "F5", "Alt-x",
        ] {
            let ev = parse_key(name).unwrap();
            assert_eq!(key_name(&ev).as_deref(), Some(name));
        }
    }
}
