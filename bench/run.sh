#!/usr/bin/env bash
# Runs the W1-W10 benchmarks: native -O2 references and kern (fast, profile and checked modes, 1 and 2 workers), prints a table of medians and writes bench/results.json.
#
# usage: bench/run.sh [--smoke] [--rounds N] [--slices N] [--kern PATH] [--out FILE]
#   --smoke      tiny sizes, one round, no start-up figure: checks that everything runs and passes
#   --rounds N   rounds of every measurement (default 3); the figures are medians over rounds
#   --slices N   runs of every configuration in a round (default 3); a round's figure is their median
#   --kern PATH  the kern binary (default: build/kern, as scripts/setup.sh builds it)
#   --out FILE   where the JSON goes (default: bench/results.json; --smoke: none unless given)
#
# Kernel time: each .kern program takes `-- REPS [SIZE]` and launches its kernel REPS times;
# `kern run --time-kernels` prints the wall time of each launch's run on the workers (a monotonic
# clock around the blocks, so compilation, set-up, copies and host code are not in it), and the
# figure of one run is the median over its launches. The references time their computation
# themselves (std::chrono, median of several repetitions) and print `median_ms X`. A round
# measures every configuration in three slices, about forty seconds apart (the slices of a round
# interleave the references and kern's configurations), and its figure of a configuration is the
# median of the three runs' figures: a host that slows down for a second or two (other tenants of
# a virtual machine) then moves one slice of a round, not the round. Each figure is the median
# over rounds, and its spread (max - min) / median over rounds is printed: a spread over 30%, or
# a figure that is not a positive time, fails the run (not in --smoke).
set -euo pipefail
export LC_ALL=C

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

smoke=0
rounds=3
nslices=3
kern=""
out=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --smoke) smoke=1; rounds=1; nslices=1 ;;
        --rounds) rounds="$2"; shift ;;
        --slices) nslices="$2"; shift ;;
        --kern) kern="$2"; shift ;;
        --out) out="$2"; shift ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
for n in "$rounds" "$nslices"; do
    if ! [[ $n =~ ^[1-9][0-9]*$ ]]; then
        echo "run.sh: --rounds and --slices take a positive whole number, not '$n'" >&2
        exit 2
    fi
done
if [[ -z "$kern" ]]; then
    for k in build/kern; do
        if [[ -x "$k" ]]; then kern="$k"; break; fi
    done
fi
if [[ -z "$kern" || ! -x "$kern" ]]; then
    echo "run.sh: no kern binary (build one, or pass --kern PATH)" >&2
    exit 2
fi
if [[ -z "$out" && $smoke -eq 0 ]]; then out="bench/results.json"; fi

# The references are built next to the kern binary.
refdir="$(dirname "$kern")/bench"
mkdir -p "$refdir"
cxx="${CXX:-g++}"
for i in 1 2 3 4 5 6 7 8 9 10; do
    "$cxx" -O2 -march=native -std=c++20 -o "$refdir/w$i" "bench/ref/w$i.cpp"
done

# Profile mode (every counter on) is `kern run --stats` once the flag exists; checked mode is
# `kern run --checked`.
# (The help is read whole first: grep -q leaving a pipe early would fail it under pipefail.)
help_text="$("$kern" run --help 2>&1 || true)"
has_stats=0
if grep -q -- '--stats' <<<"$help_text"; then has_stats=1; fi
has_checked=0
if grep -q -- '--checked' <<<"$help_text"; then has_checked=1; fi
if ! grep -q -- '--time-kernels' <<<"$help_text"; then
    echo "run.sh: $kern has no --time-kernels: build a newer kern" >&2
    exit 2
fi

# name | .kern file | reference | full size | smoke size | low reps | high reps | ref reps | PoCL ms (- for none)
# The high reps (launches of one kern run) and ref reps (repetitions of one reference run) make
# the three slices of a round (see the top) span about 0.3 s of kernel time together in fast mode.
workloads=(
    "W1 vecadd|bench/w1_vecadd.kern|w1|4194304|4096|1|67|51|2.7"
    "W2 reduction|bench/w2_reduction.kern|w2|4194304|4096|1|27|35|19.7"
    "W3 matmul 512|bench/w3_matmul.kern|w3|512|64|1|5|3|61"
    "W4 transpose 2048|bench/w4_transpose.kern|w4|2048|64|1|15|5|10.9"
    "W5 histogram|bench/w5_histogram.kern|w5|4194304|4096|1|41|67|29.7"
    "W6 divergence|bench/w6_divergence.kern|w6|4194304|4096|1|3|3|-"
    "W7 julia struct 512|bench/w7_julia.kern|w7|512|64|1|41|7|-"
    "W7 julia floats 512|bench/w7_julia_floats.kern|w7|512|64|1|41|7|-"
    "W8 wavefront 2048|bench/w8_wavefront.kern|w8|2048|64|1|1020|1020|-"
    "W9 bitonic 2^20|bench/w9_bitonic.kern|w9|1048576|1024|1|420|420|-"
    "W10 stencil 2048|bench/w10_stencil.kern|w10|2048|64|1|35|51|-"
)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Wall time of a command in ms; its output goes to $tmp/last. Fails the benchmark unless it printed PASS.
timed() {
    local t0 t1 rc=0
    t0=$EPOCHREALTIME
    "$@" >"$tmp/last" 2>&1 || rc=$?
    t1=$EPOCHREALTIME
    if [[ $rc -ne 0 ]] || ! grep -q 'PASS' "$tmp/last"; then
        echo "FAILED (exit $rc): $*" >&2
        tail -5 "$tmp/last" >&2
        echo "$*" >>"$tmp/failed"  # a file: timed runs in a command substitution's subshell
        echo "nan"
        return
    fi
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
}

median() {
    printf '%s\n' "$@" | grep -v nan | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Per-launch kernel time of one kern configuration: the median of the launches' wall times
# that --time-kernels prints (`kern: launch N NAME: X ms`), over the `hi` launches of one run.
kern_launch_ms() {
    local file="$1" size="$2" hi="$4"
    shift 4
    local t
    t=$(timed "$kern" run --time-kernels "$file" "$@" -- "$hi" "$size")
    if [[ $t == nan ]]; then
        echo nan
        return
    fi
    # shellcheck disable=SC2046
    median $(awk '/^kern: launch [0-9]+ .*: [0-9.]+ ms$/ { print $(NF - 1) }' "$tmp/last")
}

# (max - min) / median of a figure's samples over rounds, or 0 with fewer than two.
spread() {
    printf '%s\n' "$@" | grep -v nan | sort -g |
        awk '{ v[NR] = $1 } END { if (NR < 2) { print 0; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; if (m <= 0) print 99; else printf "%.3f\n", (v[NR] - v[1]) / m }'
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

fmt() {
    awk -v a="$1" 'BEGIN { if (a == "nan" || a == "n/a") print "n/a"; else if (a + 0 < 10) printf "%.2f\n", a; else printf "%.1f\n", a }'
}

configs=("fast 1" "fast 2")
if [[ $has_stats -eq 1 ]]; then configs+=("profile 1" "profile 2"); fi
if [[ $has_checked -eq 1 ]]; then configs+=("checked 1" "checked 2"); fi

declare -A samples
for ((round = 1; round <= rounds; ++round)); do
    echo "round $round of $rounds" >&2
    declare -A slices=()
    for ((slice = 1; slice <= nslices; ++slice)); do
        for w in "${workloads[@]}"; do
            IFS='|' read -r name file ref size small lo hi rreps pocl <<<"$w"
            if [[ $smoke -eq 1 ]]; then size=$small; hi=$((lo + 1)); rreps=1; fi
            # Interleaved: the reference, then every kern configuration, in the same slice.
            if [[ -n "$(timed "$refdir/$ref" "$rreps" "$size")" ]]; then
                ms=$(awk '/^median_ms/ { print $2 }' "$tmp/last")
                slices["$name|native"]+="${ms:-nan} "
            fi
            for c in "${configs[@]}"; do
                read -r mode workers <<<"$c"
                args=(--workers "$workers")
                if [[ $mode == profile ]]; then args+=(--stats); fi
                if [[ $mode == checked ]]; then args+=(--checked); fi
                ms=$(kern_launch_ms "$file" "$size" "$lo" "$hi" "${args[@]}")
                slices["$name|$mode $workers"]+="$ms "
            done
        done
    done
    for key in "${!slices[@]}"; do
        # shellcheck disable=SC2086
        samples["$key"]+="$(median ${slices[$key]}) "
    done
    unset slices
done

startup="nan"
if [[ $smoke -eq 0 ]]; then
    st=()
    for i in 1 2 3 4 5; do st+=("$(timed "$kern" run samples/vecadd.kern)"); done
    startup=$(median "${st[@]}")
fi

failures=0
if [[ -f "$tmp/failed" ]]; then failures=$(wc -l <"$tmp/failed"); fi
# A measurement that cannot be one: a time that is not positive, or rounds that disagree by
# more than 30% of their median.
unsound=()
for key in "${!samples[@]}"; do
    # shellcheck disable=SC2086
    m=$(median ${samples[$key]})
    # shellcheck disable=SC2086
    s=$(spread ${samples[$key]})
    if [[ $m != nan ]] && awk -v m="$m" 'BEGIN { exit !(m <= 0) }'; then
        unsound+=("$key: median $m ms is not a positive time")
    fi
    if [[ $smoke -eq 0 ]] && awk -v s="$s" 'BEGIN { exit !(s > 0.30) }'; then
        unsound+=("$key: spread $(awk -v s="$s" 'BEGIN { printf "%.0f%%", s * 100 }') over rounds (samples: ${samples[$key]})")
    fi
done

# The table and the JSON.
header="| workload | native -O2 ms | kern fast 1w ms | kern fast 2w ms ± spread | fast 2w / native | 2w speed-up | kern profile 2w ms | profile 2w / native | kern checked 2w ms | checked 2w / native | PoCL 2t ms | fast 2w beats PoCL |"
echo
echo "$header"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
json_rows=()
for w in "${workloads[@]}"; do
    IFS='|' read -r name file ref size small lo hi rreps pocl <<<"$w"
    # shellcheck disable=SC2086
    nat=$(median ${samples["$name|native"]})
    # shellcheck disable=SC2086
    f1=$(median ${samples["$name|fast 1"]})
    # shellcheck disable=SC2086
    f2=$(median ${samples["$name|fast 2"]})
    p1="nan"
    p2="nan"
    if [[ $has_stats -eq 1 ]]; then
        # shellcheck disable=SC2086
        p1=$(median ${samples["$name|profile 1"]})
        # shellcheck disable=SC2086
        p2=$(median ${samples["$name|profile 2"]})
    fi
    c1="nan"
    c2="nan"
    if [[ $has_checked -eq 1 ]]; then
        # shellcheck disable=SC2086
        c1=$(median ${samples["$name|checked 1"]})
        # shellcheck disable=SC2086
        c2=$(median ${samples["$name|checked 2"]})
    fi
    beats="n/a"
    if [[ $pocl != "-" && $f2 != "nan" ]]; then
        beats=$(awk -v a="$f2" -v b="$pocl" 'BEGIN { print (a < b) ? "yes" : "no" }')
    fi
    [[ $smoke -eq 1 ]] && beats="n/a (smoke)"
    # shellcheck disable=SC2086
    sp=$(spread ${samples["$name|fast 2"]})
    echo "| $name | $(fmt "$nat") | $(fmt "$f1") | $(fmt "$f2") ±$(awk -v s="$sp" 'BEGIN { printf "%.0f%%", s * 100 }') | $(ratio "$f2" "$nat") | $(ratio "$f1" "$f2") | $(fmt "$p2") | $(ratio "$p2" "$nat") | $(fmt "$c2") | $(ratio "$c2" "$nat") | ${pocl/-/n/a} | $beats |"
    jnum() { if [[ $1 == nan || $1 == n/a || $1 == - ]]; then echo null; else echo "$1"; fi; }
    json_rows+=("    {\"workload\": \"$name\", \"size\": $size, \"native_o2_ms\": $(jnum "$nat"), \"fast_1w_ms\": $(jnum "$f1"), \"fast_2w_ms\": $(jnum "$f2"), \"profile_1w_ms\": $(jnum "$p1"), \"profile_2w_ms\": $(jnum "$p2"), \"checked_1w_ms\": $(jnum "$c1"), \"checked_2w_ms\": $(jnum "$c2"), \"checked_2w_over_native\": $(jnum "$(ratio "$c2" "$nat")"), \"fast_2w_over_native\": $(jnum "$(ratio "$f2" "$nat")"), \"profile_2w_over_native\": $(jnum "$(ratio "$p2" "$nat")"), \"speedup_2w_over_1w\": $(jnum "$(ratio "$f1" "$f2")"), \"pocl_2t_ms\": $(jnum "$pocl"), \"launches_per_slice\": $hi, \"spread_native\": $(spread ${samples["$name|native"]}), \"spread_fast_2w\": $(spread ${samples["$name|fast 2"]}), \"spread_profile_2w\": $(spread ${samples["$name|profile 2"]:-}), \"spread_checked_2w\": $(spread ${samples["$name|checked 2"]:-})}")
done
echo
if [[ $has_stats -eq 0 ]]; then echo "profile mode: n/a (this kern has no --stats flag)"; fi
if [[ $smoke -eq 1 ]]; then echo "smoke run: tiny sizes, one round; the figures mean nothing, only that every program ran and passed"; fi
if [[ $smoke -eq 0 ]]; then echo "start-up, kern run samples/vecadd.kern end to end (median of 5): $(fmt "$startup") ms (target < 300 ms)"; fi

if [[ -n "$out" ]]; then
    {
        echo "{"
        echo "  \"machine\": {\"nproc\": $(nproc), \"cpu\": \"$(lscpu | awk -F: '/Model name/ { gsub(/^ +/, "", $2); print $2; exit }')\"},"
        echo "  \"kern\": \"$kern\", \"smoke\": $([[ $smoke -eq 1 ]] && echo true || echo false), \"rounds\": $rounds, \"slices\": $nslices,"
        echo "  \"profile_mode\": $([[ $has_stats -eq 1 ]] && echo true || echo false),"
        echo "  \"checked_mode\": $([[ $has_checked -eq 1 ]] && echo true || echo false),"
        echo "  \"startup_vecadd_ms\": $([[ $startup == nan ]] && echo null || echo "$startup"),"
        echo "  \"failures\": $failures,"
        echo "  \"workloads\": ["
        for ((i = 0; i < ${#json_rows[@]}; ++i)); do
            sep=","
            [[ $i -eq $((${#json_rows[@]} - 1)) ]] && sep=""
            echo "${json_rows[$i]}$sep"
        done
        echo "  ]"
        echo "}"
    } >"$out"
    echo "wrote $out"
fi

if [[ ${#unsound[@]} -ne 0 ]]; then
    printf 'run.sh: unsound figure: %s\n' "${unsound[@]}" >&2
    failures=$((failures + ${#unsound[@]}))
fi
if [[ $failures -ne 0 ]]; then
    echo "run.sh: $failures run(s) failed" >&2
    exit 1
fi
