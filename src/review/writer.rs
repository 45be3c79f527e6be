//! The label writer: one thread that writes the derived labels of the decisions a review
//! session appends to the log, in log order, a bounded step at a time, so no key waits for
//! the n(n−1)/2 pair labels of a large cluster or the statuses of a batch of thousands.
//! The session commits each decision's log row itself (durable at the key press) and then
//! pokes the writer; the writer reports each row it finished and when it has caught up.
//!
//! Both write to the database, so they share a [`Gate`]: the session's short append goes
//! first, and the writer takes the gate again only between its steps — a key that records
//! a decision waits at most for one step (a chunk of pair labels), never for a whole
//! cluster. Stopping the writer (dropping it) waits for the step in progress; what is left
//! is written by the next [`Store::open`] (every step is idempotent, see
//! `store::label_writes`).

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use anyhow::Result;

use crate::store::Store;

/// The writer thread's name (the terminal UI's panic hook leaves its panics to it).
pub const WRITER_THREAD: &str = "spotcheck-label-writer";

/// Log rows read per query of the pending rows.
const ROWS_PER_READ: usize = 64;

/// Rows written between two passive checkpoints. The writer's connection does not
/// checkpoint at its commits (they hold the gate, and a checkpoint copying megabytes of
/// pair labels would hold up a key); it checkpoints after a step, outside the gate, about
/// every few megabytes of log, and when it has caught up.
const ROWS_PER_CHECKPOINT: usize = 50_000;

#[derive(Default)]
struct GateState {
    busy: bool,
    /// Appends waiting for the gate: the writer lets them go first.
    urgent: usize,
}

/// The in-process write lock of a session's two writing connections: whoever holds it may
/// write; an urgent holder (the UI's append) is let in before the writer's next step.
#[derive(Default)]
pub struct Gate {
    state: Mutex<GateState>,
    free: Condvar,
}

/// Holds the gate until dropped.
pub struct GateGuard<'a>(&'a Gate);

impl Gate {
    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the gate ahead of the writer (the UI thread).
    pub fn urgent(&self) -> GateGuard<'_> {
        let mut s = self.lock();
        s.urgent += 1;
        while s.busy {
            s = self.free.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.urgent -= 1;
        s.busy = true;
        GateGuard(self)
    }

    /// Takes the gate when no urgent holder waits (the writer thread).
    pub fn background(&self) -> GateGuard<'_> {
        let mut s = self.lock();
        while s.busy || s.urgent > 0 {
            s = self.free.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.busy = true;
        GateGuard(self)
    }
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        self.0.lock().busy = false;
        self.0.free.notify_all();
    }
}

/// What the writer reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Saved {
    /// The derived labels of every log row up to this id are written.
    Through(i64),
    /// Nothing is pending any more (every row up to this id is written).
    Idle(i64),
    /// Writing failed; the log rows are intact and the next start writes their labels.
    Failed(String),
}

#[derive(Default)]
struct State {
    poked: bool,
    /// Tests hold the writer to see the frames drawn while labels are pending.
    held: bool,
    quit: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until there is work and the writer is not held; false when it should stop.
    fn wait_for_work(&self) -> bool {
        let mut s = self.lock();
        loop {
            if s.quit {
                return false;
            }
            if s.poked && !s.held {
                s.poked = false;
                return true;
            }
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Between two steps: waits while held; false when it should stop.
    fn may_continue(&self) -> bool {
        let mut s = self.lock();
        loop {
            if s.quit {
                return false;
            }
            if !s.held {
                return true;
            }
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The writer thread of one session and the channel its reports come back on.
pub struct LabelWriter {
    db: PathBuf,
    gate: Arc<Gate>,
    shared: Arc<Shared>,
    results: Receiver<Saved>,
    sender: Sender<Saved>,
    thread: Option<JoinHandle<()>>,
}

impl LabelWriter {
    /// A writer for the database at `db` (the thread starts at the first poke).
    pub fn new(db: PathBuf) -> LabelWriter {
        let (sender, results) = mpsc::channel();
        LabelWriter {
            db,
            gate: Arc::new(Gate::default()),
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                wake: Condvar::new(),
            }),
            results,
            sender,
            thread: None,
        }
    }

    /// The gate the session's own writes take ([`Gate::urgent`]).
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// Tells the writer that log rows are waiting for their labels.
    pub fn poke(&mut self) -> Result<()> {
        if self.thread.is_none() {
            let (shared, sender, gate, db) = (
                self.shared.clone(),
                self.sender.clone(),
                self.gate.clone(),
                self.db.clone(),
            );
            self.thread = Some(
                std::thread::Builder::new()
                    .name(WRITER_THREAD.into())
                    .spawn(move || writer_loop(&shared, &sender, &gate, &db))?,
            );
        }
        self.shared.lock().poked = true;
        self.shared.wake.notify_all();
        Ok(())
    }

    /// Holds the writer before its next step (true) or lets it go on (false); for tests.
    pub fn hold(&self, held: bool) {
        self.shared.lock().held = held;
        self.shared.wake.notify_all();
    }

    /// A report, if one is waiting.
    pub fn try_result(&self) -> Option<Saved> {
        self.results.try_recv().ok()
    }

    /// Waits for the next report (None if the writer is gone).
    pub fn wait_result(&self) -> Option<Saved> {
        if self.thread.is_none() {
            return self.try_result();
        }
        self.results.recv().ok()
    }
}

impl Drop for LabelWriter {
    /// Stops the writer after the step in progress (what it leaves, the next open writes).
    fn drop(&mut self) {
        self.shared.lock().quit = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn writer_loop(shared: &Shared, sender: &Sender<Saved>, gate: &Gate, db: &std::path::Path) {
    let mut store: Option<Store> = None;
    while shared.wait_for_work() {
        // A bug must not take the session down: report it, and retry at the next poke.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            catch_up(shared, sender, gate, &mut store, db)
        }))
        .unwrap_or_else(|payload| {
            store = None;
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(anyhow::anyhow!("the label writer panicked: {what}"))
        });
        let report = match result {
            Ok(Some(through)) => Saved::Idle(through),
            Ok(None) => return,
            Err(e) => Saved::Failed(format!("{e:#}")),
        };
        if sender.send(report).is_err() {
            return;
        }
    }
}

/// Writes every pending row; the last row written when caught up, None when told to stop.
fn catch_up(
    shared: &Shared,
    sender: &Sender<Saved>,
    gate: &Gate,
    store: &mut Option<Store>,
    db: &std::path::Path,
) -> Result<Option<i64>> {
    if store.is_none() {
        let st = Store::open_for_session_thread(db)?;
        st.set_wal_autocheckpoint(0)?;
        *store = Some(st);
    }
    let Some(st) = store.as_mut() else {
        anyhow::bail!("no database connection");
    };
    let mut written = 0;
    loop {
        let rows = st.pending_log_rows(ROWS_PER_READ)?;
        if rows.is_empty() {
            st.checkpoint_passive()?;
            return Ok(Some(st.labels_through()?));
        }
        for row in rows {
            let mut job = st.label_job(row)?;
            while !job.done() {
                if !shared.may_continue() {
                    return Ok(None);
                }
                if job.next_step_writes() {
                    written += {
                        let _g = gate.background();
                        st.label_job_step(&mut job)?
                    };
                    if written >= ROWS_PER_CHECKPOINT {
                        st.checkpoint_passive()?;
                        written = 0;
                    }
                } else {
                    st.label_job_step(&mut job)?;
                }
            }
            if sender.send(Saved::Through(job.row().id)).is_err() {
                return Ok(None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn an_urgent_holder_goes_before_the_next_background_step() {
        let gate = Arc::new(Gate::default());
        let order = Arc::new(Mutex::new(Vec::new()));
        let first = gate.background();
        // The writer waits for its next step while the UI waits too; the UI wins.
        let (g, o) = (gate.clone(), order.clone());
        let writer = std::thread::spawn(move || {
            let _x = g.background();
            o.lock().unwrap().push("writer");
        });
        let (g, o) = (gate.clone(), order.clone());
        let ui = std::thread::spawn(move || {
            let _x = g.urgent();
            o.lock().unwrap().push("ui");
        });
        // Release the first step only once the UI is queued for the gate.
        while gate.lock().urgent == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(first);
        ui.join().unwrap();
        writer.join().unwrap();
        assert_eq!(*order.lock().unwrap(), vec!["ui", "writer"]);
    }
}
