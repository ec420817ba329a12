//! Ctrl-C (and SIGTERM): the first stops the run cleanly (the sample in flight is killed and
//! not recorded, everything already written stays); a second exits at once with 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

fn flag() -> &'static Arc<AtomicBool> {
    static INTERRUPTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    INTERRUPTED.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Installs the handler; once per process (a run over several networks starts several runs,
/// and a second registration would exit on the first signal).
pub fn install_interrupt_handler() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(register);
}

fn register() {
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // The exit is registered first so that it sees the flag as the first signal left it:
        // set means this is the second. Registration fails only for a forbidden signal,
        // which these are not; a run without the handler still stops on the default action.
        let _ = signal_hook::flag::register_conditional_shutdown(signal, 130, flag().clone());
        let _ = signal_hook::flag::register(signal, flag().clone());
    }
}

pub fn interrupted() -> bool {
    flag().load(Ordering::SeqCst)
}
