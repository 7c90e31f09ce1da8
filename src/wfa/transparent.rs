//! The transparent GPU path of the synchronous `wavefront_align`: which
//! calls may go to a device, and sending them. A call the devices take
//! becomes a one-pair job for the family's scheduler (the engine's
//! [`place`](crate::engine::family::place) routine): concurrent callers' jobs
//! are coalesced into GPU batches, and a call whose result the GPU would
//! return later than the caller's own thread runs there (the engine's
//! cost-aware routing). On by default since that routing cannot lose;
//! `SEQSHIM_WFA_TRANSPARENT=0` turns it off.

use std::sync::Arc;

use super::AlignerAttributes;
use super::job::{self, PairResult, PairSet, Wfa, WfaJob};
use crate::engine::family::Timing;
use crate::engine::family::{self, Placement};
use crate::engine::scheduler::ScheduleError;

/// Whether the transparent path is on for this process: unless
/// `SEQSHIM_WFA_TRANSPARENT=0`, and while the process may have a device
/// (one relaxed load once it is known to have none).
pub fn enabled() -> bool {
    // Read once: every `wavefront_align` call asks.
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    (cfg!(test)
        || *ON.get_or_init(|| {
            crate::engine::config::get().setting::<bool>("SEQSHIM_WFA_TRANSPARENT") != Some(false)
        }))
        && family::devices_possible()
}

/// What [`align_on_device`] did with a pair.
pub enum Offer {
    /// A device aligned it (or failed to, in strict mode).
    Device(Result<PairResult, ScheduleError>),
    /// The caller aligns it on its own thread, holding the timer (if any)
    /// meanwhile so that the routing learns what pairs cost there.
    Here(Timing<WfaJob>),
}

/// Aligns one pair on a device when the path is on, a device is in use, it
/// aligns this configuration and pair exactly, and its result would come
/// back sooner than the caller's own; otherwise [`Offer::Here`] (nothing
/// was run or copied).
pub fn align_on_device(attributes: &AlignerAttributes, pattern: &[u8], text: &[u8]) -> Offer {
    if !enabled() {
        return Offer::Here(Timing::Untimed);
    }
    let bases = (pattern.len() + text.len()) as u64;
    let placed = family::place::<Wfa>(bases, || {
        if !job::device_may_take(attributes, pattern.len(), text.len()) {
            return None;
        }
        let mut pairs = PairSet::with_capacity(1, pattern.len() + text.len());
        pairs.push(pattern, text);
        Some(WfaJob::new(*attributes, Arc::new(pairs), 0..1, true))
    });
    match placed {
        Placement::Here(timer) => Offer::Here(timer),
        Placement::Submitted(Ok(mut results)) if results.len() == 1 => {
            Offer::Device(Ok(results.pop().expect("one result")))
        }
        Placement::Submitted(Ok(_)) => Offer::Here(Timing::Untimed),
        Placement::Submitted(Err(e)) => Offer::Device(Err(e)),
    }
}
