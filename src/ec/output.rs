//! All-or-nothing output: files are written next to their destination under a
//! temporary name and renamed only after every output is complete, so a
//! failure never leaves a half-written result behind.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::EcError;

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".tmp-ec-{}", std::process::id()));
    path.with_file_name(name)
}

/// Writes each `(path, bytes)` to a temporary file, then renames them all.
/// On error every temporary file is removed.
pub fn write_all_atomically(outputs: &[(&Path, &[u8])]) -> Result<(), EcError> {
    let mut written: Vec<(PathBuf, &Path)> = Vec::new();
    let result = (|| {
        for &(path, bytes) in outputs {
            let tmp = temp_path(path);
            let mut file = fs::File::create(&tmp).map_err(|e| EcError::io(path, e))?;
            written.push((tmp, path));
            file.write_all(bytes).map_err(|e| EcError::io(path, e))?;
            file.sync_all().map_err(|e| EcError::io(path, e))?;
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

/// Reads a whole input file, naming it in the error.
pub fn read_input(path: &Path) -> Result<Vec<u8>, EcError> {
    fs::read(path).map_err(|e| EcError::io(path, e))
}
