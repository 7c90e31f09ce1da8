//! One-line diagnostics on stderr, prefixed `[seqshim]`, filtered by
//! `SEQSHIM_LOG`. A library must not chatter, so only warnings (a setting we
//! ignored, a GPU we gave up on) are shown unless the user asks for more.

use super::config::{self, LogLevel};

/// Whether messages of `level` are shown under the current configuration.
pub fn enabled(level: LogLevel) -> bool {
    level != LogLevel::Off && level <= config::get().log
}

/// Zero of the debug lines' clock: the first debug line.
static DEBUG_ZERO: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// `at` in milliseconds on the debug lines' clock (negative before the
/// first line), so that other events can be placed on their timeline.
pub fn debug_ms(at: std::time::Instant) -> f64 {
    let zero = *DEBUG_ZERO.get_or_init(std::time::Instant::now);
    match at.checked_duration_since(zero) {
        Some(after) => after.as_secs_f64() * 1e3,
        None => -(zero - at).as_secs_f64() * 1e3,
    }
}

/// Writes one line to stderr. Errors writing to stderr are ignored: a closed
/// stderr must never take the host down.
pub fn emit(level: LogLevel, args: std::fmt::Arguments<'_>) {
    if enabled(level) {
        use std::io::Write;
        let tag = match level {
            LogLevel::Warn => "warning: ",
            _ => "",
        };
        if level == LogLevel::Debug {
            // Debug lines carry the time since the first one, so that the
            // work of concurrent streams can be laid out on one timeline.
            let _ = writeln!(
                std::io::stderr().lock(),
                "[seqshim] {:.1} ms: {args}",
                debug_ms(std::time::Instant::now())
            );
        } else {
            let _ = writeln!(std::io::stderr().lock(), "[seqshim] {tag}{args}");
        }
    }
}

#[macro_export]
#[doc(hidden)]
macro_rules! log_warn {
    ($($arg:tt)*) => {
        $crate::engine::log::emit($crate::engine::config::LogLevel::Warn, format_args!($($arg)*))
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! log_info {
    ($($arg:tt)*) => {
        $crate::engine::log::emit($crate::engine::config::LogLevel::Info, format_args!($($arg)*))
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! log_debug {
    ($($arg:tt)*) => {
        $crate::engine::log::emit($crate::engine::config::LogLevel::Debug, format_args!($($arg)*))
    };
}
