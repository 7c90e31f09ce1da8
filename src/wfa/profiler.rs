//! The arithmetic and report text of WFA2-lib 2.3.3's profiler counters and
//! timers (`system/profiler_counter.c`, `profiler_timer.c`), which its
//! benchmark harness links against. The C exports in `ffi::wfa2::system`
//! only move the caller's structs in and out and print these strings.

const K: u64 = 1_000;
const M: u64 = 1_000_000;
const G: u64 = 1_000_000_000;

/// A sample counter with Welford's running variance, field for field as
/// upstream's `profiler_counter_t`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counter {
    pub total: u64,
    pub samples: u64,
    pub min: u64,
    pub max: u64,
    pub old_mean: f64,
    pub new_mean: f64,
    pub old_s: f64,
    pub new_s: f64,
}

impl Counter {
    /// Adds one sample of `amount` (the total wraps, as upstream's).
    pub fn add(&mut self, amount: u64) {
        self.total = self.total.wrapping_add(amount);
        self.samples += 1;
        let x = amount as f64;
        if self.samples == 1 {
            self.min = amount;
            self.max = amount;
            self.old_mean = x;
            self.new_mean = x;
            self.old_s = 0.0;
        } else {
            // Welford's running variance, in upstream's field order.
            self.min = self.min.min(amount);
            self.max = self.max.max(amount);
            self.new_mean = self.old_mean + (x - self.old_mean) / self.samples as f64;
            self.new_s = self.old_s + (x - self.old_mean) * (x - self.new_mean);
            self.old_mean = self.new_mean;
            self.old_s = self.new_s;
        }
    }

    fn variance(&self) -> f64 {
        if self.samples > 1 {
            self.new_s / (self.samples - 1) as f64
        } else {
            0.0
        }
    }
}

fn scaled(prefix: &str, v: f64, suffix: &str) -> String {
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

/// ` ( 12.34 %)`: `total`'s share of `reference`.
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

fn counter_stats(c: &Counter) -> String {
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
    let var = c.variance() as u64;
    let sd = c.variance().sqrt() as u64;
    s += &scaled(",Var", var as f64, "");
    s += &scaled(",StdDev", sd as f64, ")}\n");
    s
}

/// `counter_print`'s line: the total with a metric prefix and `units`, the
/// share of `reference` (a reference counter's total) when there is one,
/// and with `full_report` the sample statistics.
pub fn counter_report(
    c: &Counter,
    reference: Option<u64>,
    units: &str,
    full_report: bool,
) -> String {
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
    match reference {
        Some(r) => s += &percentage(t, r),
        None => s += "           ",
    }
    if full_report {
        s += &counter_stats(c);
    } else {
        s.push('\n');
    }
    s
}

fn time_unit(ns: u64) -> (f64, &'static str, bool) {
    if ns > G {
        (ns as f64 / 1e9, "s", true)
    } else if ns > M {
        (ns as f64 / 1e6, "ms", true)
    } else if ns > K {
        (ns as f64 / 1e3, "us", true)
    } else {
        (ns as f64, "ns", false)
    }
}

/// `timer_print`'s line: total time (`total` ns, laps plus accumulated),
/// share of `reference` ns, calls, time per call, min and max lap.
pub fn timer_report(total: u64, reference: Option<u64>, laps: &Counter) -> String {
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
    if let Some(r) = reference {
        s += &percentage(total, r);
    }
    let calls = laps.samples;
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
        return s;
    }
    let per_call = total / calls;
    s += &match time_unit(per_call) {
        (v, "s", _) => format!(",{v:7.2}  s/call"),
        (v, unit, true) => format!(",{v:7.2} {unit}/call"),
        _ => format!(",{per_call:7} ns/call"),
    };
    let min = laps.min;
    s += &match time_unit(min) {
        (v, unit, true) => format!(" {{min{v:.2}{unit}"),
        _ => format!(" {{min{min}ns"),
    };
    let max = laps.max;
    s += &match time_unit(max) {
        (v, unit, true) => format!(",Max{v:.2}{unit}}})\n"),
        _ => format!(",Max{max}ns}})\n"),
    };
    s
}

/// `nominal_prop_u32`: `base * factor` for a factor in [0, 1], else the
/// factor itself, truncated.
pub fn nominal_prop_u32(base: u32, factor: f64) -> u32 {
    if (0.0..=1.0).contains(&factor) {
        (base as f64 * factor) as u32
    } else {
        factor as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_reports_like_upstream() {
        let mut c = Counter::default();
        for x in [10, 20, 30] {
            c.add(x);
        }
        assert_eq!(c.total, 60);
        assert_eq!((c.min, c.max), (10, 30));
        assert_eq!(c.variance(), 100.0);
        assert_eq!(
            counter_report(&c, Some(120), "ops", true),
            "  60.00 ops  ( 50.00 %) (samples=3{mean20.00,min10.00,Max30.00,Var100.00,StdDev10.00)}\n"
        );
        assert_eq!(
            counter_report(&Counter::default(), None, "x", false),
            "   0.00 x            \n"
        );
        assert_eq!(nominal_prop_u32(100, 0.5), 50);
        assert_eq!(nominal_prop_u32(100, 7.9), 7);
    }
}
