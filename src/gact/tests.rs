//! Unit tests: the striped kernel against a plain transcription of spec
//! §4.1 on random tiles (including configurations the fixtures exclude, such
//! as `gap_extend < -1`), both lane widths, and the typed errors.

use super::*;

/// Straightforward O(m n) matrix version of spec §4.1 in i64, kept as simple
/// as possible so that it is obviously right.
fn reference_tile(r: &[u8], q: &[u8], p: &Params, o: TileOptions) -> TileResult {
    const NEG: i64 = i64::MIN / 4;
    let (m, n) = (r.len(), q.len());
    let rb = |i: usize| if o.reverse { r[m - i] } else { r[i - 1] };
    let qb = |j: usize| if o.reverse { q[n - j] } else { q[j - 1] };
    let mut h = vec![vec![0i64; n + 1]; m + 1];
    let mut mm = vec![vec![0i64; n + 1]; m + 1];
    let mut ii = vec![vec![NEG; n + 1]; m + 1];
    let mut dd = vec![vec![NEG; n + 1]; m + 1];
    let mut dir = vec![vec![0u8; n + 1]; m + 1];
    let (go, ge) = (p.gap_open as i64, p.gap_extend as i64);
    let (mut best, mut bi, mut bj) = (0i64, 0usize, 0usize);
    let mut pos_score = 0i64;
    for i in 1..=m {
        for j in 1..=n {
            let mv = h[i - 1][j - 1] + p.pair_score(qb(j), rb(i)) as i64;
            let (io, ie) = (mm[i - 1][j] + go, ii[i - 1][j] + ge);
            let (dop, de) = (mm[i][j - 1] + go, dd[i][j - 1] + ge);
            let (iv, dv) = (io.max(ie), dop.max(de));
            let hv = mv.max(iv).max(dv).max(0);
            let mut st = if mv >= iv {
                if mv >= dv { 3 } else { 1 }
            } else if iv >= dv {
                2
            } else {
                1
            };
            if mv <= 0 && iv <= 0 && dv <= 0 {
                st = 0;
            }
            dir[i][j] = st + if dop >= de { 4 } else { 0 } + if io >= ie { 8 } else { 0 };
            (mm[i][j], ii[i][j], dd[i][j], h[i][j]) = (mv, iv, dv, hv);
            if hv >= best {
                (best, bi, bj) = (hv, i, j);
            }
            if i as i32 == o.ref_pos && j as i32 == o.query_pos {
                pos_score = hv;
            }
        }
    }
    let (mut ci, mut cj) = if o.first {
        (bi, bj)
    } else {
        (o.ref_pos as usize, o.query_pos as usize)
    };
    let mut ops = Vec::new();
    let (mut si, mut sj) = (0i64, 0i64);
    let mut st = dir[ci][cj] & 3;
    let et = o.early_terminate as i64;
    while st != 0 {
        if si >= et || sj >= et {
            break;
        }
        ops.push(st);
        match st {
            3 => {
                st = dir[ci - 1][cj - 1] & 3;
                ci -= 1;
                cj -= 1;
                si += 1;
                sj += 1;
            }
            2 => {
                st = if dir[ci][cj] & 8 != 0 { 3 } else { 2 };
                ci -= 1;
                si += 1;
            }
            _ => {
                st = if dir[ci][cj] & 4 != 0 { 3 } else { 1 };
                cj -= 1;
                sj += 1;
            }
        }
    }
    TileResult {
        score: if o.first { best } else { pos_score } as i32,
        max_i: if o.first { bi } else { 0 },
        max_j: if o.first { bj } else { 0 },
        ref_steps: si as usize,
        query_steps: sj as usize,
        ops,
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo + 1) as u64) as i32
    }
}

fn random_tile(rng: &mut Rng, len: usize, alphabet: &[u8]) -> Vec<u8> {
    (0..len)
        .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
        .collect()
}

fn mutated(rng: &mut Rng, src: &[u8], len: usize) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    for &b in src {
        match rng.below(10) {
            0 => out.push(b"ACGTN"[rng.below(5) as usize]),
            1 => {
                out.push(b);
                out.push(b"ACGT"[rng.below(4) as usize]);
            }
            2 => {}
            _ => out.push(b),
        }
    }
    out.resize(len, b'A');
    out
}

#[test]
fn striped_kernel_matches_plain_recurrence_on_random_tiles() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for case in 0..600 {
        let m = match case % 4 {
            0 => rng.below(8) as usize,
            1 => rng.below(70) as usize,
            2 => 100 + rng.below(150) as usize,
            _ => rng.below(512) as usize,
        };
        let n = if rng.below(2) == 0 {
            m
        } else {
            rng.below(512) as usize
        };
        let alphabet: &[u8] = if case % 5 == 0 { b"AC" } else { b"ACGTacgtN" };
        let r = random_tile(&mut rng, m, alphabet);
        let q = if rng.below(3) == 0 {
            random_tile(&mut rng, n, alphabet)
        } else {
            mutated(&mut rng, &r, n)
        };
        let mut sub_mat = [0i32; 25];
        for v in sub_mat.iter_mut() {
            *v = rng.range(-5, 1);
        }
        for k in 0..5 {
            sub_mat[6 * k] = rng.range(0, 5);
        }
        // Occasionally scores that force the i32 kernel.
        if case % 7 == 0 {
            for v in sub_mat.iter_mut() {
                *v *= 1000;
            }
        }
        let params = Params {
            sub_mat,
            gap_open: rng.range(-12, 0),
            gap_extend: rng.range(-4, 0),
        };
        let first = rng.below(2) == 0;
        let opts = TileOptions {
            ref_pos: rng.range(0, m as i32),
            query_pos: rng.range(0, n as i32),
            reverse: rng.below(2) == 0,
            first,
            early_terminate: rng.range(-2, 600),
        };
        let want = reference_tile(&r, &q, &params, opts);
        let got = align_tile(&r, &q, &params, opts).expect("valid tile");
        assert_eq!(got, want, "case {case}: {m}x{n} {params:?} {opts:?}");
    }
}

#[test]
fn errors_are_typed() {
    let p = Params::darwin_default();
    let opts = TileOptions {
        ref_pos: 3,
        query_pos: 3,
        reverse: false,
        first: false,
        early_terminate: 10,
    };
    let long = vec![b'A'; MAX_TILE_LEN + 1];
    assert!(matches!(
        align_tile(&long, b"ACG", &p, opts),
        Err(GactError::TileTooLong { .. })
    ));
    let positive_gap = Params { gap_open: 1, ..p };
    assert!(matches!(
        align_tile(b"ACG", b"ACG", &positive_gap, opts),
        Err(GactError::PositiveGapScore { .. })
    ));
    let huge = Params {
        gap_extend: -(MAX_ABS_SCORE + 1),
        ..p
    };
    assert_eq!(
        align_tile(b"ACG", b"ACG", &huge, opts),
        Err(GactError::ScoreOutOfRange)
    );
    let outside = TileOptions { ref_pos: 4, ..opts };
    assert!(matches!(
        align_tile(b"ACG", b"ACG", &p, outside),
        Err(GactError::TracebackStartOutsideTile { .. })
    ));
    // Ignored when `first`.
    assert!(
        align_tile(
            b"ACG",
            b"ACG",
            &p,
            TileOptions {
                first: true,
                ..outside
            }
        )
        .is_ok()
    );
    let mut small = [0u8; 2];
    assert_eq!(
        align_tile_into(b"ACG", b"ACG", &p, opts, &mut small),
        Err(GactError::OutputTooSmall {
            needed: 3,
            capacity: 2
        })
    );

    let ext = |ref_: &[u8], query: &[u8], t: i32, o: i32, rp: i32, qp: i32| {
        extend(
            ref_,
            query,
            &p,
            ExtendOptions {
                tile_size: t,
                tile_overlap: o,
                ref_pos: rp,
                query_pos: qp,
                ref_len: None,
                query_len: None,
            },
        )
    };
    let a = vec![b'A'; 1000];
    let c = vec![b'C'; 1000];
    assert!(matches!(
        ext(&a, &c, 320, 120, 500, 500),
        Err(GactError::NonAdvancingFirstTile { .. })
    ));
    let mut rng = Rng(7);
    let seq = random_tile(&mut rng, 1000, b"ACGT");
    assert!(matches!(
        ext(&seq, &seq, 320, 320, 500, 500),
        Err(GactError::NonAdvancingFirstTile { .. })
    ));
    assert!(matches!(
        ext(&seq, &seq, 512, 120, 500, 500),
        Err(GactError::InvalidTileSize { .. })
    ));
    assert!(matches!(
        ext(&seq, &seq, 320, 120, 1001, 500),
        Err(GactError::AnchorOutOfRange { .. })
    ));
    let mut r_buf = vec![0u8; 10];
    let mut q_buf = vec![0u8; 10];
    let opts = ExtendOptions {
        tile_size: 320,
        tile_overlap: 120,
        ref_pos: 500,
        query_pos: 500,
        ref_len: None,
        query_len: None,
    };
    assert!(matches!(
        extend_into(&seq, &seq, &p, opts, &mut r_buf, &mut q_buf),
        Err(GactError::OutputTooSmall { .. })
    ));
}

#[test]
fn identical_sequences_extend_end_to_end() {
    let mut rng = Rng(99);
    let seq = random_tile(&mut rng, 2000, b"ACGT");
    let p = Params::darwin_default();
    let aln = extend(
        &seq,
        &seq,
        &p,
        ExtendOptions {
            tile_size: 320,
            tile_overlap: 120,
            ref_pos: 1000,
            query_pos: 1000,
            ref_len: None,
            query_len: None,
        },
    )
    .expect("extends");
    assert_eq!((aln.ref_start, aln.query_start), (0, 0));
    assert_eq!((aln.aligned_ref_len, aln.aligned_query_len), (2000, 2000));
    assert_eq!(aln.score, 2000);
    assert_eq!(aln.aligned_ref, seq);
    assert_eq!(aln.aligned_query, seq);
}

/// Darwin's `read_overlaps` seeds into its padded reference buffer, so a
/// seed may lie past the sequence's length: the left extension reads the
/// buffer up to the seed, the right one stops at the length, and bytes past
/// both are never read.
#[test]
fn a_seed_past_the_length_reads_up_to_the_seed_only() {
    let p = Params::darwin_default();
    let mut rng = Rng(11);
    let query = random_tile(&mut rng, 900, b"ACGT");
    // The reference: the query's first 700 bases, then padding, then
    // bytes that must never be read.
    let mut buffer = query[..700].to_vec();
    buffer.extend(std::iter::repeat_n(b'N', 60));
    let seed = buffer.len() as i32;
    let run = |tail: u8| {
        let mut b = buffer.clone();
        b.extend(std::iter::repeat_n(tail, 300));
        extend(
            &b,
            &query,
            &p,
            ExtendOptions {
                tile_size: 320,
                tile_overlap: 120,
                ref_pos: seed,
                query_pos: 760,
                ref_len: Some(700),
                query_len: None,
            },
        )
        .expect("a seed past the length is accepted")
    };
    let aln = run(b'A');
    assert_eq!(aln, run(b'C'), "nothing past the seed is read");
    assert!(aln.ref_start + aln.aligned_ref_len <= seed as usize);
    assert!(aln.aligned_ref_len > 0 && aln.score > 0);
    let past_anchor = extend(
        &buffer,
        &query,
        &p,
        ExtendOptions {
            tile_size: 320,
            tile_overlap: 120,
            ref_pos: seed + 1,
            query_pos: 10,
            ref_len: None,
            query_len: None,
        },
    );
    assert!(matches!(
        past_anchor,
        Err(GactError::AnchorOutOfRange { .. })
    ));
}
