//! Compiles every kernel in `kernels/` with NVRTC for several architectures.
//! Needs no GPU, only an NVRTC library on the loader path (`make test` gets
//! one from PyPI). Skips, saying so, when none is found, unless
//! `SEQSHIM_REQUIRE_NVRTC=1`.

use seqshim::engine::device;

fn architectures() -> Vec<(i32, i32)> {
    std::env::var("SEQSHIM_NVRTC_ARCHS")
        .unwrap_or_else(|_| "70,80,90".into())
        .split(',')
        .filter_map(|a| a.trim().parse::<i32>().ok())
        .map(|a| (a / 10, a % 10))
        .collect()
}

/// The options of a kernel file's `// nvrtc-options:` line, parsed as
/// build.rs parses them: among the comment lines that open the file, at most
/// one such line, every option starting with `-`.
fn header_options(code: &str) -> Result<Vec<&str>, String> {
    let mut found: Option<Vec<&str>> = None;
    for line in code.lines().map(str::trim) {
        if !line.starts_with("//") {
            break;
        }
        if let Some(rest) = line.strip_prefix("// nvrtc-options:") {
            if found.is_some() {
                return Err("two nvrtc-options lines".into());
            }
            let options: Vec<&str> = rest.split_whitespace().collect();
            if let Some(bad) = options.iter().find(|o| !o.starts_with('-')) {
                return Err(format!("`{bad}` is not an option"));
            }
            found = Some(options);
        }
    }
    Ok(found.unwrap_or_default())
}

/// The registry build.rs generates holds exactly the `kernels/*.cu` files,
/// each with its file's text and the options of its header line.
#[test]
fn the_registry_holds_exactly_the_kernel_files() {
    let registered: Vec<&str> = device::kernel_sources().iter().map(|k| k.name).collect();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    if !dir.is_dir() && std::env::var_os("SEQSHIM_DATA_DIR").is_some() {
        // A test binary carried to another machine (the device bundle) has
        // no source tree; the check runs where the sources are.
        eprintln!("SKIPPED: no source tree at {}", dir.display());
        return;
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("kernels dir") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) == Some("cu") {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            files.push(stem.to_string());
            let kernel = device::kernel_source(stem)
                .unwrap_or_else(|e| panic!("kernels/{stem}.cu is not registered: {e}"));
            let code = std::fs::read_to_string(&path).expect("kernel file");
            assert_eq!(kernel.code, code, "kernels/{stem}.cu: stale registry text");
            let options =
                header_options(&code).unwrap_or_else(|e| panic!("kernels/{stem}.cu: {e}"));
            assert_eq!(kernel.options, options, "kernels/{stem}.cu: options");
        }
    }
    files.sort();
    assert_eq!(registered, files, "registry vs kernels/*.cu");
    assert!(device::kernel_source("common").is_err());
    assert!(device::kernel_source("no such kernel").is_err());
}

#[test]
fn every_kernel_compiles_with_nvrtc() {
    let required = std::env::var("SEQSHIM_REQUIRE_NVRTC").as_deref() == Ok("1");
    if !device::nvrtc_present() {
        assert!(
            !required,
            "SEQSHIM_REQUIRE_NVRTC=1 but no NVRTC library could be loaded"
        );
        eprintln!("SKIPPED: no NVRTC library on the loader path; run `make test` to fetch one");
        return;
    }
    let (major, minor) = device::nvrtc_version().expect("NVRTC version");
    if let Ok(expected) = std::env::var("SEQSHIM_EXPECT_NVRTC_MAJOR") {
        assert_eq!(major.to_string(), expected, "loaded the wrong NVRTC series");
    }
    for kernel in device::kernel_sources() {
        for arch in architectures() {
            match device::compile_check(kernel, arch) {
                Ok(bytes) => eprintln!(
                    "NVRTC {major}.{minor}: {}.cu for sm_{}{}: {bytes} bytes of machine code",
                    kernel.name, arch.0, arch.1
                ),
                Err(e) => panic!(
                    "{}.cu does not compile for sm_{}{}: {e}",
                    kernel.name, arch.0, arch.1
                ),
            }
        }
    }
}

/// Kernels that must match the CPU bit for bit are compiled with
/// `--fmad=false`; their PTX must then hold no fused multiply-add, which
/// would round once where the CPU rounds twice.
#[test]
fn exact_kernels_contain_no_fused_multiply_add() {
    if !device::nvrtc_present() {
        eprintln!("SKIPPED: no NVRTC library on the loader path");
        return;
    }
    for kernel in device::kernel_sources() {
        if !kernel.options.contains(&"--fmad=false") {
            continue;
        }
        // The oldest architecture this NVRTC series is asked to support.
        let (major, minor) = architectures().first().copied().unwrap_or((7, 5));
        let mut options = vec![
            format!("--gpu-architecture=compute_{major}{minor}"),
            "--std=c++17".to_string(),
            "-default-device".to_string(),
        ];
        options.extend(kernel.options.iter().map(|o| o.to_string()));
        let ptx = device::compile(kernel.name, kernel.code, &options, false)
            .unwrap_or_else(|e| panic!("{}.cu: {e}", kernel.name));
        let ptx = String::from_utf8_lossy(&ptx);
        let fused: Vec<&str> = ptx.lines().filter(|l| l.contains("fma.")).collect();
        assert!(
            fused.is_empty(),
            "{}.cu has fused multiply-adds: {fused:?}",
            kernel.name
        );
        assert!(
            ptx.contains(".entry"),
            "{}.cu: no kernel in the PTX",
            kernel.name
        );
        eprintln!("{}.cu: PTX has no fma", kernel.name);
    }
}
