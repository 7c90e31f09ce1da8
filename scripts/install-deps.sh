#!/usr/bin/env bash
# Installs what `make demo` and `make test` need on Debian/Ubuntu, only where
# it is missing. Safe to run again. Needs root (or sudo) for apt-get.
set -euo pipefail

need=()
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v c++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v python3 >/dev/null 2>&1 || need+=(python3 python3-pip)
# The sanitizer runtimes for the ASan/UBSan builds of the C test programs.
ldconfig -p 2>/dev/null | grep -q 'libasan\.so' || need+=(libasan8)
ldconfig -p 2>/dev/null | grep -q 'libubsan\.so' || need+=(libubsan1)
# The POA oracle: Debian's poa 2.0 binary and its BLOSUM80 file.
command -v poa >/dev/null 2>&1 || need+=(poa)
# The GACT tile-score oracle: Debian's parasail (header and library).
[ -e /usr/include/parasail.h ] || need+=(libparasail-dev)
# Memory checking of the C programs that drive the BOA mirror ABI.
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
# Peers for `make bench-poa` only (not needed by the tests).
if [ "${SEQSHIM_BENCH_DEPS:-0}" = 1 ]; then
    command -v abpoa >/dev/null 2>&1 || need+=(abpoa)
    command -v spoa >/dev/null 2>&1 || need+=(spoa)
    # `make bench-ec`: wgsim (in samtools) simulates, Lighter is the peer,
    # GNU time measures peak memory.
    command -v wgsim >/dev/null 2>&1 || need+=(samtools)
    command -v lighter >/dev/null 2>&1 || need+=(lighter)
    [ -x /usr/bin/time ] || need+=(time)
fi
# WFA2-lib 2.3.3 from the distribution: the oracle for the WFA2 mirror
# (headers, libwfa2.so.0 and the C++ binding libwfa2cpp.so.0).
[ -e /usr/include/wfa2lib/wavefront/wfa.h ] || need+=(libwfa2-dev libwfa2-0)

if ((${#need[@]})); then
    echo "installing: ${need[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "error: cargo not found; install Rust (https://rustup.rs) first" >&2
    exit 1
fi
