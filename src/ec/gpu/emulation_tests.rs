//! `kernels/ec.cu` compiled for the host (`ffi-tests/cudaec/kernel_emulation.cpp`)
//! and fed the launch images the GPU runner would upload: every read's
//! bytes and outputs must equal the CPU path's. This checks the kernels'
//! logic and the image layout where there is no GPU (CI); a GPU run
//! (`tests/ec_gpu.rs`) checks the rest. Needs a host C++ compiler
//! (`c++`); says SKIP without one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use std::collections::HashSet;

use super::count::CountImage;
use super::layout::{Image, table_bytes};
use crate::ec::bloom_v1::CountingFilterV1;
use crate::ec::correct_default::{self, Verdict};
use crate::ec::family::{DefaultChunk, V1Chunk};
use crate::ec::kmer_counts::KmerCounter;
use crate::ec::v1::{kernel_config, pack_records};
use crate::ec::{Mode, Params};
use crate::engine::device::Arg;
use crate::engine::scheduler::Job;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The emulator, built once per test process; `None` without a compiler.
fn emulator() -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir =
                std::env::temp_dir().join(format!("seqshim-ec-emulation-{}", std::process::id()));
            std::fs::create_dir_all(&dir).ok()?;
            let exe = dir.join("kernel_emulation");
            let status = Command::new("c++")
                // GCC cannot see that the record is filled up to its length byte.
                .args([
                    "-std=c++17",
                    "-O2",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-Wno-maybe-uninitialized",
                    "-o",
                ])
                .arg(&exe)
                .arg(format!("-I{}", repo().join("kernels").display()))
                .arg(repo().join("ffi-tests/cudaec/kernel_emulation.cpp"))
                .status();
            match status {
                Ok(s) if s.success() => Some(exe),
                Ok(s) => panic!("the EC kernel emulation did not compile ({s})"),
                Err(e) => {
                    eprintln!("SKIP: no host C++ compiler to emulate kernels/ec.cu ({e})");
                    None
                }
            }
        })
        .as_deref()
}

/// Runs one image through the emulated kernel; returns the image after it.
fn emulate(exe: &Path, image: &Image, spectrum: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0u8; image.end];
    bytes[..spectrum.len()].copy_from_slice(spectrum);
    image.pack_inputs(&mut bytes);
    emulate_raw(exe, image.kernel.symbol(), bytes, &image.args)
}

/// Runs `kernel` over the image `bytes` with `args`; returns the bytes after.
fn emulate_raw(exe: &Path, kernel: &str, bytes: Vec<u8>, args: &[Arg]) -> Vec<u8> {
    let file = exe.with_file_name(format!(
        "image-{:?}-{}",
        std::thread::current().id(),
        bytes.len()
    ));
    std::fs::write(&file, &bytes).expect("write the image");
    let args: Vec<String> = args
        .iter()
        .map(|a| match a {
            Arg::Offset(o) => format!("p:{o}"),
            Arg::U32(v) => format!("u:{v}"),
            Arg::I32(v) => format!("i:{v}"),
            Arg::U64(v) => format!("l:{v}"),
            other => panic!("EC kernels take no {other:?}"),
        })
        .collect();
    let out = Command::new(exe)
        .arg(kernel)
        .arg(&file)
        .args(&args)
        .output()
        .expect("run the emulation");
    assert!(
        out.status.success(),
        "emulation failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = std::fs::read(&file).expect("read the image back");
    let _ = std::fs::remove_file(&file);
    after
}

/// A tiny generator (tests only): xorshift64*.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Reads of `len` from a random genome at about 60x with about 1 %
/// substitutions, plus some with lower case, N, and shorter lengths.
fn simulated_reads(rng: &mut Rng, genome: usize, n: usize, len: usize) -> Vec<Vec<u8>> {
    let g: Vec<u8> = (0..genome)
        .map(|_| b"ACGT"[rng.below(4) as usize])
        .collect();
    (0..n)
        .map(|_| {
            let at = rng.below((genome - len) as u64) as usize;
            let mut r = g[at..at + len].to_vec();
            for b in r.iter_mut() {
                if rng.below(100) == 0 {
                    *b = b"ACGT"[rng.below(4) as usize];
                }
            }
            match rng.below(50) {
                0 => r[rng.below(len as u64) as usize] = b'N',
                1 => r[rng.below(len as u64) as usize].make_ascii_lowercase(),
                2 => r.truncate(len - 1 - rng.below(len as u64 / 2) as usize),
                _ => {}
            }
            if rng.below(2) == 0 {
                r.reverse();
                for b in r.iter_mut() {
                    *b = match *b {
                        b'A' => b'T',
                        b'T' => b'A',
                        b'C' => b'G',
                        b'G' => b'C',
                        x => x,
                    };
                }
            }
            r
        })
        .collect()
}

#[test]
fn emulated_v1_kernel_equals_the_cpu_path() {
    let Some(exe) = emulator() else { return };
    let mut rng = Rng(0x5eed_ec01);
    let (mut compared, mut differ) = (0usize, 0usize);
    for (read_len, k, genome, n) in [
        (36usize, 20usize, 3000usize, 3000usize),
        (100, 20, 6000, 2000),
        (60, 12, 800, 800),
    ] {
        let reads = simulated_reads(&mut rng, genome, n, read_len);
        let seqs: Vec<&[u8]> = reads.iter().map(|r| r.as_slice()).collect();
        let mut filter = CountingFilterV1::new(read_len, k, 6, n as u64).unwrap();
        filter.add(&seqs).unwrap();
        let bloom = Arc::new(filter.build_bloom().unwrap());
        let records = pack_records(seqs.iter().copied(), read_len);
        for (num_search, do_trim, max_trim, min_votes, max_mods, pair) in [
            (1u8, true, 20u16, 2i16, 999i16, false),
            (2, true, 20, 2, 999, false),
            (2, true, 20, 2, 999, true),
            (1, false, 20, 2, 999, false),
            (1, true, 5, 0, 1, false),
            (2, true, 40, -1, 3, true),
        ] {
            let params = Params {
                num_search,
                do_trim,
                max_trim,
                min_votes,
                max_mods,
                k,
                ..Params::exact_v1(read_len)
            };
            let mut cfg = kernel_config(&params);
            cfg.round_limit = 300;
            let job = V1Chunk {
                records: records.clone(),
                pair,
                cfg,
                bloom: bloom.clone(),
            };
            let want = job.run_cpu();
            let image = Image::v1(&job).unwrap();
            let got = image.unpack_v1(&emulate(exe, &image, bloom.bytes()));
            let stride = read_len + 2;
            for (i, (g, w)) in got
                .records
                .chunks(stride)
                .zip(want.records.chunks(stride))
                .enumerate()
            {
                compared += 1;
                if g != w || got.trim_start[i] != want.trim_start[i] {
                    differ += 1;
                    if differ <= 5 {
                        eprintln!(
                            "v1 L={read_len} k={k} search {num_search} pair {pair} record {i}: emulated {:?} trim {}, CPU {:?} trim {}",
                            String::from_utf8_lossy(g),
                            got.trim_start[i],
                            String::from_utf8_lossy(w),
                            want.trim_start[i]
                        );
                    }
                }
            }
            assert_eq!(got.watchdog, want.watchdog);
        }
    }
    eprintln!("emulated EC exact-v1 kernel: {compared} records, {differ} differ");
    assert!(compared > 30_000);
    assert_eq!(differ, 0);
}

#[test]
fn emulated_default_kernel_equals_the_cpu_path() {
    let Some(exe) = emulator() else { return };
    let mut rng = Rng(0x5eed_ec02);
    let (mut compared, mut differ) = (0usize, 0usize);
    for (len, k, genome, n) in [
        (36usize, 20usize, 3000usize, 4000usize),
        (150, 25, 8000, 2500),
        (100, 11, 1000, 1000),
    ] {
        let reads = simulated_reads(&mut rng, genome, n, len);
        let seqs: Vec<&[u8]> = reads.iter().map(|r| r.as_slice()).collect();
        let mut counter = KmerCounter::new(k);
        counter.add(&seqs);
        let solid = counter.into_solid(4);
        let table = solid.probe_table();
        let spectrum = table_bytes(&table);
        for (num_search, do_trim, max_trim, min_votes, max_mods, max_rounds) in [
            (1u8, true, 20u16, 2i16, 999i16, 0u32),
            (2, true, 20, 2, 999, 0),
            (2, false, 20, 1, 2, 0),
            (1, true, 60, -1, 999, 3),
        ] {
            let params = Params {
                num_search,
                do_trim,
                max_trim,
                min_votes,
                max_mods,
                max_rounds,
                k,
                ..Params::default_mode()
            };
            assert_eq!(params.mode, Mode::Default);
            let kept: Vec<Vec<u8>> = reads
                .iter()
                .filter(|r| correct_default::outcome_without_voting(r, k).is_none())
                .map(|r| r.to_ascii_uppercase())
                .collect();
            let mut packed = Vec::new();
            let mut offsets = vec![0u32];
            for r in &kept {
                packed.extend_from_slice(r);
                offsets.push(packed.len() as u32);
            }
            let job = DefaultChunk {
                reads: packed,
                offsets,
                params: params.clone(),
                table: table.clone(),
            };
            let image = Image::default_mode(&job).unwrap();
            let got = image.unpack_default(&emulate(exe, &image, &spectrum));
            // The reference asks the spectrum's own set, not the table.
            let mut at = 0;
            for (i, (r, v)) in kept.iter().zip(&got.verdicts).enumerate() {
                let mut work = r.clone();
                let want: Verdict = correct_default::judge(&mut work, &solid, &params);
                let got_work = &got.work[at..at + r.len()];
                at += r.len();
                compared += 1;
                if *v != want || got_work != work.as_slice() {
                    differ += 1;
                    if differ <= 5 {
                        eprintln!(
                            "default k={k} search {num_search} read {i}: emulated {v:?} {:?}, CPU {want:?} {:?}",
                            String::from_utf8_lossy(got_work),
                            String::from_utf8_lossy(&work)
                        );
                    }
                }
            }
        }
    }
    eprintln!("emulated EC default kernel: {compared} reads, {differ} differ");
    assert!(compared > 25_000);
    assert_eq!(differ, 0);
}

/// Counts `reads` with the emulated counting kernels: (overflowed, codes).
fn emulated_count(
    exe: &Path,
    reads: &[Vec<u8>],
    k: usize,
    min_mult: u32,
    windows: u64,
) -> (bool, HashSet<u64>) {
    let mut packed = Vec::new();
    let mut offsets = vec![0u32];
    for r in reads {
        packed.extend_from_slice(r);
        offsets.push(packed.len() as u32);
    }
    let image = CountImage::new(packed.len(), reads.len(), windows);
    let mut bytes = vec![0u8; image.end];
    image.pack(&mut bytes, &packed, &offsets);
    let [clear, count, solid] = image.args(reads.len() as u32, k, min_mult);
    for (kernel, args) in [
        ("seqshim_ec_table_clear", clear),
        ("seqshim_ec_count", count),
        ("seqshim_ec_solid", solid),
    ] {
        bytes = emulate_raw(exe, kernel, bytes, &args);
    }
    let flags = bytes[image.flags.clone()]
        .try_into()
        .expect("two flag words");
    let (overflow, listed) = CountImage::flags_of(&flags);
    if overflow {
        return (true, HashSet::new());
    }
    assert!(
        listed <= image.room,
        "{listed} solid codes, room for {}",
        image.room
    );
    (false, image.codes(&bytes, listed).into_iter().collect())
}

#[test]
fn emulated_counting_equals_the_cpu_count() {
    let Some(exe) = emulator() else { return };
    let mut rng = Rng(0x5eed_ec03);
    let mut compared = 0;
    for (len, k, min_mult, genome, n) in [
        (36usize, 20usize, 6u32, 3000usize, 4000usize),
        (100, 32, 3, 5000, 1500),
        (60, 11, 2, 800, 800),
        (50, 5, 1, 400, 300),
    ] {
        let reads = simulated_reads(&mut rng, genome, n, len);
        let seqs: Vec<&[u8]> = reads.iter().map(|r| r.as_slice()).collect();
        let mut counter = KmerCounter::new(k);
        counter.add(&seqs);
        let want: HashSet<u64> = counter.into_solid(min_mult).codes().collect();
        let windows = reads
            .iter()
            .map(|r| (r.len() + 1).saturating_sub(k) as u64)
            .sum();
        let (overflow, got) = emulated_count(exe, &reads, k, min_mult, windows);
        assert!(!overflow);
        assert_eq!(got, want, "k = {k}, min_mult = {min_mult}");
        compared += want.len();
    }
    eprintln!("emulated EC counting: {compared} solid k-mers, 0 differ");
    // A table too small for the k-mers reports it instead of losing counts.
    let random: Vec<Vec<u8>> = (0..3000)
        .map(|_| (0..60).map(|_| b"ACGT"[rng.below(4) as usize]).collect())
        .collect();
    let (overflow, _) = emulated_count(exe, &random, 32, 1, 1);
    assert!(overflow, "87,000 distinct k-mers cannot fit 65,536 slots");
}
