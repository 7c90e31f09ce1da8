//! Traceback walk over the direction codes of a filled tile (spec §4.1).

use super::kernel::{D_OPENED, DirSource, I_OPENED, state_of};
use super::{OP_D, OP_I, OP_M};

/// Bases consumed by a traceback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Steps {
    pub ref_steps: usize,
    pub query_steps: usize,
}

/// Walks from `(i, j)` toward the tile origin, appending states in traceback
/// order. Stops on a Z state or, checked before each state, once either
/// sequence has consumed `early_terminate` bases.
pub(super) fn trace<D: DirSource>(
    dirs: &D,
    start: (usize, usize),
    early_terminate: i32,
    ops: &mut Vec<u8>,
) -> Steps {
    let limit = early_terminate as i64;
    let (mut i, mut j) = start;
    let mut steps = Steps::default();
    let mut state = state_of(dirs.dir_at(i, j));
    while state != 0 {
        if steps.ref_steps as i64 >= limit || steps.query_steps as i64 >= limit {
            break;
        }
        ops.push(state);
        // With gap scores <= 0 every visited state has a positive value, so
        // the walk never leaves the matrix; the border guards only make that
        // impossible rather than undefined (upstream would index row -1).
        match state {
            OP_M => {
                state = if i > 1 && j > 1 {
                    state_of(dirs.dir_at(i - 1, j - 1))
                } else {
                    0
                };
                i = i.saturating_sub(1);
                j = j.saturating_sub(1);
                steps.ref_steps += 1;
                steps.query_steps += 1;
            }
            OP_I => {
                // The flag of the current cell says whether this I opened here.
                state = if i > 1 && dirs.dir_at(i, j) & I_OPENED != 0 {
                    OP_M
                } else if i > 1 {
                    OP_I
                } else {
                    0
                };
                i -= 1;
                steps.ref_steps += 1;
            }
            _ => {
                debug_assert_eq!(state, OP_D);
                state = if j > 1 && dirs.dir_at(i, j) & D_OPENED != 0 {
                    OP_M
                } else if j > 1 {
                    OP_D
                } else {
                    0
                };
                j -= 1;
                steps.query_steps += 1;
            }
        }
    }
    steps
}
