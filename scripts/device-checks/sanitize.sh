# compute-sanitizer over every kernel, for the GPU machine; sourced by the
# bundle's run.sh, which provides `check`, `log_of`, $here (the bundle) and
# $cache. Each family's kernels run under the tools named in
# SANITIZE_TOOLS (default memcheck racecheck initcheck) on small inputs
# (sanitized kernels run many times slower): the demo (selftest, WFA, POA,
# GACT), a WFA GPU test, the ABEA fixture, random GACT tiles, POA edge
# windows, CUDA-EC's exact-v1 kernel and default mode (counting included)
# through seqshim-ec. A run passes when the tool reports nothing and the
# program itself passes.
#   SANITIZE_TOOLS    tools to run
#   SANITIZE_TIMEOUT  seconds per run (default 300)
#   SANITIZE_ONLY     extended regex: run only the programs whose label
#                     (first column of the list below) matches it, so that
#                     the tools can be spread over several device calls
#   SANITIZE_INITCHECK_API  "no": initcheck checks only the kernels' own
#                     reads, not the host's copies (default "yes": device
#                     arenas are zeroed when allocated, so a download of a
#                     whole result region, slots no kernel wrote included,
#                     copies defined bytes)
sanitizer="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)"

# sanitize TOOL PROGRAM ARGS...: runs PROGRAM under TOOL; prints the tool's
# summary and "program exit N", and returns N.
sanitize() {
    local tool="$1"
    shift
    local extra=()
    [ "$tool" = racecheck ] && extra=(--racecheck-report hazard)
    [ "$tool" = initcheck ] && [ "${SANITIZE_INITCHECK_API:-yes}" != yes ] && extra=(--check-api-memory-access no)
    env SEQSHIM_CACHE_DIR="$cache/k" SEQSHIM_STRICT=1 GACT_RANDOM_TILES=2000 POA_GPU_SCALE=0.05 \
        timeout "${SANITIZE_TIMEOUT:-300}" "$sanitizer" --tool "$tool" --error-exitcode 99 "${extra[@]}" "$@"
    local rc=$?
    echo "program exit $rc"
    return $rc
}

if [ -n "$sanitizer" ] && [ -x "$here/bin/seqshim-demo" ]; then
    echo "      $("$sanitizer" --version | tail -n 1)"
    zcat "$here/data/cudaec/L36_sim/reads.fa.gz" >"$cache/sanitize-ec.fa" 2>/dev/null
    for tool in ${SANITIZE_TOOLS-memcheck racecheck initcheck}; do
        while read -r label program args; do
            [ -x "$here/bin/$program" ] || continue
            [ -n "${SANITIZE_ONLY:-}" ] && ! grep -Eq -- "$SANITIZE_ONLY" <<<"$label" && continue
            # racecheck tracks every shared-memory access: the POA edge
            # windows (640 jobs) do not finish under it in minutes, the few
            # windows of every block width do.
            [ "$tool" = racecheck ] && [ "$label" = poa-edge-windows ] && continue
            name="sanitize: $tool, $label"
            # shellcheck disable=SC2086 # args are words by design
            check "$name" "(ERROR|RACECHECK) SUMMARY: 0 (errors|hazards)" \
                sanitize "$tool" "$here/bin/$program" $args
            grep -hE "(ERROR|RACECHECK) SUMMARY|program exit" "$(log_of "$name")" | tr '\n' ' ' | sed 's/^/      /'
            echo
            # A test filter that matches nothing also exits 0 with a clean
            # summary: a test program must have run its one test.
            if [[ "$program" == test-* ]] && ! grep -q "test result: ok. 1 passed" "$(log_of "$name")"; then
                failed=$((failed + 1))
                failures+=("$name: the test did not run")
                echo "FAIL  $name: the test did not run"
            fi
        done <<EOF
demo seqshim-demo
wfa-mixed-lengths test-wfa_gpu mixed_lengths_fit_a_small_arena --exact --test-threads=1
abea-fixture test-abea_gpu gpu_equals_cpu_equals_fixture --exact --test-threads=1
gact-random-tiles test-gact_gpu gpu_equals_cpu_on_random_tiles --exact --test-threads=1
poa-edge-windows test-poa_gpu gpu_equals_cpu_on_other_modes_and_edge_windows --exact --test-threads=1
poa-block-widths test-poa_gpu gpu_equals_cpu_on_a_few_windows_of_each_block_width --exact --test-threads=1
ec-v1-kernel test-ec_gpu a_failing_device_batch_reruns_on_the_cpu --exact --test-threads=1
ec-default-file seqshim-ec correct $cache/sanitize-ec.fa -k 20 -q -o $cache/sanitize-ec.out.fa
EOF
    done
fi
