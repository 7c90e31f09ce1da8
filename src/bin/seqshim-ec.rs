//! `seqshim-ec`: CUDA-EC spectrum error correction of a FASTA/FASTQ file on
//! the command line. Argument parsing only; the work is `ec::correct_file`.
//!
//! Exit codes: 0 success, 1 the correction failed (unreadable, unwritable or
//! malformed input, a read too long in exact-v1 mode, ...), 2 bad usage.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use seqshim::ec::{self, Params};

const USAGE: &str = "\
Usage: seqshim-ec [options] IN FIXED
CUDA-EC spectral-alignment error correction (seqshim).

  IN             input reads: FASTA (exact-v1), FASTA or FASTQ (default mode)
  FIXED          output: unchanged, corrected and trimmed reads, in input order

Options:
  --exact-v1     byte-identical to CUDA-EC v1.0.x (needs --read-len and --discard)
  -k K           k-mer (tuple) size [20]
  --min-mult M   solid threshold (default mode); level stride (exact-v1) [6]
  --search 1|2   1: single substitutions; 2: adds pairs [1]
  --read-len L   exact-v1: v1's fixed read length L (sequence lines <= L bytes)
  --discard PATH write discarded reads to PATH (required with --exact-v1)
  --threads N    CPU threads (sets SEQSHIM_THREADS) [all cores]
  -q, --quiet    no progress lines on stderr
  -h, --help     this text

Exit status: 0 success, 1 correction failed, 2 bad usage.
";

struct Args {
    params: Params,
    input: PathBuf,
    fixed: PathBuf,
    discard: Option<PathBuf>,
    threads: Option<usize>,
    quiet: bool,
}

fn parse() -> Result<Option<Args>, String> {
    let mut exact = false;
    let mut k = None;
    let mut min_mult = None;
    let mut search = None;
    let mut read_len = None;
    let mut discard = None;
    let mut threads = None;
    let mut quiet = false;
    let mut positional = Vec::new();
    let mut it = std::env::args_os().skip(1);
    fn number<T: std::str::FromStr>(
        name: &str,
        v: Option<std::ffi::OsString>,
    ) -> Result<T, String> {
        let v = v.ok_or_else(|| format!("{name} needs a value"))?;
        v.to_str()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("{name}: not a valid number: {}", v.to_string_lossy()))
    }
    while let Some(arg) = it.next() {
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(None),
            Some("--exact-v1") => exact = true,
            Some("-k") => k = Some(number::<usize>("-k", it.next())?),
            Some("--min-mult") => min_mult = Some(number::<u32>("--min-mult", it.next())?),
            Some("--search") => search = Some(number::<u8>("--search", it.next())?),
            Some("--read-len") => read_len = Some(number::<usize>("--read-len", it.next())?),
            Some("--threads") => threads = Some(number::<usize>("--threads", it.next())?),
            Some("--discard") => {
                discard = Some(PathBuf::from(it.next().ok_or("--discard needs a path")?))
            }
            Some("-q" | "--quiet") => quiet = true,
            Some(s) if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown option {s}"));
            }
            _ => positional.push(PathBuf::from(arg)),
        }
    }
    let [input, fixed]: [PathBuf; 2] = positional
        .try_into()
        .map_err(|p: Vec<PathBuf>| format!("expected IN and FIXED, got {} paths", p.len()))?;
    let mut params = if exact {
        let l = read_len.ok_or("--exact-v1 needs --read-len L")?;
        if discard.is_none() {
            return Err("--exact-v1 needs --discard PATH (v1 always writes one)".into());
        }
        Params::exact_v1(l)
    } else {
        if read_len.is_some() {
            return Err("--read-len applies to --exact-v1 only".into());
        }
        Params::default_mode()
    };
    if let Some(k) = k {
        params.k = k;
    }
    if let Some(m) = min_mult {
        params.min_mult = m;
    }
    if let Some(s) = search {
        params.num_search = s;
    }
    if threads == Some(0) {
        return Err("--threads must be at least 1".into());
    }
    params.validate().map_err(|e| e.to_string())?;
    Ok(Some(Args {
        params,
        input,
        fixed,
        discard,
        threads,
        quiet,
    }))
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("seqshim-ec: {e}\n(try --help)");
            return ExitCode::from(2);
        }
    };
    if let Some(n) = args.threads {
        // Before any work: the engine's pool has not started yet.
        seqshim::engine::cpu::request_threads(n);
    }
    let start = Instant::now();
    let mut last = start;
    let quiet = args.quiet;
    let mut progress = |line: &str| {
        if !quiet {
            let now = Instant::now();
            eprintln!(
                "seqshim-ec: {line} ({:.2} s)",
                now.duration_since(last).as_secs_f64()
            );
            last = now;
        }
    };
    match ec::correct_file_with_progress(
        &args.input,
        &args.fixed,
        args.discard.as_deref(),
        &args.params,
        &mut progress,
    ) {
        Ok(st) => {
            if !quiet {
                eprintln!(
                    "seqshim-ec: {} reads: {} unchanged, {} fixed, {} trimmed, {} discarded; {} solid; {:.2} s in all",
                    st.reads,
                    st.unchanged,
                    st.fixed,
                    st.trimmed,
                    st.discarded,
                    st.solid_kmers,
                    start.elapsed().as_secs_f64()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("seqshim-ec: {e}");
            ExitCode::from(1)
        }
    }
}
