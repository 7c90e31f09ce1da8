//! Device failures on purpose, for testing that every way a GPU can fail
//! ends on the CPU with nothing lost: `SEQSHIM_DEBUG_FAULTS`, a
//! comma-separated list of rules, each an operation and when it fails:
//!
//! | rule | fails |
//! |---|---|
//! | `alloc@3` | the 3rd device or pinned allocation of the process (as out of memory) |
//! | `launch%4` | every 4th kernel launch |
//! | `copy@N`, `copy%N` | host-to-device or device-to-host copies |
//! | `sync@N`, `sync%N` | waits for a stream or a fence (after the real wait) |
//! | `open@1` | opening a GPU (the process then has none) |
//! | `lost@N` | the N-th device operation of any kind and every one after it, as if the GPU had gone away |
//!
//! Counts are per process. The switch costs one load per device operation
//! when unset; it is meant for tests and is documented as such.

use std::sync::atomic::{AtomicU64, Ordering};

use super::DeviceError;
use super::budget;

/// The device operations a rule can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Open,
    Alloc,
    Copy,
    Launch,
    Sync,
}

impl Op {
    const ALL: [Op; 5] = [Op::Open, Op::Alloc, Op::Copy, Op::Launch, Op::Sync];

    fn name(self) -> &'static str {
        match self {
            Op::Open => "open",
            Op::Alloc => "alloc",
            Op::Copy => "copy",
            Op::Launch => "launch",
            Op::Sync => "sync",
        }
    }
}

/// When a rule's operation fails, counting its operations from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum When {
    /// The n-th only.
    At(u64),
    /// Every n-th.
    Every(u64),
}

/// One rule: `None` as the operation is `lost` (any operation, from the
/// n-th on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rule {
    op: Option<Op>,
    when: When,
}

/// A parsed `SEQSHIM_DEBUG_FAULTS`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultPlan {
    rules: Vec<Rule>,
    text: String,
}

impl FaultPlan {
    /// Parses the variable's value; `None` for text that is not a list of
    /// rules (the caller warns and injects nothing).
    pub fn parse(text: &str) -> Option<FaultPlan> {
        let mut rules = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, sep, count) = match part.find(['@', '%']) {
                Some(i) => (&part[..i], &part[i..=i], &part[i + 1..]),
                None => return None,
            };
            let n: u64 = count.trim().parse().ok().filter(|&n| n > 0)?;
            let name = name.trim().to_ascii_lowercase();
            let op = match name.as_str() {
                "lost" if sep == "@" => None,
                _ => Some(*Op::ALL.iter().find(|op| op.name() == name)?),
            };
            let when = if sep == "@" {
                When::At(n)
            } else {
                When::Every(n)
            };
            rules.push(Rule { op, when });
        }
        Some(FaultPlan {
            rules,
            text: text.trim().to_string(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether operation number `nth` of `op` (and number `any` of all
    /// operations) fails under this plan.
    fn fails(&self, op: Op, nth: u64, any: u64) -> bool {
        self.rules.iter().any(|rule| match (rule.op, rule.when) {
            (None, When::At(n)) => any >= n,
            (Some(o), When::At(n)) => o == op && nth == n,
            (Some(o), When::Every(n)) => o == op && nth % n == 0,
            (None, When::Every(_)) => false,
        })
    }
}

static COUNTS: [AtomicU64; 5] = [const { AtomicU64::new(0) }; 5];
static ANY: AtomicU64 = AtomicU64::new(0);

/// Counts one `op` and fails it when `SEQSHIM_DEBUG_FAULTS` says so. An
/// injected allocation failure is an out-of-memory error, as a real one is.
pub fn check(op: Op) -> Result<(), DeviceError> {
    let plan = &crate::engine::config::get().faults;
    if plan.is_empty() {
        return Ok(());
    }
    let nth = COUNTS[op as usize].fetch_add(1, Ordering::Relaxed) + 1;
    let any = ANY.fetch_add(1, Ordering::Relaxed) + 1;
    if !plan.fails(op, nth, any) {
        return Ok(());
    }
    let detail = format!(
        "injected {} failure #{nth} (SEQSHIM_DEBUG_FAULTS={})",
        op.name(),
        plan.text
    );
    Err(match op {
        Op::Alloc => budget::out_of_memory(&detail),
        _ => DeviceError(detail),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_and_fire_where_they_say() {
        let plan = FaultPlan::parse("alloc@2, launch%3,lost@10").expect("valid");
        assert!(!plan.fails(Op::Alloc, 1, 1));
        assert!(plan.fails(Op::Alloc, 2, 2));
        assert!(!plan.fails(Op::Alloc, 4, 4));
        assert!(plan.fails(Op::Launch, 3, 5) && plan.fails(Op::Launch, 6, 8));
        assert!(!plan.fails(Op::Launch, 4, 6));
        assert!(!plan.fails(Op::Copy, 1, 9));
        assert!(plan.fails(Op::Copy, 2, 10) && plan.fails(Op::Sync, 1, 11));
        assert_eq!(FaultPlan::parse(""), Some(FaultPlan::default()));
        for bad in ["launch", "launch@0", "gpu@1", "lost%2", "copy@x", "sync@-1"] {
            assert_eq!(FaultPlan::parse(bad), None, "{bad}");
        }
    }
}
