//! The `seqshim-ec` command line on a fixture: exact-v1 outputs byte for
//! byte, progress on stderr, and the exit codes of bad usage and failures.

mod ec_common;

use std::path::PathBuf;
use std::process::Command;

use ec_common::{fixtures, gunzip};

const EXE: &str = env!("CARGO_BIN_EXE_seqshim-ec");

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("seqshim-ec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A folder of its own per test: tests run in parallel and clean up after
/// themselves.
fn scratch_named(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("seqshim-ec-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn exact_v1_search2_reproduces_the_edge_fixture() {
    let Some(dir) = fixtures() else { return };
    let tmp = scratch();
    let input = tmp.join("edge.fa");
    std::fs::write(&input, gunzip(&dir.join("L36_edge/reads.fa.gz"))).unwrap();
    let (fixed, discard) = (tmp.join("fixed.fa"), tmp.join("discard.fa"));
    let out = Command::new(EXE)
        .args([
            "--exact-v1",
            "--read-len",
            "36",
            "-k",
            "20",
            "--min-mult",
            "6",
        ])
        .args(["--search", "2", "--threads", "2", "--discard"])
        .arg(&discard)
        .arg(&input)
        .arg(&fixed)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("read 5818 reads"), "{stderr}");
    assert!(stderr.contains("9974 solid strings"), "{stderr}");
    assert!(
        stderr.contains("5818 reads: 5612 unchanged, 104 fixed, 79 trimmed, 23 discarded"),
        "{stderr}"
    );
    assert!(std::fs::read(&fixed).unwrap() == gunzip(&dir.join("L36_edge/s2.fixed.fa.gz")));
    assert!(std::fs::read(&discard).unwrap() == gunzip(&dir.join("L36_edge/s2.discard.fa.gz")));

    // A sequence line longer than --read-len: exit 1, file and line named,
    // no output written.
    let (f2, d2) = (tmp.join("f2.fa"), tmp.join("d2.fa"));
    let out = Command::new(EXE)
        .args(["--exact-v1", "--read-len", "30", "--discard"])
        .arg(&d2)
        .arg(&input)
        .arg(&f2)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("edge.fa:2:"), "{stderr}");
    assert!(!f2.exists() && !d2.exists());
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let help = Command::new(EXE).arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage: seqshim-ec"));
    for args in [
        &["--exact-v1", "in.fa", "out.fa"][..],
        &["--search", "3", "in.fa", "out.fa"],
        &["-k", "40", "in.fa", "out.fa"],
        &["--bogus", "in.fa", "out.fa"],
        &["in.fa"],
        &["-k"],
        &["correct", "in.fq"],
        &["correct", "-o", "out.fq"],
        &["correct", "a.fq", "b.fq", "-o", "out.fq"],
        &["correct", "in.fq", "-o", "out.fq", "-t", "0"],
        &["-f", "in.fa", "-t", "20", "-o", "f.fa", "-d", "d.fa"],
        &["-f", "in.fa", "-t", "20", "-o", "f.fa", "-r", "36"],
        &[
            "-f",
            "in.fa",
            "-t",
            "20",
            "-o",
            "f.fa",
            "-d",
            "d.fa",
            "-r",
            "36",
            "-deletions",
        ],
        &[
            "-f", "in.fa", "-t", "20", "-o", "f.fa", "-d", "d.fa", "-r", "36", "extra",
        ],
    ] {
        let out = Command::new(EXE).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("seqshim-ec:"));
    }
    // A missing input: exit 1 with the file named.
    let out = Command::new(EXE)
        .args(["/nonexistent/in.fa", "/nonexistent/out.fa"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/in.fa"));
}

/// v1's own command line (`-f -t -o -d -r -minMult -minVotes -maxTrim
/// -maxMods -search`) gives the fixture files byte for byte.
#[test]
fn v1_command_line_reproduces_the_fixtures() {
    let Some(dir) = fixtures() else { return };
    let tmp = scratch_named("v1cl");
    for (set, config, min_mult, search) in [
        ("L36_edge", "s1", "6", "1"),
        ("L36_dense", "s1", "6", "1"),
        ("L36_dense", "mm5.s1", "5", "1"),
    ] {
        let input = tmp.join(format!("{set}.fa"));
        std::fs::write(&input, gunzip(&dir.join(set).join("reads.fa.gz"))).unwrap();
        let (fixed, discard) = (tmp.join("fixed.fa"), tmp.join("discard.fa"));
        let out = Command::new(EXE)
            .arg("-f")
            .arg(&input)
            .args(["-t", "20", "-o"])
            .arg(&fixed)
            .arg("-d")
            .arg(&discard)
            .args([
                "-r",
                "36",
                "-minMult",
                min_mult,
                "-minVotes",
                "2",
                "-maxTrim",
                "20",
            ])
            .args(["-maxMods", "999", "-search", search, "--threads", "2"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want = |f: &str| gunzip(&dir.join(set).join(format!("{config}.{f}.fa.gz")));
        // The mm5 run of L36_dense stores only its fixed file.
        let has_discard = dir
            .join(set)
            .join(format!("{config}.discard.fa.gz"))
            .is_file();
        assert!(
            std::fs::read(&fixed).unwrap() == want("fixed"),
            "{set} {config} fixed"
        );
        assert!(
            !has_discard || std::fs::read(&discard).unwrap() == want("discard"),
            "{set} {config} discard"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A small simulated FASTQ set: a random genome, 50-bp reads from both
/// strands, about one substitution per read. Quality byte i is `'!' + i`, so
/// an output quality string tells which input bases it kept.
struct SimSet {
    fastq: Vec<u8>,
    truth: Vec<Vec<u8>>,
    reads: Vec<Vec<u8>>,
}

fn simulate() -> SimSet {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut rand = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let genome: Vec<u8> = (0..6000).map(|_| b"ACGT"[rand(4) as usize]).collect();
    let (len, n) = (50usize, 4000usize);
    let qual: Vec<u8> = (0..len as u8).map(|i| b'!' + i).collect();
    let mut set = SimSet {
        fastq: Vec::new(),
        truth: Vec::new(),
        reads: Vec::new(),
    };
    for i in 0..n {
        let pos = rand((genome.len() - len) as u64) as usize;
        let mut t = genome[pos..pos + len].to_vec();
        if rand(2) == 1 {
            t.reverse();
            for b in &mut t {
                *b = match *b {
                    b'A' => b'T',
                    b'C' => b'G',
                    b'G' => b'C',
                    _ => b'A',
                };
            }
        }
        let mut r = t.clone();
        if i % 3 != 0 {
            let p = rand(len as u64) as usize;
            r[p] = b"ACGT"
                [(b"ACGT".iter().position(|&b| b == r[p]).unwrap() + 1 + rand(3) as usize) % 4];
        }
        set.fastq
            .extend_from_slice(format!("@s{i} pos={pos}\n").as_bytes());
        set.fastq.extend_from_slice(&r);
        set.fastq.extend_from_slice(b"\n+\n");
        set.fastq.extend_from_slice(&qual);
        set.fastq.push(b'\n');
        set.truth.push(t);
        set.reads.push(r);
    }
    set
}

fn fastq_records(data: &[u8]) -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let lines: Vec<&[u8]> = data
        .strip_suffix(b"\n")
        .unwrap()
        .split(|&b| b == b'\n')
        .collect();
    lines
        .chunks(4)
        .map(|c| {
            assert!(c[0].starts_with(b"@") && c[2] == b"+");
            (
                String::from_utf8_lossy(&c[0][1..]).into_owned(),
                c[1].to_vec(),
                c[3].to_vec(),
            )
        })
        .collect()
}

/// `correct` on FASTQ: reads in order, qualities kept for corrected bases and
/// sliced with trimmed reads, errors fixed, the summary on stderr; gzip in and
/// out gives the same records; FASTA in gives FASTA out.
#[test]
fn correct_fastq_round_trip_and_gzip() {
    let sim = simulate();
    let tmp = scratch_named("correct");
    let input = tmp.join("reads.fq");
    std::fs::write(&input, &sim.fastq).unwrap();
    let (fixed, discard) = (tmp.join("fixed.fq"), tmp.join("discard.fq"));
    let out = Command::new(EXE)
        .arg("correct")
        .arg(&input)
        .arg("-o")
        .arg(&fixed)
        .args(["-t", "2", "-k", "20", "-d"])
        .arg(&discard)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("4000 reads: "), "{stderr}");
    let kept = fastq_records(&std::fs::read(&fixed).unwrap());
    let dropped = std::fs::read(&discard).unwrap();
    let dropped = if dropped.is_empty() {
        Vec::new()
    } else {
        fastq_records(&dropped)
    };
    assert_eq!(kept.len() + dropped.len(), 4000);
    let (mut corrected, mut trimmed, mut last) = (0, 0, None);
    for (name, seq, qual) in &kept {
        let i: usize = name[1..name.find(' ').unwrap()].parse().unwrap();
        assert!(last < Some(i), "input order");
        last = Some(i);
        assert_eq!(seq.len(), qual.len(), "{name}");
        let off = usize::from(qual[0] - b'!');
        assert_eq!(
            qual[..],
            (b'!'..b'!' + 50).collect::<Vec<u8>>()[off..off + seq.len()],
            "{name}"
        );
        if seq.len() < 50 {
            trimmed += 1;
        } else if *seq != sim.reads[i] {
            corrected += 1;
            assert_eq!(*seq, sim.truth[i], "{name}: a fix that is not the truth");
        }
    }
    assert!(
        corrected > 2000 && trimmed > 0,
        "{corrected} corrected, {trimmed} trimmed"
    );
    assert!(
        stderr.contains(&format!("{corrected} fixed, {trimmed} trimmed")),
        "{stderr}"
    );

    // gzip in and out: the same records.
    let gz_in = tmp.join("reads.fq.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, &sim.fastq).unwrap();
    std::fs::write(&gz_in, enc.finish().unwrap()).unwrap();
    let gz_out = tmp.join("fixed.fq.gz");
    let out = Command::new(EXE)
        .args(["correct", "-q", "--threads", "1", "-o"])
        .arg(&gz_out)
        .arg(&gz_in)
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(&std::fs::read(&gz_out).unwrap()[..2], &[0x1f, 0x8b]);
    assert!(gunzip(&gz_out) == std::fs::read(&fixed).unwrap());

    // A pipe cannot be read twice: its records are kept in memory, and the
    // output is the same as the file's.
    let piped_out = tmp.join("piped.fq");
    let mut child = Command::new(EXE)
        .args(["correct", "-q", "-t", "2", "-k", "20", "/dev/stdin", "-o"])
        .arg(&piped_out)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let fastq = sim.fastq.clone();
    let feeder = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &fastq));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&piped_out).unwrap() == std::fs::read(&fixed).unwrap());

    // FASTA in, FASTA out, through the earlier positional form.
    let fa = tmp.join("reads.fa");
    let mut fasta = Vec::new();
    for (i, r) in sim.reads.iter().enumerate() {
        fasta.extend_from_slice(format!(">s{i}\n").as_bytes());
        fasta.extend_from_slice(r);
        fasta.push(b'\n');
    }
    std::fs::write(&fa, fasta).unwrap();
    let fixed_fa = tmp.join("fixed.fa");
    let out = Command::new(EXE)
        .arg("-q")
        .arg(&fa)
        .arg(&fixed_fa)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = std::fs::read(&fixed_fa).unwrap();
    assert!(
        text.starts_with(b">s")
            && text
                .split(|&b| b == b'\n')
                .filter(|l| l.starts_with(b">"))
                .count()
                == kept.len()
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
