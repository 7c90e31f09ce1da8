#!/usr/bin/env python3
"""`make bench-ec`: CUDA-EC quality against the truth and speed (spec §7, §8.4, §8.5).

Makes the spec's simulated data sets with Debian's wgsim (random genomes, 1 %
substitutions, fixed seeds), runs seqshim-ec exact-v1 and default mode and
Lighter on each, scores every output against the truth and prints two
markdown tables: quality, and speed (wall time, CPU time, max RSS from
/usr/bin/time -v, reads/s) at one thread and at all threads.

Scoring as spec §7 (CARE's arteval): TP = error set to the truth, FN = error
left or set to another wrong base, FP = wrong edit of a correct base;
gain = (TP - FP) / (TP + FN). "gain (all)" counts errors in trimmed-away
bases and discarded reads as FN; "gain (kept)" only counts the bases kept.
The truth comes from the read names (wgsim coordinates; the strand is the
one whose genome window the read matches better).

Usage: bench_ec.py --bin PATH/seqshim-ec --work DIR [--sets srr6331like,L100_60x,L36_60x]
"""

import argparse
import os
import random
import re
import subprocess
import sys
import time

SETS = {
    # name: (genome length, genome seed, read length, reads, wgsim seed)
    "srr6331like": (877_438, 13, 36, 1_693_848, 6331),
    "L100_60x": (2_000_000, 11, 100, 1_200_000, 10060),
    "L36_60x": (2_000_000, 11, 36, 3_333_333, 3660),
}
COMP = bytes.maketrans(b"ACGT", b"TGCA")
ONES = {}


def log(msg):
    print(f"[bench-ec] {msg}", file=sys.stderr, flush=True)


def nz_mask(x, n):
    """Bit i*8 set where byte i of the XOR x is non-zero."""
    x |= x >> 4
    x |= x >> 2
    x |= x >> 1
    ones = ONES.get(n)
    if ones is None:
        ones = ONES[n] = int.from_bytes(b"\x01" * n, "big")
    return x & ones


def diff_mask(a, b):
    return nz_mask(int.from_bytes(a, "big") ^ int.from_bytes(b, "big"), len(a))


def make_set(name, work):
    glen, gseed, rlen, nreads, wseed = SETS[name]
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    genome_fa = os.path.join(d, "genome.fa")
    fq = os.path.join(d, "reads.fq")
    fa = os.path.join(d, "reads.fa")
    rng = random.Random(gseed)
    genome = "".join(rng.choice("ACGT") for _ in range(glen)).encode()
    if not os.path.exists(fa):
        with open(genome_fa, "wb") as f:
            f.write(b">chr\n" + genome + b"\n")
        subprocess.run(
            ["wgsim", "-e", "0.01", "-r", "0", "-R", "0", "-X", "0", "-A", "1",
             "-1", str(rlen), "-2", str(rlen), "-d", "300", "-s", "30",
             "-N", str(nreads), "-S", str(wseed), genome_fa, fq, os.devnull],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(fq, "rb") as f, open(fa, "wb") as out:
            lines = f.read().split(b"\n")
            for i in range(0, len(lines) - 3, 4):
                out.write(b">" + lines[i][1:] + b"\n" + lines[i + 1] + b"\n")
    return d, genome, rlen, nreads


def truth_of(genome, fq):
    """Input reads, their truths and name -> index."""
    reads, truths, index = [], [], {}
    with open(fq, "rb") as f:
        lines = f.read().split(b"\n")
    for i in range(0, len(lines) - 3, 4):
        name = lines[i][1:].split()[0]
        seq = lines[i + 1]
        m = re.match(rb"(.+)_(\d+)_(\d+)_", name)
        start, end, n = int(m.group(2)) - 1, int(m.group(3)), len(seq)
        fwd = genome[start:start + n]
        rev = genome[end - n:end].translate(COMP)[::-1]
        if len(fwd) < n or (len(rev) == n and bin(diff_mask(seq, rev)).count("1") < bin(diff_mask(seq, fwd)).count("1")):
            fwd = rev
        index[name] = len(reads)
        reads.append(seq)
        truths.append(fwd)
    return reads, truths, index


def read_output(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        return []
    lines = data.split(b"\n")
    step = 4 if data[:1] == b"@" else 2
    return [(lines[i][1:].split()[0] if lines[i][1:] else b"", lines[i + 1])
            for i in range(0, len(lines) - step + 1, step)]


def score(reads, truths, index, out_path):
    tp = fp = fn_kept = 0
    n = len(reads)
    kept = [None] * n
    for name, seq in read_output(out_path):
        kept[index[name]] = seq
    errors = 0
    err_reads = fixed_full = trimmed = discarded = clean_after = nkept = 0
    for i in range(n):
        r, t, o = reads[i], truths[i], kept[i]
        m_rt = diff_mask(r, t)
        e = bin(m_rt).count("1")
        errors += e
        err_reads += e > 0
        if o is None:
            discarded += 1
            continue
        nkept += 1
        L = len(r)
        if len(o) == L:
            if o == r:
                fn_kept += e
                clean_after += e == 0
                continue
            m_ot = diff_mask(o, t)
            fixed_full += e > 0 and m_ot == 0
            clean_after += m_ot == 0
        else:
            trimmed += 1
            if not o:
                continue
            best = min(range(L - len(o) + 1),
                       key=lambda off: (bin(diff_mask(o, t[off:off + len(o)])).count("1"),
                                        bin(diff_mask(o, r[off:off + len(o)])).count("1")))
            r, t = r[best:best + len(o)], t[best:best + len(o)]
            m_rt = diff_mask(r, t)
            m_ot = diff_mask(o, t)
            clean_after += m_ot == 0
        tp += bin(m_rt & ~m_ot).count("1")
        fp += bin(~m_rt & m_ot).count("1")
        fn_kept += bin(m_rt & m_ot).count("1")
    return {
        "errors": errors, "TP": tp, "FP": fp,
        "gain_all": (tp - fp) / errors if errors else 0.0,
        "gain_kept": (tp - fp) / (tp + fn_kept) if tp + fn_kept else 0.0,
        "fixed_full": 100.0 * fixed_full / err_reads if err_reads else 0.0,
        "trimmed": trimmed, "discarded": discarded,
        "clean_after": 100.0 * clean_after / nkept if nkept else 0.0,
    }


def timed(cmd, log_path):
    t0 = time.time()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    wall = time.time() - t0
    with open(log_path, "w") as f:
        f.write(" ".join(cmd) + "\n" + p.stderr)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", p.stderr).group(1))
    sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", p.stderr).group(1))
    return {"wall": wall, "cpu": user + sys_, "rss_mib": rss / 1024.0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sets", default="srr6331like,L100_60x")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args()
    T = args.threads
    quality, speed = [], []
    for name in args.sets.split(","):
        log(f"{name}: simulating")
        d, genome, rlen, nreads = make_set(name, args.work)
        fq, fa = os.path.join(d, "reads.fq"), os.path.join(d, "reads.fa")
        cov = nreads * rlen / len(genome)
        alpha = 7.0 / cov
        reads, truths, index = truth_of(genome, fq)
        nreads = len(reads)
        runs = [
            ("seqshim exact-v1 -search 1", T, [args.bin, "-f", fa, "-t", "20", "-o", f"{d}/v1.fixed.fa",
                                               "-d", f"{d}/v1.discard.fa", "-r", str(rlen),
                                               "--threads", str(T)], f"{d}/v1.fixed.fa"),
            ("seqshim exact-v1 -search 1", 1, [args.bin, "-f", fa, "-t", "20", "-o", f"{d}/v1.fixed.fa",
                                               "-d", f"{d}/v1.discard.fa", "-r", str(rlen),
                                               "--threads", "1"], None),
            ("seqshim default k=20", T, [args.bin, "correct", fq, "-o", f"{d}/def.fixed.fq", "-t", str(T),
                                         "-k", "20"], f"{d}/def.fixed.fq"),
            ("seqshim default k=20", 1, [args.bin, "correct", fq, "-o", f"{d}/def.fixed.fq", "-t", "1",
                                         "-k", "20"], None),
            ("seqshim default -search 2", T, [args.bin, "correct", fq, "-o", f"{d}/def2.fixed.fq",
                                              "-t", str(T), "-k", "20", "--search", "2"],
             f"{d}/def2.fixed.fq"),
            ("Lighter k=17", T, ["lighter", "-r", fq, "-k", "17", str(len(genome)), f"{alpha:.4f}",
                                 "-t", str(T), "-od", f"{d}/lighter"], f"{d}/lighter/reads.cor.fq"),
            ("Lighter k=17", 1, ["lighter", "-r", fq, "-k", "17", str(len(genome)), f"{alpha:.4f}",
                                 "-t", "1", "-od", f"{d}/lighter"], None),
        ]
        os.makedirs(f"{d}/lighter", exist_ok=True)
        for i, (tool, threads, cmd, out) in enumerate(runs):
            log(f"{name}: {tool}, {threads} thread(s)")
            t = timed(cmd, f"{d}/run{i}.log")
            speed.append((name, nreads, tool, threads, t))
            if out:
                quality.append((name, tool, score(reads, truths, index, out)))
    print("\n### Quality (spec §7 scoring; gain (all) counts trimmed/discarded errors as FN)\n")
    print("| data | tool | errors | TP | FP | gain (all) | gain (kept) | err. reads fixed, full length | trimmed / discarded | kept reads error-free |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for name, tool, s in quality:
        print(f"| {name} | {tool} | {s['errors']:,} | {s['TP']:,} | {s['FP']:,} | {s['gain_all']:.4f} | "
              f"{s['gain_kept']:.4f} | {s['fixed_full']:.2f} % | {s['trimmed']:,} / {s['discarded']:,} | "
              f"{s['clean_after']:.2f} % |")
    print(f"\n### Speed ({T} threads = all cores; single runs)\n")
    print("| data | reads | tool | threads | wall s | CPU s | max RSS MiB | reads/s | wall vs Lighter, same threads |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    lighter = {(n, th): t["wall"] for n, _, tool, th, t in speed if tool.startswith("Lighter")}
    for name, n, tool, threads, t in speed:
        ratio = t["wall"] / lighter[(name, threads)]
        print(f"| {name} | {n:,} | {tool} | {threads} | {t['wall']:.1f} | {t['cpu']:.1f} | "
              f"{t['rss_mib']:,.0f} | {n / t['wall']:,.0f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
