//! The worker threads that split one large AES-GCM message across cores
//! (`aekit::gcm::Pool`), shared by every key of the process: an opt-in
//! (`aekit.set_threads(0)` or `n`), as in the Rust library.
//!
//! Why not by default: on an idle machine two cores encrypt 1 MiB in about
//! half the time, but where the cores are busy with other processes a
//! worker that is not scheduled holds up the message it took a slice of,
//! and the call waits for it: several times as long as on one thread
//! (the package's README, "Speed"). A drop-in must not do that behind the
//! caller's back.
//!
//! The pool is created on the first message long enough to be split (the
//! pool's own threshold, [`aekit::gcm::DEFAULT_THRESHOLD`]), so programs
//! that only encrypt short messages never start a thread.
//!
//! `os.fork()` copies only the forking thread: in the child the pool's
//! workers do not exist, and a call that waited on them would hang. So the
//! pool remembers the process it was made in, and a child makes its own
//! (the parent's is forgotten, not dropped: dropping it would signal
//! threads that are not there). The lock is only ever taken with the GIL
//! held, so no other thread can hold it when Python forks.

use std::sync::{Arc, Mutex, PoisonError};

use aekit::gcm::Pool;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The threads asked for (0: one per core; 1, the default: none), the
/// pool, and the id of the
/// process that made it.
struct Shared {
    threads: usize,
    pool: Option<(u32, Arc<Pool>)>,
}

impl Shared {
    /// Takes the pool out if this process (`pid`) made it; one inherited
    /// over `fork` is forgotten, not dropped.
    fn take_own(&mut self, pid: u32) -> Option<Arc<Pool>> {
        match self.pool.take() {
            Some((owner, pool)) if owner == pid => Some(pool),
            Some(inherited) => {
                std::mem::forget(inherited);
                None
            }
            None => None,
        }
    }
}

static SHARED: Mutex<Shared> = Mutex::new(Shared {
    threads: 1,
    pool: None,
});

/// The process's pool, or `None` when one thread was asked for or the
/// system refuses threads: the caller then stays on its own thread.
pub fn shared() -> Option<Arc<Pool>> {
    let pid = std::process::id();
    let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(pool) = shared.take_own(pid) {
        shared.pool = Some((pid, Arc::clone(&pool)));
        return Some(pool);
    }
    if shared.threads == 1 {
        return None;
    }
    let pool = Arc::new(Pool::new(shared.threads).ok()?);
    shared.pool = Some((pid, Arc::clone(&pool)));
    Some(pool)
}

/// Sets how many threads one AES-GCM message of 128 KiB or more may be
/// split across: 1 (the default) keeps every message on the calling
/// thread, 0 uses one thread per core, `n` that many. Splitting pays on an
/// otherwise idle machine; where the cores are busy with other work, a
/// descheduled worker delays the whole message, and 1 is the better choice.
#[pyfunction]
pub fn set_threads(threads: usize) -> PyResult<()> {
    if threads > 1024 {
        return Err(PyValueError::new_err("threads must be at most 1024"));
    }
    let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    shared.threads = threads;
    // The next large message makes a pool of the new size; one in use by
    // another thread's message lives until that message is done.
    drop(shared.take_own(std::process::id()));
    Ok(())
}
