//! The WFA2-lib 2.3.3 C ABI (`libwfa2.so.0`): layouts, the 43 public
//! functions of `wfa.h` and `cigar.h`, the two exported data objects and the
//! semi-public helpers upstream's own benchmark harness links against.
//! Declarations for C clients live in `include/wfa2lib/`.

pub mod aligner;
pub mod cigar;
mod convert;
mod io;
pub mod mm_allocator;
pub mod system;
mod transparent;
pub mod types;
