# CONSENT's per-window BOA calls never lose on a GPU (cost-aware routing);
# sourced by the bundle's run.sh, which provides `check`, `log_of`, $here
# and $cache. Client threads x window lengths, each cell run twice in one
# go: seqshim's CPU path (SEQSHIM_BACKEND=cpu) and seqshim with the GPU
# present and the routed BOA path on (SEQSHIM_POA_TRANSPARENT=1; it is off
# by default). MSA checksums must be equal; the ratio is printed.
#   POA_ROUTING_THREADS  thread counts, default "1 16 64"
#   POA_ROUTING_LENGTHS  longest window segment, default "500 200"
boa_threads="$here/bin/poa-boa-threads"
boa_matrix="$here/data/boa-dna.mat"

# poa_routing_cell MAXLEN T WINDOWS: one grid cell; prints one line.
poa_routing_cell() {
    local len="$1" t="$2" n="$3" cpu ours
    cpu="$(env SEQSHIM_BACKEND=cpu "$boa_threads" "$boa_matrix" "$t" "$n" "$len")" \
        || { echo "cpu path run failed"; return 1; }
    ours="$(env SEQSHIM_POA_TRANSPARENT=1 SEQSHIM_LOG=info SEQSHIM_CACHE_DIR="$cache/k" "$boa_threads" "$boa_matrix" "$t" "$n" "$len" \
        2>"$cache/poa-routing.err")" || { echo "seqshim run failed:"; tail -n 5 "$cache/poa-routing.err"; return 1; }
    grep -E 'POA: (last|starting|[0-9]+ device)' "$cache/poa-routing.err" | tail -n 3 | sed 's/^/    /'
    [ "${cpu##*checksum }" = "${ours##*checksum }" ] || { echo "checksums differ: $cpu / $ours"; return 1; }
    local c g
    c="$(sed -E 's/.*: ([0-9]+) win\/s.*/\1/' <<<"$cpu")"
    g="$(sed -E 's/.*: ([0-9]+) win\/s.*/\1/' <<<"$ours")"
    awk -v c="$c" -v g="$g" -v l="$len" -v t="$t" -v n="$n" 'BEGIN {
        printf "poa routing grid: up to %4s bp, %3s threads, %5s windows: cpu path %6d, routed %6d win/s; routed/cpu %.2f\n",
            l, t, n, c, g, g / c }'
}

if [ -x "$boa_threads" ] && [ -f "$boa_matrix" ]; then
    for len in ${POA_ROUTING_LENGTHS:-500 200}; do
        for t in ${POA_ROUTING_THREADS:-1 16 64}; do
            # About two seconds a run on the CPU path of a 16-core host.
            n=$(( (len > 300 ? 2000 : 6000) * (t < 16 ? t : 16) / 16 ))
            [ "$n" -lt 64 ] && n=64
            name="poa routing: BOA calls, up to $len bp, $t threads: CPU path == routed"
            check "$name" "poa routing grid: " poa_routing_cell "$len" "$t" "$n"
            grep -E '^(poa routing grid|    )' "$(log_of "$name")" | sed 's/^/      /'
        done
    done
else
    echo "note: bin/poa-boa-threads or data/boa-dna.mat missing; no POA routing grid"
fi
