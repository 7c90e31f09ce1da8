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
