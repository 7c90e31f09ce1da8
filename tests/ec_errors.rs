//! Typed errors for bad input; nothing is written on failure.

use std::path::{Path, PathBuf};

use seqshim::ec::{self as ecm, EcError, Mode, Params, Spectrum};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ec-errors-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn k_out_of_range_in_both_modes() {
    let v1 = Params {
        k: 37,
        ..Params::exact_v1(36)
    };
    assert!(matches!(
        v1.validate(),
        Err(EcError::KOutOfRange {
            k: 37,
            min: 1,
            max: 36
        })
    ));
    let v1 = Params {
        k: 0,
        ..Params::exact_v1(36)
    };
    assert!(matches!(
        Spectrum::new(&v1, 10),
        Err(EcError::KOutOfRange { k: 0, .. })
    ));
    let def = Params {
        k: 40,
        ..Params::default_mode()
    };
    let e = ecm::correct_file(Path::new("/nonexistent"), &tmp("o"), None, &def).unwrap_err();
    assert_eq!(e.to_string(), "k = 40 is out of range (allowed 1..=32)");
    let bad = Params {
        num_search: 3,
        ..Params::default_mode()
    };
    assert!(matches!(bad.validate(), Err(EcError::InvalidParam(_))));
}

#[test]
fn exact_v1_read_longer_than_read_len_names_file_and_line_and_writes_nothing() {
    let input = tmp("long.fa");
    std::fs::write(
        &input,
        ">a\nACGTACGTACGTACGTACGTACGT\n>b\nACGTACGTACGTACGTACGTACGTAC\n",
    )
    .unwrap();
    let (fixed, discard) = (tmp("long.fixed.fa"), tmp("long.discard.fa"));
    std::fs::write(&fixed, b"previous result").unwrap();
    let params = Params {
        k: 20,
        ..Params::exact_v1(24)
    };
    let e = ecm::correct_file(&input, &fixed, Some(&discard), &params).unwrap_err();
    assert!(
        matches!(
            e,
            EcError::ReadTooLong {
                line: 4,
                len: 26,
                read_len: 24,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("long.fa:4:"), "{e}");
    assert_eq!(
        std::fs::read(&fixed).unwrap(),
        b"previous result",
        "old output untouched"
    );
    assert!(!discard.exists(), "nothing written half-way");
    // Batch API.
    let mut sp = Spectrum::new(&params, 1).unwrap();
    assert!(matches!(
        sp.add(&[[b'A'; 30].as_slice()]),
        Err(EcError::BatchReadTooLong {
            index: 0,
            len: 30,
            read_len: 24
        })
    ));
}

#[test]
fn unreadable_and_malformed_files_are_reported_with_names() {
    let params = Params::default_mode();
    let missing = tmp("missing.fa");
    let e = ecm::correct_file(&missing, &tmp("x.fa"), None, &params).unwrap_err();
    assert!(matches!(e, EcError::Io { .. }));
    assert!(e.to_string().contains("missing.fa"), "{e}");

    let fq = tmp("bad.fq");
    std::fs::write(&fq, "@r1\nACGT\n+\nIIII\n@r2\nACGT\n-\nIIII\n").unwrap();
    let e = ecm::correct_file(&fq, &tmp("o.fq"), None, &params).unwrap_err();
    assert!(matches!(e, EcError::Format { line: 7, .. }), "{e:?}");
    assert!(e.to_string().contains("bad.fq:7:"), "{e}");

    let junk = tmp("junk.txt");
    std::fs::write(&junk, "hello\n").unwrap();
    let e = ecm::correct_file(&junk, &tmp("o.fa"), None, &params).unwrap_err();
    assert!(e.to_string().contains("junk.txt:1:"), "{e}");

    let v1 = Params::exact_v1(36);
    let e = ecm::correct_file(&junk, &tmp("o.fa"), None, &v1).unwrap_err();
    assert!(
        matches!(e, EcError::InvalidParam(_)),
        "exact-v1 needs a discard path: {e:?}"
    );
}

#[test]
fn api_misuse_is_a_state_error() {
    let params = Params {
        mode: Mode::ExactV1,
        k: 5,
        ..Params::exact_v1(10)
    };
    let mut sp = Spectrum::new(&params, 1).unwrap();
    assert!(matches!(sp.contains(b"ACGTA"), Err(EcError::State(_))));
    assert!(matches!(sp.export_v1(), Err(EcError::State(_))));
    sp.add(&[b"ACGTACGTAC".as_slice()]).unwrap();
    assert!(
        matches!(sp.add(&[b"ACGTACGTAC".as_slice()]), Err(EcError::State(_))),
        "more reads than announced"
    );
    sp.finalize().unwrap();
    assert!(matches!(sp.finalize(), Err(EcError::State(_))));
    assert!(matches!(sp.add(&[b"A".as_slice()]), Err(EcError::State(_))));
    assert!(matches!(sp.contains(b"ACG"), Err(EcError::InvalidParam(_))));
    // Mismatched parameters between spectrum and batch.
    let other = Params {
        k: 6,
        ..params.clone()
    };
    assert!(matches!(
        ecm::correct_batch(&sp, &other, &mut []),
        Err(EcError::InvalidParam(_))
    ));
}
