//! A review session without a terminal: the queue, decisions, undo/redo, the spans to
//! highlight. The terminal UI in `tui` draws what this module decides.
