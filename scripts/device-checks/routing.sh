# The synchronous path never loses (cost-aware routing); sourced by the
# bundle's run.sh, which provides `check`, `log_of`, $here and $cache.
# WFA and ABEA below; GACT at the end.
# A grid of client threads x job sizes, each cell run three ways in one
# go: Debian's libwfa2 on 16 threads (the upstream reference), seqshim's
# CPU path (SEQSHIM_BACKEND=cpu) and seqshim as shipped (GPU present) at
# the cell's thread count. Output must be identical; the ratios are printed.
#   ROUTING_THREADS  thread counts, default "1 4 16 64 256 1024"
#   ROUTING_LENGTHS  WFA lengths, default "150 1000 10000"
#   ROUTING_SCALE    pairs per WFA cell, times this (default 1: about a
#                    second at 16 threads)
#   ROUTING_ENV      extra VAR=VALUE words for the shipped runs (e.g.
#                    SEQSHIM_GPU_WAIT=spin), to compare settings
#   ROUTING_REPEAT   runs of the CPU path and of the shipped library per
#                    WFA cell, alternating; medians compared (default 1)
#   ROUTING_SKIP_ABEA  set: no ABEA grid (GACT_ROUTING_THREADS=" ": no GACT)
routing_threads="${ROUTING_THREADS:-1 4 16 64 256 1024}"
wfa_deb_dir="$here/debian"

# median WORDS...: the middle of the numbers given (the lower middle of an
# even count).
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# rate OUTPUT: the aln/s figure of one wfa-threads line.
rate() { sed -E 's/.* ([0-9]+) aln\/s.*/\1/' <<<"$1"; }

# wfa_cell LEN T PAIRS: one grid cell; prints one line of ratios. With
# ROUTING_REPEAT=R the CPU path and the shipped library run R times each,
# alternating, and the medians are compared (the host's speed drifts by
# tens of percent between single runs).
wfa_cell() {
    local len="$1" t="$2" pairs="$3" up cpu ours r cpus=() ourss=()
    up="$(LD_LIBRARY_PATH="$wfa_deb_dir" "$here/bin/wfa-threads" 16 "$pairs" "$len" 0.05 none)" || { echo "debian run failed"; return 1; }
    for ((r = 0; r < ${ROUTING_REPEAT:-1}; r++)); do
        cpu="$(env SEQSHIM_BACKEND=cpu LD_LIBRARY_PATH="$wfa_deb_dir" LD_PRELOAD="$here/lib/libseqshim.so.0" \
            "$here/bin/wfa-threads" "$t" "$pairs" "$len" 0.05 none)" || { echo "cpu path run failed"; return 1; }
        # shellcheck disable=SC2086 # ROUTING_ENV is a list of words
        ours="$(env SEQSHIM_LOG=info SEQSHIM_CACHE_DIR="$cache/k" ${ROUTING_ENV:-} LD_LIBRARY_PATH="$wfa_deb_dir" \
            LD_PRELOAD="$here/lib/libseqshim.so.0" "$here/bin/wfa-threads" "$t" "$pairs" "$len" 0.05 none 2>"$cache/routing.err")"
        local rc=$?
        if [ "$rc" -ne 0 ]; then
            echo "seqshim run failed (exit $rc):"
            tail -n 20 "$cache/routing.err"
            return 1
        fi
        grep -E 'WFA: (last|[0-9]+ device)|unavailable|warning' "$cache/routing.err" | tail -n 3 | sed 's/^/    /'
        for other in "$cpu" "$ours"; do
            [ "${up##*checksum }" = "${other##*checksum }" ] || { echo "checksums differ: $up / $other"; return 1; }
        done
        cpus+=("$(rate "$cpu")")
        ourss+=("$(rate "$ours")")
    done
    [ "${#cpus[@]}" -gt 1 ] && echo "    cpu path runs: ${cpus[*]}; shipped runs: ${ourss[*]}"
    local a c g
    a="$(rate "$up")"
    c="$(median "${cpus[@]}")"
    g="$(median "${ourss[@]}")"
    awk -v a="$a" -v c="$c" -v g="$g" -v l="$len" -v t="$t" -v n="$pairs" 'BEGIN {
        printf "routing grid wfa: %5s bp, %4s threads, %6s pairs: debian-16t %8d, cpu path %8d, shipped %8d aln/s; shipped/cpu %.2f, shipped/debian-16t %.2f\n",
            l, t, n, a, c, g, g / c, g / a }'
}

if [ -x "$here/bin/wfa-threads" ] && [ -f "$wfa_deb_dir/libwfa2.so.0" ]; then
    for len in ${ROUTING_LENGTHS:-150 1000 10000}; do
        case "$len" in
            # About a second at 16 threads on the CPU path, so that the GPU
            # is up for most of a run.
            150) base=2000000 ;;
            1000) base=100000 ;;
            *) base=4000 ;;
        esac
        for t in $routing_threads; do
            # Fewer pairs for fewer threads (the same time per run), never
            # fewer than one a thread.
            pairs=$((base * (t < 16 ? t : 16) / 16))
            pairs="$(awk -v p="$pairs" -v s="${ROUTING_SCALE:-1}" 'BEGIN { printf "%d", p * s }')"
            [ "$pairs" -lt "$t" ] && pairs="$t"
            name="routing: wavefront_align, $len bp, $t threads: identical to Debian"
            check "$name" "routing grid wfa: " wfa_cell "$len" "$t" "$pairs"
            grep -E '^(routing grid|    )' "$(log_of "$name")" | sed 's/^/      /'
        done
    done
fi

if [ -z "${ROUTING_SKIP_ABEA:-}" ] && gpu_test abea; then
    # shellcheck disable=SC2086 # ROUTING_ENV is a list of words
    check "routing: ABEA per-read calls, threads grid, identical to f5c" "abea routing grid: .*1024 threads" \
        env SEQSHIM_CACHE_DIR="$cache/k" ${ROUTING_ENV:-} ROUTING_THREADS="$routing_threads" \
        "$gpu_bin" per_read_routing_grid --exact --nocapture --test-threads=1
    grep -E '^abea routing grid' "$(log_of "routing: ABEA per-read calls, threads grid, identical to f5c")" | sed 's/^/      /'
fi

# GACT: Darwin-style synchronous calls (seqshim_gact_extend, the C export
# of Darwin's GACT, and seqshim_gact_align_tile, its AlignWithBT) from T
# threads, each cell run twice in one go: seqshim's CPU path
# (SEQSHIM_BACKEND=cpu) and seqshim as shipped (GPU present, each tile
# routed). Checksums must be identical; the ratio is printed.
#   GACT_ROUTING_THREADS  thread counts, default "1 16 64"

# gact_cell MODE T CALLS: one grid cell; prints one line of ratios.
gact_cell() {
    local mode="$1" t="$2" calls="$3" cpu ours
    cpu="$(env SEQSHIM_BACKEND=cpu "$here/bin/gact-threads" "$t" "$calls" "$mode")" \
        || { echo "cpu path run failed"; return 1; }
    ours="$(env SEQSHIM_LOG=info SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/gact-threads" "$t" "$calls" "$mode" \
        2>"$cache/gact-routing.err")" || { echo "seqshim run failed:"; tail -n 5 "$cache/gact-routing.err"; return 1; }
    grep -E 'GACT: (last|starting|[0-9]+ device)' "$cache/gact-routing.err" | tail -n 3 | sed 's/^/    /'
    echo "    cpu path: $cpu"
    echo "    shipped:  $ours"
    [ "${cpu##*checksum }" = "${ours##*checksum }" ] || { echo "checksums differ: $cpu / $ours"; return 1; }
    grep -q "(0 failed)" <<<"$cpu" || { echo "calls failed: $cpu"; return 1; }
    local c g on_gpu
    c="$(sed -E 's/.* ([0-9.]+) calls\/s.*/\1/' <<<"$cpu")"
    g="$(sed -E 's/.* ([0-9.]+) calls\/s.*/\1/' <<<"$ours")"
    # Tiles queued for the GPU, from the once-a-second reports (none while
    # the GPU is not started).
    on_gpu="$(grep -oE '[0-9]+ queued for the GPU' "$cache/gact-routing.err" | awk '{s += $1} END {print s + 0}')"
    awk -v c="$c" -v g="$g" -v m="$mode" -v t="$t" -v n="$calls" -v o="$on_gpu" 'BEGIN {
        printf "routing grid gact: %-6s %3s threads, %6s calls: cpu path %9.1f, shipped %9.1f calls/s; shipped/cpu %.2f; tiles sent to the GPU: %s\n",
            m, t, n, c, g, g / c, o }'
}

if [ -x "$here/bin/gact-threads" ]; then
    # The kernel into the cache first (strict mode starts the GPU at once),
    # so that no cell pays for NVRTC.
    env SEQSHIM_STRICT=1 SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/gact-threads" 1 4 tile >/dev/null 2>&1
    for mode in extend tile; do
        for t in ${GACT_ROUTING_THREADS:-1 16 64}; do
            # About two seconds a cell on the CPU path of a 16-core host.
            case "$mode" in
                extend) calls=$((t < 16 ? 400 : 6000)) ;;
                *) calls=$((t < 16 ? 16000 : 250000)) ;;
            esac
            name="routing: gact $mode calls, $t threads: identical to the CPU path"
            check "$name" "routing grid gact: " gact_cell "$mode" "$t" "$calls"
            grep -E '^(routing grid|    )' "$(log_of "$name")" | sed 's/^/      /'
        done
    done
fi
