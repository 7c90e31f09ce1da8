//! Typed errors of the EC family. Every input problem gets its own variant;
//! file-related ones name the file and, where meaningful, the 1-based line.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub enum EcError {
    /// `k` outside the range allowed by the mode (exact-v1: 1..=read_len,
    /// default: 1..=32).
    KOutOfRange { k: usize, min: usize, max: usize },
    /// A parameter that is invalid on its own (e.g. `num_search` not 1 or 2).
    InvalidParam(String),
    /// Input outside the exact-v1 domain (spec §5.7) where v1's behaviour is
    /// undefined, e.g. a Bloom modulus of zero or a counting array ≥ 2^32 bytes.
    Domain(String),
    /// A sequence line longer than `read_len` in exact-v1 (v1 would overflow
    /// its fixed buffer).
    ReadTooLong {
        file: PathBuf,
        line: usize,
        len: usize,
        read_len: usize,
    },
    /// Read `index` of a batch is longer than `read_len` (exact-v1).
    BatchReadTooLong {
        index: usize,
        len: usize,
        read_len: usize,
    },
    /// An API call in the wrong order (e.g. `contains` before `finalize`, or
    /// more reads added than announced).
    State(String),
    /// The file could not be opened, read or written.
    Io {
        file: PathBuf,
        source: std::io::Error,
    },
    /// The file content is malformed.
    Format {
        file: PathBuf,
        line: usize,
        message: String,
    },
    /// A buffer the work needs could not be allocated.
    OutOfMemory(String),
}

impl EcError {
    pub(crate) fn io(file: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EcError::Io {
            file: file.into(),
            source,
        }
    }
    pub(crate) fn format(
        file: impl Into<PathBuf>,
        line: usize,
        message: impl Into<String>,
    ) -> Self {
        EcError::Format {
            file: file.into(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for EcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EcError::KOutOfRange { k, min, max } => {
                write!(f, "k = {k} is out of range (allowed {min}..={max})")
            }
            EcError::InvalidParam(m) => write!(f, "invalid parameter: {m}"),
            EcError::Domain(m) => write!(f, "outside the exact-v1 domain: {m}"),
            EcError::ReadTooLong {
                file,
                line,
                len,
                read_len,
            } => write!(
                f,
                "{}:{line}: sequence of {len} bytes is longer than read_len {read_len}",
                file.display()
            ),
            EcError::BatchReadTooLong {
                index,
                len,
                read_len,
            } => write!(
                f,
                "read {index} of the batch has {len} bytes, longer than read_len {read_len}"
            ),
            EcError::State(m) => write!(f, "invalid call order: {m}"),
            EcError::Io { file, source } => write!(f, "{}: {source}", file.display()),
            EcError::Format {
                file,
                line,
                message,
            } => {
                write!(f, "{}:{line}: {message}", file.display())
            }
            EcError::OutOfMemory(m) => write!(f, "out of memory: {m}"),
        }
    }
}

impl std::error::Error for EcError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EcError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
