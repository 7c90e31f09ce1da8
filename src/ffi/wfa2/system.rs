//! The semi-public helpers upstream's benchmark harness links against:
//! profiler counters and timers, the sequence buffer, score matrices and
//! `nominal_prop_u32`, with 2.3.3's report formats.

use std::ffi::{c_char, c_int, c_void};

use super::io::Stream;
use super::mm_allocator::{allocate, free};
use super::types::{
    mm_allocator_t, profiler_counter_t, profiler_timer_t, score_matrix_t, sequence_buffer_t,
    sequence_offset_t,
};
use crate::ffi_guard;

const K: u64 = 1_000;
const M: u64 = 1_000_000;
const G: u64 = 1_000_000_000;

/// Zeroes the counter.
///
/// # Safety
/// `counter` must point to a writable `profiler_counter_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn counter_reset(counter: *mut profiler_counter_t) {
    ffi_guard!((), {
        // SAFETY: writable per the contract.
        unsafe { counter.write(profiler_counter_t::default()) }
    })
}

fn add(c: &mut profiler_counter_t, amount: u64) {
    c.total = c.total.wrapping_add(amount);
    c.samples += 1;
    let x = amount as f64;
    if c.samples == 1 {
        c.min = amount;
        c.max = amount;
        c.m_old_m = x;
        c.m_new_m = x;
        c.m_old_s = 0.0;
    } else {
        // Welford's running variance, in upstream's field order.
        c.min = c.min.min(amount);
        c.max = c.max.max(amount);
        c.m_new_m = c.m_old_m + (x - c.m_old_m) / c.samples as f64;
        c.m_new_s = c.m_old_s + (x - c.m_old_m) * (x - c.m_new_m);
        c.m_old_m = c.m_new_m;
        c.m_old_s = c.m_new_s;
    }
}

/// Adds one sample of `amount`.
///
/// # Safety
/// `counter` must point to a valid `profiler_counter_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn counter_add(counter: *mut profiler_counter_t, amount: u64) {
    // SAFETY: valid per the contract.
    ffi_guard!((), { add(unsafe { &mut *counter }, amount) })
}

fn variance(c: &profiler_counter_t) -> f64 {
    if c.samples > 1 {
        c.m_new_s / (c.samples - 1) as f64
    } else {
        0.0
    }
}

fn scaled(prefix: &str, value: f64, suffix: &str) -> String {
    let v = value;
    if v >= G as f64 {
        format!("{prefix}{:.2}G{suffix}", v / G as f64)
    } else if v >= M as f64 {
        format!("{prefix}{:.2}M{suffix}", v / M as f64)
    } else if v >= K as f64 {
        format!("{prefix}{:.2}K{suffix}", v / K as f64)
    } else {
        format!("{prefix}{v:.2}{suffix}")
    }
}

fn percentage(total: u64, reference: u64) -> String {
    if total == 0 {
        " (  0.00 %)".to_string()
    } else if reference == 0 {
        " (  n/a  %)".to_string()
    } else {
        let pct = total.wrapping_mul(100) as f64 / reference as f64;
        format!(" ({pct:6.2} %)")
    }
}

fn counter_stats(c: &profiler_counter_t) -> String {
    let n = c.samples;
    let mut s = if n >= G {
        format!(" (samples={}G", n / G)
    } else if n >= M {
        format!(" (samples={}M", n / M)
    } else if n >= K {
        format!(" (samples={}K", n / K)
    } else {
        format!(" (samples={n}")
    };
    if n == 0 {
        s.push_str(",--n/a--)}\n");
        return s;
    }
    s += &scaled("{mean", c.total as f64 / n as f64, "");
    s += &scaled(",min", c.min as f64, "");
    s += &scaled(",Max", c.max as f64, "");
    // Upstream truncates both to integers before printing them as doubles.
    let var = variance(c) as u64;
    let sd = variance(c).sqrt() as u64;
    s += &scaled(",Var", var as f64, "");
    s += &scaled(",StdDev", sd as f64, ")}\n");
    s
}

/// Prints the counter's total with a metric prefix and `units`, its share of
/// `ref_counter` when given, and with `full_report` its sample statistics.
///
/// # Safety
/// `stream` must be a valid `FILE*`, `counter` valid, `ref_counter` null or
/// valid, `units` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn counter_print(
    stream: *mut libc::FILE,
    counter: *const profiler_counter_t,
    ref_counter: *const profiler_counter_t,
    units: *const c_char,
    full_report: bool,
) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        let (c, units) = unsafe { (&*counter, std::ffi::CStr::from_ptr(units).to_bytes()) };
        let units = String::from_utf8_lossy(units);
        let t = c.total;
        let mut s = if t >= G {
            format!("{:7.2} G{units}", t as f64 / G as f64)
        } else if t >= M {
            format!("{:7.2} M{units}", t as f64 / M as f64)
        } else if t >= K {
            format!("{:7.2} K{units}", t as f64 / K as f64)
        } else {
            format!("{:7.2} {units} ", t as f64)
        };
        // SAFETY: null or valid per the contract.
        match unsafe { ref_counter.as_ref() } {
            Some(r) => s += &percentage(t, r.total),
            None => s += "           ",
        }
        if full_report {
            s += &counter_stats(c);
        } else {
            s.push('\n');
        }
        Stream(stream).write(s.as_bytes());
    })
}

fn now() -> (i64, i64) {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-parameter.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    (ts.tv_sec, ts.tv_nsec)
}

fn lap_ns(t: &profiler_timer_t) -> u64 {
    let (sec, nsec) = now();
    let diff = (sec - t.begin_timer.tv_sec) * 1_000_000_000 + (nsec - t.begin_timer.tv_nsec);
    diff as u64
}

/// Starts a lap.
///
/// # Safety
/// `timer` must point to a valid `profiler_timer_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn timer_start(timer: *mut profiler_timer_t) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        let t = unsafe { &mut *timer };
        t.accumulated = 0;
        let (sec, nsec) = now();
        t.begin_timer.tv_sec = sec;
        t.begin_timer.tv_nsec = nsec;
    })
}

/// Ends the lap and records it as one sample.
///
/// # Safety
/// `timer` must point to a valid, started `profiler_timer_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn timer_stop(timer: *mut profiler_timer_t) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        let t = unsafe { &mut *timer };
        t.accumulated = t.accumulated.wrapping_add(lap_ns(t));
        let acc = t.accumulated;
        add(&mut t.time_ns, acc);
        t.accumulated = 0;
    })
}

/// Forgets every sample.
///
/// # Safety
/// `timer` must point to a valid `profiler_timer_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn timer_reset(timer: *mut profiler_timer_t) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        let t = unsafe { &mut *timer };
        t.accumulated = 0;
        t.time_ns = profiler_counter_t::default();
    })
}

/// Recorded time plus the running lap, in nanoseconds.
///
/// # Safety
/// `timer` must point to a valid, started `profiler_timer_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn timer_get_current_total_ns(timer: *mut profiler_timer_t) -> u64 {
    ffi_guard!(0, {
        // SAFETY: valid per the contract.
        let t = unsafe { &*timer };
        t.time_ns
            .total
            .wrapping_add(t.accumulated)
            .wrapping_add(lap_ns(t))
    })
}

fn time_unit(ns: u64) -> (f64, &'static str, bool) {
    let gt = |limit: u64| ns > limit;
    if gt(G) {
        (ns as f64 / 1e9, "s", true)
    } else if gt(M) {
        (ns as f64 / 1e6, "ms", true)
    } else if gt(K) {
        (ns as f64 / 1e3, "us", true)
    } else {
        (ns as f64, "ns", false)
    }
}

/// Prints total time, share of `ref_timer`, calls, time per call, min, max.
///
/// # Safety
/// `stream` must be a valid `FILE*`, `timer` valid, `ref_timer` null or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn timer_print(
    stream: *mut libc::FILE,
    timer: *const profiler_timer_t,
    ref_timer: *const profiler_timer_t,
) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        let t = unsafe { &*timer };
        let total = t.time_ns.total.wrapping_add(t.accumulated);
        let mut s = if total >= 60 * G {
            format!("{:7.2} m ", total as f64 / 60e9)
        } else if total >= G {
            format!("{:7.2} s ", total as f64 / 1e9)
        } else if total >= M {
            format!("{:7.2} ms", total as f64 / 1e6)
        } else if total >= K {
            format!("{:7.2} us", total as f64 / 1e3)
        } else {
            format!("{total:7} ns")
        };
        // SAFETY: null or valid per the contract.
        if let Some(r) = unsafe { ref_timer.as_ref() } {
            s += &percentage(total, r.time_ns.total.wrapping_add(r.accumulated));
        }
        let calls = t.time_ns.samples;
        s += &if calls >= G {
            format!(" ({:5} Gcalls", calls / G)
        } else if calls >= M {
            format!(" ({:5} Mcalls", calls / M)
        } else if calls >= K {
            format!(" ({:5} Kcalls", calls / K)
        } else if calls > 1 || calls == 0 {
            format!(" ({calls:5}  calls")
        } else {
            format!(" ({calls:5}   call")
        };
        if calls == 0 {
            s += ",   n/a   s/call)\n";
            Stream(stream).write(s.as_bytes());
            return;
        }
        let per_call = total / calls;
        s += &match time_unit(per_call) {
            (v, "s", _) => format!(",{v:7.2}  s/call"),
            (v, unit, true) => format!(",{v:7.2} {unit}/call"),
            _ => format!(",{per_call:7} ns/call"),
        };
        let min = t.time_ns.min;
        s += &match time_unit(min) {
            (v, unit, true) => format!(" {{min{v:.2}{unit}"),
            _ => format!(" {{min{min}ns"),
        };
        let max = t.time_ns.max;
        s += &match time_unit(max) {
            (v, unit, true) => format!(",Max{v:.2}{unit}}})\n"),
            _ => format!(",Max{max}ns}})\n"),
        };
        Stream(stream).write(s.as_bytes());
    })
}

/// `base * factor` for a factor in [0,1], else the factor itself, truncated.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nominal_prop_u32(base: u32, factor: f64) -> u32 {
    ffi_guard!(0, {
        if (0.0..=1.0).contains(&factor) {
            (base as f64 * factor) as u32
        } else {
            factor as u32
        }
    })
}

/// Creates a buffer of sequence pairs (libc memory, as upstream).
///
/// # Safety
/// Always safe to call; release with [`sequence_buffer_delete`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sequence_buffer_new(
    num_sequences_hint: u64,
    sequence_length_hint: u64,
) -> *mut sequence_buffer_t {
    ffi_guard!(std::ptr::null_mut(), {
        let bytes = num_sequences_hint.wrapping_mul(sequence_length_hint);
        // SAFETY: plain mallocs; a null result is left for the caller to see,
        // as upstream does.
        unsafe {
            let sb = libc::malloc(size_of::<sequence_buffer_t>()) as *mut sequence_buffer_t;
            if sb.is_null() {
                return sb;
            }
            sb.write(sequence_buffer_t {
                sequence_id: 1,
                offsets: libc::malloc(
                    (num_sequences_hint as usize).saturating_mul(size_of::<sequence_offset_t>()),
                )
                .cast(),
                offsets_used: 0,
                offsets_allocated: num_sequences_hint,
                buffer: libc::malloc(bytes as usize).cast(),
                buffer_used: 0,
                buffer_allocated: bytes,
                max_pattern_length: 0,
                max_text_length: 0,
            });
            sb
        }
    })
}

/// Forgets every pair, keeping the memory.
///
/// # Safety
/// `sequence_buffer` must come from [`sequence_buffer_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sequence_buffer_clear(sequence_buffer: *mut sequence_buffer_t) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        let sb = unsafe { &mut *sequence_buffer };
        sb.sequence_id = 1;
        sb.offsets_used = 0;
        sb.buffer_used = 0;
        sb.max_pattern_length = 0;
        sb.max_text_length = 0;
    })
}

/// Releases the buffer.
///
/// # Safety
/// `sequence_buffer` must come from [`sequence_buffer_new`] and not be used
/// afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sequence_buffer_delete(sequence_buffer: *mut sequence_buffer_t) {
    ffi_guard!((), {
        if sequence_buffer.is_null() {
            return;
        }
        // SAFETY: all three blocks come from libc malloc/realloc.
        unsafe {
            libc::free((*sequence_buffer).buffer.cast());
            libc::free((*sequence_buffer).offsets.cast());
            libc::free(sequence_buffer.cast());
        }
    })
}

/// Appends a pair: pattern, NUL, `!`, text, NUL, `?` (sentinels that stop
/// block comparisons at the ends), growing by 3/2 as upstream.
///
/// # Safety
/// `sequence_buffer` must come from [`sequence_buffer_new`]; the sequences
/// must be readable for their lengths.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sequence_buffer_add_pair(
    sequence_buffer: *mut sequence_buffer_t,
    pattern: *mut c_char,
    pattern_length: u64,
    text: *mut c_char,
    text_length: u64,
) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        let sb = unsafe { &mut *sequence_buffer };
        let needed = pattern_length + text_length + 4;
        if sb.buffer_used + needed > sb.buffer_allocated {
            let size = (3 * (sb.buffer_used + needed)) / 2;
            sb.buffer_allocated = size;
            // SAFETY: the buffer comes from malloc/realloc.
            sb.buffer = unsafe { libc::realloc(sb.buffer.cast(), size as usize) }.cast();
        }
        let pattern_offset = sb.buffer_used;
        // SAFETY: the buffer has `needed` bytes free; sequences are readable.
        unsafe {
            let mut at = sb.buffer.add(sb.buffer_used as usize) as *mut u8;
            std::ptr::copy_nonoverlapping(pattern as *const u8, at, pattern_length as usize);
            at = at.add(pattern_length as usize);
            *at = 0;
            *at.add(1) = b'!';
            at = at.add(2);
            std::ptr::copy_nonoverlapping(text as *const u8, at, text_length as usize);
            at = at.add(text_length as usize);
            *at = 0;
            *at.add(1) = b'?';
        }
        if sb.offsets_used == sb.offsets_allocated {
            // Upstream computes the new count through a float.
            let n = ((sb.offsets_used + 1) as f32 as f64 * 1.5) as u64;
            // SAFETY: offsets come from malloc/realloc.
            sb.offsets = unsafe {
                libc::realloc(
                    sb.offsets.cast(),
                    (n as usize) * size_of::<sequence_offset_t>(),
                )
            }
            .cast();
            sb.offsets_allocated = n;
        }
        // SAFETY: offsets_used < offsets_allocated now.
        unsafe {
            sb.offsets
                .add(sb.offsets_used as usize)
                .write(sequence_offset_t {
                    pattern_offset,
                    pattern_length,
                    text_offset: pattern_offset + pattern_length + 2,
                    text_length,
                })
        };
        sb.offsets_used += 1;
        sb.buffer_used += needed;
        sb.max_pattern_length = sb.max_pattern_length.max(pattern_length as c_int);
        sb.max_text_length = sb.max_text_length.max(text_length as c_int);
    })
}

/// Allocates a `num_rows` x `num_columns` DP matrix, column-major, from
/// `mm_allocator`.
///
/// # Safety
/// `score_matrix` must be writable and `mm_allocator` a live allocator.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn score_matrix_allocate(
    score_matrix: *mut score_matrix_t,
    num_rows: c_int,
    num_columns: c_int,
    mm_allocator: *mut mm_allocator_t,
) {
    ffi_guard!((), {
        let cols = num_columns.max(0) as usize;
        // SAFETY: live allocator and writable matrix per the contract.
        unsafe {
            let columns = allocate(
                mm_allocator,
                (cols * size_of::<*mut c_int>()) as u64,
                false,
                8,
            ) as *mut *mut c_int;
            for h in 0..cols {
                *columns.add(h) = allocate(
                    mm_allocator,
                    (num_rows.max(0) as usize * size_of::<c_int>()) as u64,
                    false,
                    8,
                )
                .cast();
            }
            score_matrix.write(score_matrix_t {
                columns,
                num_rows,
                num_columns,
                mm_allocator,
            });
        }
    })
}

/// Releases the matrix's columns.
///
/// # Safety
/// `score_matrix` must have been set up by [`score_matrix_allocate`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn score_matrix_free(score_matrix: *mut score_matrix_t) {
    ffi_guard!((), {
        // SAFETY: set up by score_matrix_allocate per the contract.
        unsafe {
            let m = &*score_matrix;
            for h in 0..m.num_columns.max(0) as usize {
                free(m.mm_allocator, *m.columns.add(h) as *mut c_void);
            }
            free(m.mm_allocator, m.columns.cast());
        }
    })
}

const fn encode_table() -> [u8; 256] {
    let mut table = [4u8; 256];
    let mut i = 0;
    while i < 4 {
        table[b"ACGT"[i] as usize] = i as u8;
        table[b"acgt"[i] as usize] = i as u8;
        i += 1;
    }
    table
}

/// Base -> 2-bit code (A0 C1 G2 T3, either case; everything else 4). Code
/// built for 2.3.3 reads it through the `dna_encode()` macro, so the
/// benchmark harness's own DP aligners need it exported.
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static dna_encode_table: [u8; 256] = encode_table();

/// Code -> base, the inverse of [`dna_encode_table`] (4 is `N`).
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static dna_decode_table: [c_char; 5] = [
    b'A' as c_char,
    b'C' as c_char,
    b'G' as c_char,
    b'T' as c_char,
    b'N' as c_char,
];
