//! The terminal UI: the only module that uses ratatui and crossterm (event loop, actions,
//! keymap, views).
