//! The layering rules of DESIGN.md, checked on the source tree: the engine
//! imports no family and not `ffi/`; a family imports neither `ffi/` nor
//! another family. (`ffi/` may use everything.) A top-level folder or file
//! of `src/` other than `engine`, `ffi`, `bin` and `lib.rs` is a family.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules of `src/`: name → its files.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut out: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(src).expect("src") {
        let path = entry.expect("entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        let files = out.entry(name).or_default();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    // The crate root and the command-line programs (separate crates that
    // use the library's public API) are no layer.
    out.remove("lib");
    out.remove("bin");
    out.retain(|_, files| !files.is_empty());
    out
}

/// Lines of `file` that reach into module `target` through a `crate::`
/// path (comments excluded).
fn uses(file: &Path, target: &str) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("source file");
    let needles = [
        format!("crate::{target}::"),
        format!("crate::{target};"),
        format!("crate::{{{target}"),
    ];
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| needles.iter().any(|n| line.contains(n.as_str())))
        .map(|(i, line)| format!("{}:{}: {}", file.display(), i + 1, line.trim()))
        .collect()
}

#[test]
fn modules_keep_to_their_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    if !src.is_dir() {
        eprintln!("SKIPPED: no source tree at {}", src.display());
        return;
    }
    let modules = modules(&src);
    let families: Vec<&str> = modules
        .keys()
        .map(String::as_str)
        .filter(|n| *n != "engine" && *n != "ffi")
        .collect();
    assert!(families.contains(&"wfa"), "families found: {families:?}");
    let mut broken = Vec::new();
    for (name, files) in &modules {
        let forbidden: Vec<&str> = match name.as_str() {
            "ffi" => Vec::new(),
            "engine" => families.iter().copied().chain(["ffi"]).collect(),
            family => families
                .iter()
                .copied()
                .filter(|f| *f != family)
                .chain(["ffi"])
                .collect(),
        };
        for file in files {
            for target in &forbidden {
                broken.extend(uses(file, target));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "layering broken (engine → no family/ffi; family → no ffi/other family):\n{}",
        broken.join("\n")
    );
}

#[test]
fn unsafe_code_stays_in_ffi_and_the_device_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    if !src.is_dir() {
        eprintln!("SKIPPED: no source tree at {}", src.display());
        return;
    }
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    assert!(
        lib.contains("#![deny(unsafe_code)]"),
        "lib.rs must deny unsafe code"
    );
    let allowed: Vec<String> = lib
        .lines()
        .chain(
            std::fs::read_to_string(src.join("engine/mod.rs"))
                .expect("engine")
                .lines(),
        )
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0].contains("#[allow(unsafe_code)]"))
        .map(|w| w[1].trim().to_string())
        .collect();
    assert_eq!(
        allowed,
        vec!["pub mod ffi;".to_string(), "pub mod device;".to_string()],
        "only ffi/ and engine/device may allow unsafe code"
    );
}
