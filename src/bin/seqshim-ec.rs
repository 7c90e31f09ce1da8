//! `seqshim-ec`: CUDA-EC spectrum error correction of a FASTA/FASTQ file on
//! the command line. Argument parsing only; the work is `ec::correct_file`.
//!
//! Three forms share one parser:
//! - `seqshim-ec correct IN -o OUT [...]`: the modern interface (default mode);
//! - `seqshim-ec -f IN -t K -o FIXED -d DISCARD -r L [...]`: CUDA-EC v1's own
//!   command line, always exact-v1 (its `-t` is the tuple size, not threads);
//! - `seqshim-ec [--exact-v1 ...] IN FIXED`: the earlier positional form.
//!
//! Exit codes: 0 success, 1 the correction failed (unreadable, unwritable or
//! malformed input, a read too long in exact-v1 mode, ...), 2 bad usage.

#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use seqshim::ec::{self, Params};

const USAGE: &str = "\
Usage: seqshim-ec correct IN -o OUT [options]
       seqshim-ec -f IN -t K -o FIXED -d DISCARD -r L [v1 options]
       seqshim-ec [options] IN FIXED
CUDA-EC spectral-alignment error correction (seqshim).

`correct` (default mode): IN is FASTA or FASTQ (detected), gzip-compressed or
not; OUT is written in the input's format, gzip-compressed when its name ends
in .gz. Unchanged, corrected and trimmed reads go to OUT in input order (FASTQ
qualities follow their bases); discarded reads go to --discard, if given.
  -o, --output PATH   corrected reads (required)
  -t, --threads N     CPU threads [all cores]
  -k K                k-mer size, 1..32 [20]
  -d, --discard PATH  also write the discarded reads
  --min-mult M        a k-mer is solid when seen at least M times [6]
  --search 1|2        1: single substitutions; 2: adds pairs [1]
  --min-votes V       a fix needs more than V votes [2]
  --max-trim T        most bases trimmed from a read [20]
  --max-mods M        reads needing more rounds are discarded [999]
  --exact-v1 -r L     byte-identical to CUDA-EC v1.0.x (FASTA with sequence
                      lines <= L bytes; needs --discard)
  -q, --quiet         no progress or summary on stderr

CUDA-EC v1 command line (always exact-v1; byte-identical output):
  -f IN -t K -o FIXED -d DISCARD -r L [-minMult 6] [-minVotes 2] [-maxTrim 20]
  [-maxMods 999] [-search 1|2] [-trim]; here --threads N sets the threads.

Earlier form: IN FIXED with --exact-v1, --read-len L, --discard PATH,
--threads N and the options above.

  -h, --help          this text

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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Correct,
    V1,
    Positional,
}

fn number<T: std::str::FromStr>(name: &str, v: Option<OsString>) -> Result<T, String> {
    let v = v.ok_or_else(|| format!("{name} needs a value"))?;
    v.to_str()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{name}: not a valid number: {}", v.to_string_lossy()))
}

fn path(name: &str, v: Option<OsString>) -> Result<PathBuf, String> {
    v.map(PathBuf::from)
        .ok_or_else(|| format!("{name} needs a path"))
}

fn parse(argv: Vec<OsString>) -> Result<Option<Args>, String> {
    let mut argv = argv.into_iter().peekable();
    let form = if argv.peek().and_then(|a| a.to_str()) == Some("correct") {
        argv.next();
        Form::Correct
    } else {
        let v: Vec<OsString> = argv.collect();
        let form = if v.iter().any(|a| a == "-f") {
            Form::V1
        } else {
            Form::Positional
        };
        argv = v.into_iter().peekable();
        form
    };
    let mut exact = form == Form::V1;
    let (mut k, mut min_mult, mut search, mut read_len) = (None, None, None, None);
    let (mut min_votes, mut max_trim, mut max_mods) = (None, None, None);
    let (mut input, mut output, mut discard) = (None, None, None);
    let mut threads = None;
    let mut quiet = false;
    let mut positional = Vec::new();
    while let Some(arg) = argv.next() {
        let Some(s) = arg.to_str() else {
            positional.push(PathBuf::from(arg));
            continue;
        };
        match (form, s) {
            (_, "-h" | "--help") => return Ok(None),
            (_, "-q" | "--quiet") => quiet = true,
            (_, "--threads") => threads = Some(number::<usize>(s, argv.next())?),
            // v1's options.
            (Form::V1, "-f") => input = Some(path(s, argv.next())?),
            (Form::V1, "-t") => k = Some(number::<usize>(s, argv.next())?),
            (Form::V1, "-o") => output = Some(path(s, argv.next())?),
            (Form::V1, "-d") => discard = Some(path(s, argv.next())?),
            (Form::V1, "-r") => read_len = Some(number::<usize>(s, argv.next())?),
            (Form::V1, "-minMult") => min_mult = Some(number::<u32>(s, argv.next())?),
            (Form::V1, "-minVotes") => min_votes = Some(number::<i16>(s, argv.next())?),
            (Form::V1, "-maxTrim") => max_trim = Some(number::<u16>(s, argv.next())?),
            (Form::V1, "-maxMods") => max_mods = Some(number::<i16>(s, argv.next())?),
            (Form::V1, "-search") => search = Some(number::<u8>(s, argv.next())?),
            // v1 trims by default; -trim only restates it.
            (Form::V1, "-trim") => {}
            (Form::V1, "-deletions" | "-insertions") => {
                return Err(format!("{s}: v1's kernels implement no indel search"));
            }
            // Modern and earlier forms.
            (Form::Correct, "-t") => threads = Some(number::<usize>(s, argv.next())?),
            (Form::Correct, "-o" | "--output") => output = Some(path(s, argv.next())?),
            (Form::Correct, "-d") | (_, "--discard") => discard = Some(path(s, argv.next())?),
            (Form::Correct, "-r") | (_, "--read-len") => {
                read_len = Some(number::<usize>(s, argv.next())?)
            }
            (_, "--exact-v1") => exact = true,
            (Form::Correct | Form::Positional, "-k") => k = Some(number::<usize>(s, argv.next())?),
            (_, "--min-mult") => min_mult = Some(number::<u32>(s, argv.next())?),
            (_, "--min-votes") => min_votes = Some(number::<i16>(s, argv.next())?),
            (_, "--max-trim") => max_trim = Some(number::<u16>(s, argv.next())?),
            (_, "--max-mods") => max_mods = Some(number::<i16>(s, argv.next())?),
            (_, "--search") => search = Some(number::<u8>(s, argv.next())?),
            (_, s) if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown option {s}"));
            }
            _ => positional.push(PathBuf::from(arg)),
        }
    }
    let (input, fixed) = match form {
        Form::V1 => {
            if !positional.is_empty() {
                return Err("v1's command line takes no positional arguments".into());
            }
            (
                input.ok_or("-f IN is missing")?,
                output.ok_or("-o FIXED is missing")?,
            )
        }
        Form::Correct => {
            let [input]: [PathBuf; 1] = positional
                .try_into()
                .map_err(|p: Vec<PathBuf>| format!("expected one input, got {} paths", p.len()))?;
            (input, output.ok_or("-o OUT is missing")?)
        }
        Form::Positional => {
            let [input, fixed]: [PathBuf; 2] =
                positional.try_into().map_err(|p: Vec<PathBuf>| {
                    format!("expected IN and FIXED, got {} paths", p.len())
                })?;
            (input, fixed)
        }
    };
    let mut params = if exact {
        let l = read_len.ok_or(if form == Form::V1 {
            "-r L is missing (v1's read length)"
        } else {
            "--exact-v1 needs --read-len L"
        })?;
        if discard.is_none() {
            return Err("exact-v1 needs a discard file (v1 always writes one)".into());
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
    if let Some(v) = min_votes {
        params.min_votes = v;
    }
    if let Some(t) = max_trim {
        params.max_trim = t;
    }
    if let Some(m) = max_mods {
        params.max_mods = m;
    }
    if threads == Some(0) {
        return Err("the thread count must be at least 1".into());
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
    let args = match parse(std::env::args_os().skip(1).collect()) {
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
