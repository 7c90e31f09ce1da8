//! Panic payloads as text. Panics are caught in three places (the C
//! boundary, the scheduler's CPU rescue, the CUDA bindings' calls), and all
//! of them log the payload the same way.

use std::any::Any;

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}
