#!/usr/bin/env bash
# Runs seqshim's GPU checks from a device bundle and prints a summary.
# Usage: bash device-bundle/run.sh   (on a machine with an NVIDIA GPU)
#   DEVICE_CHECKS="abea routing"  runs only those checks/*.sh (by name);
#                                 the common checks only if it names "common"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export SEQSHIM_DATA_DIR="$here/data"
cache="$(mktemp -d)"
passed=0
failed=0
failures=()

log_of() { printf '%s/%s.log' "$cache" "$(printf %s "$1" | tr -c 'a-zA-Z0-9' _)"; }

# check NAME EXPECTED-REGEX COMMAND...: runs COMMAND, passes when it exits 0
# and its output matches EXPECTED-REGEX.
check() {
    local name="$1" expect="$2"
    shift 2
    local log
    log="$(log_of "$name")"
    "$@" >"$log" 2>&1
    local rc=$?
    if [ $rc -eq 0 ] && grep -Eq -- "$expect" "$log"; then
        passed=$((passed + 1))
        echo "PASS  $name"
    else
        failed=$((failed + 1))
        failures+=("$name")
        echo "FAIL  $name (exit $rc)"
        sed 's/^/      | /' "$log" | tail -n 40
    fi
}

# gpu_test FAMILY: sets $gpu_bin to the family's GPU test binary (built
# from tests/FAMILY_gpu.rs); counts a failure and returns 1 when the bundle
# lacks it.
gpu_test() {
    gpu_bin="$here/bin/test-$1_gpu"
    [ -x "$gpu_bin" ] && return 0
    failed=$((failed + 1))
    failures+=("$1: bin/test-$1_gpu missing from the bundle")
    echo "FAIL  $1: bin/test-$1_gpu missing from the bundle"
    return 1
}

echo "== machine =="
nvidia-smi -L 2>/dev/null || echo "nvidia-smi not available"
echo

only="${DEVICE_CHECKS:-}"
if [ -z "$only" ] || grep -qw common <<<"$only"; then
check "demo on the GPU compiles the selftest kernel" "compiled by NVRTC" \
    env SEQSHIM_LOG=info SEQSHIM_CACHE_DIR="$cache/k" SEQSHIM_STRICT=1 "$here/bin/seqshim-demo"
grep -E '^(backend|gpu |nvrtc|run |\[seqshim\])' "$(log_of "demo on the GPU compiles the selftest kernel")" | sed 's/^/      /'
check "backend info names the GPU" "^gpu 0: " \
    env SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/seqshim-demo"
check "second process loads the kernel from the cache" "selftest: loaded from cache" \
    env SEQSHIM_LOG=info SEQSHIM_CACHE_DIR="$cache/k" SEQSHIM_STRICT=1 "$here/bin/seqshim-demo"
check "kernel counters show a cache hit and no compile" "\(0 compiled, [1-9][0-9]* loaded from cache\)" \
    env SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/seqshim-demo"
check "SEQSHIM_BACKEND=cpu runs the CPU path" "reason: SEQSHIM_BACKEND=cpu" \
    env SEQSHIM_BACKEND=cpu SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/seqshim-demo"
check "C program, CPU backend: expected output" "selftest again: 0" \
    env SEQSHIM_BACKEND=cpu "$here/bin/native_api"
check "C program, GPU backend, strict" "selftest again: 0" \
    env SEQSHIM_STRICT=1 SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/native_api"
if [ -x "$here/bin/test-seqshim" ]; then
    check "unit tests (GPU present)" "test result: ok" \
        env SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/test-seqshim"
fi
if [ -x "$here/bin/test-kernels_compile" ]; then
    check "every kernel compiles with this machine's NVRTC" "test result: ok" \
        env SEQSHIM_REQUIRE_NVRTC=1 SEQSHIM_NVRTC_ARCHS=75,80,90 "$here/bin/test-kernels_compile" --nocapture
fi
gpu_count="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')"
if [ "${gpu_count:-0}" -ge 2 ]; then
    check "with $gpu_count GPUs the selftest's batches use GPU 1 too" "GPU 1 \(.*\): batch of" \
        env SEQSHIM_LOG=debug SEQSHIM_CACHE_DIR="$cache/k" SEQSHIM_STRICT=1 "$here/bin/seqshim-demo"
    grep -E ': batch of' "$(log_of "with $gpu_count GPUs the selftest's batches use GPU 1 too")" | sed 's/^/      /'
fi
fi
# Families add their GPU-vs-CPU parity checks and benchmarks below.
for extra in "$here"/checks/*.sh; do
    name="$(basename "$extra" .sh)"
    if [ -n "$only" ] && ! grep -qw -- "$name" <<<"$only"; then
        continue
    fi
    # Fault injection and the sanitizers take minutes: only when named.
    case "$name" in faults | sanitize) [ -n "$only" ] || continue ;; esac
    [ -f "$extra" ] && source "$extra"
done

echo
echo "device checks: $passed passed, $failed failed"
for f in "${failures[@]}"; do echo "  failed: $f"; done
rm -rf "$cache"
[ "$failed" -eq 0 ]
