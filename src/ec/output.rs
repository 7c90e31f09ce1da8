//! All-or-nothing output: files are written next to their destination under a
//! temporary name and renamed only after every output is complete, so a
//! failure never leaves a half-written result behind.
//!
//! gzip: an input that starts with the gzip magic bytes is decompressed
//! (multi-member files included), and an output whose name ends in `.gz` is
//! gzip-compressed. Only the compression layer comes from a crate (`flate2`);
//! the records are still parsed by the family's own readers, because exact-v1
//! must reproduce v1's `GetSeq` quirks byte for byte (spec §4.2: one sequence
//! line per record, 59-byte names, a lost last record without a final newline)
//! and default mode keeps headers byte-exact and reports `file:line` errors.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;

use super::error::EcError;

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".tmp-ec-{}", std::process::id()));
    path.with_file_name(name)
}

/// Whether `path` names a gzip output (`*.gz`).
pub fn is_gzip_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

fn write_one(path: &Path, tmp: &Path, bytes: &[u8]) -> Result<(), EcError> {
    let file = fs::File::create(tmp).map_err(|e| EcError::io(path, e))?;
    let file = if is_gzip_name(path) {
        let mut gz = GzEncoder::new(std::io::BufWriter::new(file), Compression::new(3));
        gz.write_all(bytes).map_err(|e| EcError::io(path, e))?;
        gz.finish()
            .map_err(|e| EcError::io(path, e))?
            .into_inner()
            .map_err(|e| EcError::io(path, e.into_error()))?
    } else {
        let mut file = file;
        file.write_all(bytes).map_err(|e| EcError::io(path, e))?;
        file
    };
    file.sync_all().map_err(|e| EcError::io(path, e))
}

/// Writes each `(path, bytes)` to a temporary file (gzip-compressed for
/// `*.gz` paths), then renames them all. On error every temporary file is
/// removed.
pub fn write_all_atomically(outputs: &[(&Path, &[u8])]) -> Result<(), EcError> {
    let mut written: Vec<(PathBuf, &Path)> = Vec::new();
    let result = (|| {
        for &(path, bytes) in outputs {
            let tmp = temp_path(path);
            written.push((tmp.clone(), path));
            write_one(path, &tmp, bytes)?;
        }
        for (tmp, path) in &written {
            fs::rename(tmp, path).map_err(|e| EcError::io(*path, e))?;
        }
        Ok(())
    })();
    if result.is_err() {
        for (tmp, _) in &written {
            let _ = fs::remove_file(tmp);
        }
    }
    result
}

/// Reads a whole input file, decompressing gzip, naming the file in errors.
pub fn read_input(path: &Path) -> Result<Vec<u8>, EcError> {
    let data = fs::read(path).map_err(|e| EcError::io(path, e))?;
    if data.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(data.len() * 4);
        MultiGzDecoder::new(data.as_slice())
            .read_to_end(&mut out)
            .map_err(|e| EcError::io(path, e))?;
        Ok(out)
    } else {
        Ok(data)
    }
}
