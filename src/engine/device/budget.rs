//! The per-process device-memory budget: how much of each GPU this process
//! may take (`SEQSHIM_GPU_MEMORY`, default a fair share), and a ledger per
//! GPU that every family's arenas draw on, so that several processes (a
//! workflow engine running four tool instances on one GPU) all find room.
//!
//! Arenas ask the ledger before they allocate ([`Ledger::grant`]) and give
//! their bytes back when they shrink or drop ([`Ledger::release`]). A grant
//! never takes the process past its cap, nor past what the driver says is
//! free (less [`HEADROOM`] left for other processes' contexts and small
//! allocations). What is granted may still fail to allocate when another
//! process got there first; arenas report that as an out-of-memory error
//! ([`out_of_memory`]) and the families shrink the batch or hand it to the
//! CPU.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::DeviceError;

/// How `SEQSHIM_GPU_MEMORY` says how much of each GPU a process may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GpuMemory {
    /// A number of bytes.
    Bytes(u64),
    /// A share of the GPU's total memory, in percent (above 0, at most 100).
    Percent(f64),
}

impl GpuMemory {
    /// What the variable's text means: bytes with an optional binary suffix
    /// (`K`, `M`, `G`, `T`, with or without `B` or `iB`: `512M`, `4GiB`,
    /// `1073741824`), or a percentage of the GPU's total memory (`25%`).
    /// Zero is refused: a process that may take no device memory should say
    /// `SEQSHIM_BACKEND=cpu`.
    pub fn parse(text: &str) -> Option<GpuMemory> {
        let text = text.trim();
        if let Some(number) = text.strip_suffix('%') {
            let percent: f64 = number.trim().parse().ok()?;
            return (percent > 0.0 && percent <= 100.0).then_some(GpuMemory::Percent(percent));
        }
        let digits = text
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(text.len());
        let (number, suffix) = text.split_at(digits);
        let shift = match suffix.trim().to_ascii_uppercase().as_str() {
            "" | "B" => 0,
            "K" | "KB" | "KIB" => 10,
            "M" | "MB" | "MIB" => 20,
            "G" | "GB" | "GIB" => 30,
            "T" | "TB" | "TIB" => 40,
            _ => return None,
        };
        let value: f64 = number.parse().ok()?;
        let bytes = value * (1u64 << shift) as f64;
        (bytes >= 1.0 && bytes < u64::MAX as f64).then_some(GpuMemory::Bytes(bytes as u64))
    }

    /// The cap in bytes on a GPU of `total` bytes (never more than `total`).
    pub fn bytes_of(self, total: usize) -> usize {
        match self {
            GpuMemory::Bytes(b) => usize::try_from(b).unwrap_or(usize::MAX).min(total),
            GpuMemory::Percent(p) => ((total as f64) * p / 100.0) as usize,
        }
    }
}

/// The default cap: half of what was free when the process opened the GPU,
/// and no more than a quarter of the GPU. Four processes started together
/// then each get a quarter of an idle GPU (the first would otherwise take
/// half of it); one started on a busy GPU takes half of what is left, so a
/// later one still finds room. Arenas grow to the cap only when the
/// workload asks for it.
pub fn default_cap(free: usize, total: usize) -> usize {
    (free / 2).min(total / 4)
}

/// The cap of a GPU with `free` of `total` bytes free at start, under
/// `setting` (`SEQSHIM_GPU_MEMORY`, `None` for the default).
pub fn cap_for(setting: Option<GpuMemory>, free: usize, total: usize) -> usize {
    match setting {
        Some(s) => s.bytes_of(total),
        None => default_cap(free, total),
    }
}

/// Device memory a grant leaves free for others: their contexts and the
/// small allocations a driver makes on its own.
pub(crate) const HEADROOM: usize = 256 << 20;

/// What one GPU's arenas in this process hold, against its cap.
#[derive(Debug)]
pub struct Ledger {
    cap: usize,
    entries: Mutex<Usage>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Device bytes granted and not released.
    pub device: usize,
    /// Most `device` ever was.
    pub peak: usize,
    /// Pinned host bytes the arenas hold (reported, not capped: they cost
    /// host memory, not device memory).
    pub pinned: usize,
    /// Grants refused (cap or free memory).
    pub refused: u64,
}

impl Ledger {
    pub fn new(cap: usize) -> Ledger {
        Ledger {
            cap,
            entries: Mutex::new(Usage::default()),
        }
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    pub fn usage(&self) -> Usage {
        *self.lock()
    }

    /// Bytes the cap still allows.
    pub fn available(&self) -> usize {
        self.cap.saturating_sub(self.lock().device)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Usage> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Grants between `least` and `most` device bytes (as much as allowed),
    /// in place of `returning` bytes the caller holds and gives back if the
    /// grant succeeds (a regrowth frees the old buffer first). `free` is
    /// what the driver says is free now, if known; the caller's own
    /// `returning` bytes count as free. An error says why not, and leaves
    /// the caller's `returning` bytes granted.
    pub fn grant(
        &self,
        returning: usize,
        least: usize,
        most: usize,
        free: Option<usize>,
    ) -> Result<usize, DeviceError> {
        let most = most.max(least);
        let mut e = self.lock();
        let others = e.device.saturating_sub(returning);
        let by_cap = self.cap.saturating_sub(others);
        let by_free = free.map_or(usize::MAX, |f| {
            f.saturating_add(returning).saturating_sub(HEADROOM)
        });
        let allowed = by_cap.min(by_free);
        if allowed < least {
            e.refused += 1;
            let why = if by_cap < least {
                format!(
                    "the process's cap of {} MiB ({} MiB in use)",
                    self.cap >> 20,
                    others >> 20
                )
            } else {
                format!(
                    "{} MiB free on the GPU",
                    free.unwrap_or(0).saturating_add(returning) >> 20
                )
            };
            return Err(out_of_memory(&format!("{least} bytes exceed {why}")));
        }
        let granted = most.min(allowed);
        e.device = others + granted;
        e.peak = e.peak.max(e.device);
        Ok(granted)
    }

    /// Gives back `bytes` of an earlier grant.
    pub fn release(&self, bytes: usize) {
        let mut e = self.lock();
        e.device = e.device.saturating_sub(bytes);
    }

    /// Records pinned host memory taken (`taken`) and given back
    /// (`returned`).
    pub fn pinned(&self, returned: usize, taken: usize) {
        let mut e = self.lock();
        e.pinned = e.pinned.saturating_sub(returned) + taken;
    }
}

/// The prefix of every out-of-memory error: a grant refused, or a device
/// or pinned allocation that failed.
const OUT_OF_MEMORY: &str = "out of device memory";

/// An out-of-memory error with `detail`.
pub fn out_of_memory(detail: &str) -> DeviceError {
    DeviceError(format!("{OUT_OF_MEMORY}: {detail}"))
}

impl DeviceError {
    /// Whether the error is a refused grant or a failed allocation, which a
    /// family answers by shrinking the batch or giving it to the CPU.
    pub fn is_out_of_memory(&self) -> bool {
        self.0.starts_with(OUT_OF_MEMORY)
    }
}

/// Logs a family's first out-of-memory fallback, once per process: when
/// another process holds the memory it persists, and one line says so
/// where one a batch would drown the log.
pub fn note_out_of_memory(family: &str, what: &str, e: &DeviceError) {
    static NOTED: AtomicBool = AtomicBool::new(false);
    if !NOTED.swap(true, Ordering::Relaxed) {
        crate::log_warn!(
            "{family}: {what} ({e}); such work runs in smaller launches or on the CPU \
             (logged once; SEQSHIM_GPU_MEMORY sets this process's share)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;
    const GIB: usize = 1 << 30;

    #[test]
    fn parses_bytes_suffixes_and_percentages() {
        assert_eq!(
            GpuMemory::parse("1073741824"),
            Some(GpuMemory::Bytes(1 << 30))
        );
        assert_eq!(GpuMemory::parse("512M"), Some(GpuMemory::Bytes(512 << 20)));
        assert_eq!(GpuMemory::parse("512m"), Some(GpuMemory::Bytes(512 << 20)));
        assert_eq!(GpuMemory::parse(" 4GiB "), Some(GpuMemory::Bytes(4 << 30)));
        assert_eq!(GpuMemory::parse("4 GB"), Some(GpuMemory::Bytes(4 << 30)));
        assert_eq!(GpuMemory::parse("1.5G"), Some(GpuMemory::Bytes(3 << 29)));
        assert_eq!(GpuMemory::parse("64k"), Some(GpuMemory::Bytes(64 << 10)));
        assert_eq!(GpuMemory::parse("1T"), Some(GpuMemory::Bytes(1 << 40)));
        assert_eq!(GpuMemory::parse("25%"), Some(GpuMemory::Percent(25.0)));
        assert_eq!(GpuMemory::parse("12.5 %"), Some(GpuMemory::Percent(12.5)));
        assert_eq!(GpuMemory::parse("100%"), Some(GpuMemory::Percent(100.0)));
        for bad in [
            "", "0", "0M", "0%", "101%", "-1G", "lots", "4X", "G", "1e3", "%",
        ] {
            assert_eq!(GpuMemory::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_setting_is_bytes_or_a_share_of_total_and_never_above_total() {
        let total = 80 * GIB;
        assert_eq!(GpuMemory::Percent(25.0).bytes_of(total), 20 * GIB);
        assert_eq!(GpuMemory::Bytes(1 << 30).bytes_of(total), GIB);
        assert_eq!(GpuMemory::Bytes(1 << 40).bytes_of(total), total);
        assert_eq!(
            cap_for(Some(GpuMemory::Bytes(3 << 30)), 10 * GIB, total),
            3 * GIB
        );
        // An explicit cap is taken as asked even above half the free memory:
        // the grants stay within what is free.
        assert_eq!(
            cap_for(Some(GpuMemory::Percent(50.0)), GIB, total),
            40 * GIB
        );
    }

    #[test]
    fn the_default_is_half_the_free_memory_and_at_most_a_quarter_of_total() {
        let total = 140 * GIB;
        // An idle GPU: a quarter each for four processes.
        assert_eq!(default_cap(139 * GIB, total), 35 * GIB);
        assert_eq!(cap_for(None, 139 * GIB, total), 35 * GIB);
        // A busy one: half of what is left.
        assert_eq!(default_cap(40 * GIB, total), 20 * GIB);
        assert_eq!(default_cap(0, total), 0);
    }

    #[test]
    fn grants_stay_within_the_cap_and_releases_make_room() {
        let ledger = Ledger::new(GIB);
        assert_eq!(ledger.grant(0, 256 * MIB, 512 * MIB, None), Ok(512 * MIB));
        // Settles for less than asked, never less than the least.
        assert_eq!(ledger.grant(0, 100 * MIB, GIB, None), Ok(512 * MIB));
        assert_eq!(ledger.available(), 0);
        let refused = ledger.grant(0, 1, 1, None).unwrap_err();
        assert!(refused.is_out_of_memory(), "{refused}");
        assert!(refused.0.contains("cap of 1024 MiB"), "{refused}");
        ledger.release(512 * MIB);
        assert_eq!(ledger.available(), 512 * MIB);
        let usage = ledger.usage();
        assert_eq!(
            (usage.device, usage.peak, usage.refused),
            (512 * MIB, GIB, 1)
        );
    }

    #[test]
    fn a_regrowth_counts_the_bytes_it_gives_back() {
        let ledger = Ledger::new(GIB);
        let held = ledger.grant(0, 600 * MIB, 600 * MIB, None).unwrap();
        // 900 MiB in place of the 600 held fits a 1 GiB cap.
        assert_eq!(
            ledger.grant(held, 900 * MIB, 900 * MIB, None),
            Ok(900 * MIB)
        );
        assert_eq!(ledger.usage().device, 900 * MIB);
        // A refused regrowth leaves what was held granted.
        assert!(ledger.grant(900 * MIB, 2 * GIB, 2 * GIB, None).is_err());
        assert_eq!(ledger.usage().device, 900 * MIB);
    }

    #[test]
    fn grants_leave_headroom_in_free_memory() {
        let ledger = Ledger::new(100 * GIB);
        let free = GIB;
        assert_eq!(ledger.grant(0, 1, 10 * GIB, Some(free)), Ok(GIB - HEADROOM));
        ledger.release(GIB - HEADROOM);
        let e = ledger.grant(0, GIB, GIB, Some(free)).unwrap_err();
        assert!(
            e.is_out_of_memory() && e.0.contains("free on the GPU"),
            "{e}"
        );
        // The caller's own bytes count as free for its regrowth.
        let held = ledger.grant(0, 512 * MIB, 512 * MIB, Some(free)).unwrap();
        assert_eq!(
            ledger.grant(held, 1, GIB, Some(free - held)),
            Ok(GIB - HEADROOM)
        );
    }

    #[test]
    fn pinned_memory_is_tracked_apart() {
        let ledger = Ledger::new(GIB);
        ledger.pinned(0, 64 * MIB);
        ledger.pinned(64 * MIB, 96 * MIB);
        assert_eq!(ledger.usage().pinned, 96 * MIB);
        assert_eq!(ledger.usage().device, 0);
    }

    #[test]
    fn only_allocation_failures_count_as_out_of_memory() {
        assert!(out_of_memory("x").is_out_of_memory());
        assert!(!DeviceError("launch of k failed".into()).is_out_of_memory());
    }
}
