#!/usr/bin/env bash
# Measures the timing programs of tests/gpu/timing/ on this machine's GPU (not part of ctest):
# the ground truth for kern's timing model.
#
#   tests/gpu/timing/measure.sh [OUTDIR]     (default: $OUT, else ./timing-out)
#
# 1. Records the GPU, its clocks (nvidia-smi -q -d CLOCK before and after, and the SM clock
#    sampled every 500 ms throughout), the driver, nvcc and ncu versions, and device_info.
# 2. Builds every program with nvcc -O3 -arch=sm_90 -lineinfo (ptxas's resource report in
#    build/, the SASS in sass/).
# 3. Runs each program plainly, twice: every launch timed with cudaEvents, the mean of 20 launches
#    after two warm-ups ("name: X.XXX us"), caches warm from the launch before.
# 4. Runs each program under Nsight Compute in profile mode (argument 1: one launch per timing,
#    no warm-up; only the timed launches lie inside cudaProfilerStart/Stop, and ncu profiles from
#    there only): the speed-of-light section, launch statistics, occupancy, and the metrics below,
#    with their speed-of-light breakdowns. ncu flushes the caches before each launch (its default
#    --cache-control all). Clocks: --clock-control none, so that the GPU runs at the clocks it
#    runs the plain timings at (ncu's default would lock them to base); the SM clock ncu saw is
#    the metric sm__cycles_elapsed.avg.per_second.
#
# Output: env.txt, events.txt (every program's output), ncu.csv (every profiled launch; column
# Program added), clocks.csv, measure.log, and timing-raw.tar.gz (per-program outputs, ncu's
# stderr, ptxas reports, SASS). summarize.py turns them into h200-results.md.
#
# One failing program does not stop the rest; each run has a time limit; no new ncu run starts
# after DEADLINE seconds (default 520) from the start; the validation programs go first.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out=${1:-${OUT:-timing-out}}
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work=$(mktemp -d /tmp/kern-timing.XXXXXX)
mkdir -p "$work"/{bin,build,sass,events,ncu}
start=$(date +%s)
deadline=${DEADLINE:-520}
log="$out/measure.log"
: >"$log"
say() { echo "[$(($(date +%s) - start))s] $*" | tee -a "$log"; }
elapsed() { echo $(($(date +%s) - start)); }

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)}
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}

pack() { tar -czf "$out/timing-raw.tar.gz" -C "$work" build sass events ncu 2>/dev/null; }

# --- 1. environment ----------------------------------------------------------------------------
{
  echo "== date"; date -u
  echo "== nvidia-smi"; nvidia-smi
  echo "== nvidia-smi --query-gpu"
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,temperature.gpu --format=csv
  echo "== nvidia-smi -q -d CLOCK (before)"; nvidia-smi -q -d CLOCK
  echo "== nvcc"; "$NVCC" --version
  echo "== ncu ($NCU)"; "$NCU" --version
  echo "== uname"; uname -a
} >"$out/env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
  --format=csv -lms 500 >"$out/clocks.csv" 2>/dev/null &
smi_pid=$!

# --- 2. build ----------------------------------------------------------------------------------
progs=()
for src in "$here"/*.cu; do
  name=$(basename "$src" .cu)
  progs+=("$name")
done
build_one() {
  local name=$1
  "$NVCC" -O3 -arch=sm_90 -lineinfo -Xptxas -v -o "$work/bin/$name" "$here/$name.cu" \
    >"$work/build/$name.txt" 2>&1 || { echo "nvcc failed" >>"$work/build/$name.txt"; return 1; }
  "$CUOBJDUMP" -sass "$work/bin/$name" >"$work/sass/$name.sass" 2>&1
}
export -f build_one
export NVCC CUOBJDUMP here work
printf '%s\n' "${progs[@]}" | xargs -P "$(nproc)" -I{} bash -c 'build_one {}'
for name in "${progs[@]}"; do
  [[ -x $work/bin/$name ]] || say "build failed: $name (see build/$name.txt)"
done
say "built $(ls "$work/bin" | wc -l) of ${#progs[@]} programs"
{ echo "== device_info"; timeout 30 "$work/bin/device_info"; } >>"$out/env.txt" 2>&1

# --- 3. plain runs: cudaEvent timings (each program twice, to show the spread) -------------------
: >"$out/events.txt"
for run in 1 2; do
  for name in "${progs[@]}"; do
    [[ $name == device_info || ! -x $work/bin/$name ]] && continue
    t0=$(date +%s%N)
    timeout 120 "$work/bin/$name" >"$work/events/$name.run$run.txt" 2>&1
    rc=$?
    { echo "== $name (run $run, exit $rc)"; cat "$work/events/$name.run$run.txt"; } >>"$out/events.txt"
    say "events $name run $run: exit $rc, $((($(date +%s%N) - t0) / 1000000)) ms"
  done
done
{ echo "== nvidia-smi -q -d CLOCK (after the plain runs)"; nvidia-smi -q -d CLOCK; } >>"$out/env.txt" 2>&1
pack

# --- 4. Nsight Compute ---------------------------------------------------------------------------
metrics=(
  gpu__time_duration.sum
  sm__throughput.avg.pct_of_peak_sustained_elapsed
  gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
  dram__throughput.avg.pct_of_peak_sustained_elapsed
  lts__throughput.avg.pct_of_peak_sustained_elapsed
  l1tex__throughput.avg.pct_of_peak_sustained_elapsed
  l1tex__throughput.avg.pct_of_peak_sustained_active
  dram__bytes_read.sum dram__bytes_write.sum
  lts__t_sectors.sum lts__t_sector_hit_rate.pct
  lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum lts__t_sectors_op_atom.sum lts__t_sectors_op_red.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_sector_hit_rate.pct
  l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
  smsp__inst_executed.sum smsp__thread_inst_executed.sum smsp__issue_active.avg.pct_of_peak_sustained_active
  sm__inst_executed_pipe_fma.sum sm__inst_executed_pipe_alu.sum sm__inst_executed_pipe_fp64.sum
  sm__inst_executed_pipe_xu.sum sm__inst_executed_pipe_lsu.sum
  smsp__inst_executed_op_shared_atom.sum smsp__sass_inst_executed_op_shared_atom.sum
  sm__warps_active.avg.pct_of_peak_sustained_active smsp__warps_active.avg.pct_of_peak_sustained_active
  smsp__warps_launched.sum
  sm__cycles_elapsed.avg.per_second dram__cycles_elapsed.avg.per_second lts__cycles_elapsed.avg.per_second
  gpc__cycles_elapsed.max sm__cycles_active.avg
  smsp__average_warp_latency_issue_stalled_barrier.ratio
  smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
  smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
  smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
  smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
  smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
  smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
  smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
  smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
  smsp__average_warps_issue_stalled_drain_per_issue_active.ratio
  smsp__average_warps_issue_stalled_selected_per_issue_active.ratio
  smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio
)
breakdowns=(breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed
  breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed)

# Keep the metrics this ncu knows on this GPU (an unknown one fails the whole run).
"$NCU" --query-metrics >"$work/ncu/query-metrics.txt" 2>&1
known=()
dropped=()
listed=0
grep -q "^dram__bytes_read " "$work/ncu/query-metrics.txt" 2>/dev/null && listed=1
for m in "${metrics[@]}"; do
  if ((listed)) && ! grep -q "^${m%%.*} " "$work/ncu/query-metrics.txt"; then
    dropped+=("$m")
  else
    known+=("$m")
  fi
done
say "ncu metrics: ${#known[@]} kept, dropped as unknown: ${dropped[*]:-none}"
joined() { local IFS=,; echo "$*"; }
sections=(--section SpeedOfLight --section LaunchStats --section Occupancy)
common=(--csv --page details --print-units base --clock-control none --profile-from-start off)
config() {
  case $1 in
  0) echo "${common[*]} --print-metric-name name ${sections[*]} --metrics $(joined "${known[@]}" "${breakdowns[@]}")" ;;
  1) echo "${common[*]} ${sections[*]} --metrics $(joined "${known[@]}" "${breakdowns[@]}")" ;;
  2) echo "${common[*]} ${sections[*]} --metrics $(joined "${known[@]}")" ;;
  3) echo "${common[*]} --section SpeedOfLight --metrics gpu__time_duration.sum" ;;
  esac
}
# Preflight: the first configuration that profiles cal_launch's launches. A metric that ncu's
# error names is dropped and the same configuration tried again.
chosen=""
i=0
tries=0
while ((i < 4 && tries < 12)); do
  tries=$((tries + 1))
  read -r -a opts <<<"$(config $i)"
  timeout 120 "$NCU" "${opts[@]}" "$work/bin/cal_launch" 1 >"$work/ncu/preflight$tries.txt" 2>&1
  rc=$?
  if [[ $rc -eq 0 ]] && grep -q '"gpu__time_duration.sum"\|"Duration"' "$work/ncu/preflight$tries.txt"; then
    chosen=$(config $i)
    say "ncu configuration $i works"
    break
  fi
  errors=$(grep 'ERROR' "$work/ncu/preflight$tries.txt" | head -5 | tr '\n' ' ')
  say "ncu configuration $i failed (exit $rc): $errors"
  kept=()
  for m in "${known[@]}"; do
    if [[ $errors == *"${m%%.*}"* ]]; then dropped+=("$m"); else kept+=("$m"); fi
  done
  if ((${#kept[@]} < ${#known[@]})); then
    known=("${kept[@]}")
    say "dropped metrics named in the error; trying configuration $i again"
  else
    i=$((i + 1))
  fi
done
echo "$chosen" >"$work/ncu/options.txt"
if [[ -n $chosen ]]; then
  read -r -a opts <<<"$chosen"
  # Validation programs first: their bound is what the model is judged on.
  for name in $(printf '%s\n' "${progs[@]}" | grep '^val_') $(printf '%s\n' "${progs[@]}" | grep -v '^val_'); do
    [[ $name == device_info || ! -x $work/bin/$name ]] && continue
    left=$((deadline - $(elapsed)))
    if ((left < 20)); then
      say "ncu $name: skipped (past the deadline)"
      continue
    fi
    limit=$((left < 180 ? left : 180))
    t0=$(date +%s)
    timeout "$limit" "$NCU" "${opts[@]}" "$work/bin/$name" 1 >"$work/ncu/$name.csv" 2>"$work/ncu/$name.err"
    rc=$?
    say "ncu $name: exit $rc, $(($(date +%s) - t0))s, $(grep -c '"gpu__time_duration.sum"\|"Duration"' "$work/ncu/$name.csv") launches"
    pack
  done
fi

# --- 5. combined outputs -------------------------------------------------------------------------
{ echo "== nvidia-smi -q -d CLOCK (after ncu)"; nvidia-smi -q -d CLOCK; } >>"$out/env.txt" 2>&1
kill "$smi_pid" 2>/dev/null
python3 - "$work/ncu" "$out/ncu.csv" <<'EOF'
import csv, glob, os, sys
src, dst = sys.argv[1], sys.argv[2]
rows, header = [], None
for path in sorted(glob.glob(os.path.join(src, "*.csv"))):
    prog = os.path.basename(path)[:-4]
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    if not lines:
        continue
    r = list(csv.reader(lines))
    if header is None:
        header = ["Program"] + r[0]
    rows += [[prog] + x for x in r[1:]]
with open(dst, "w", newline="") as f:
    w = csv.writer(f)
    if header:
        w.writerow(header)
    w.writerows(rows)
print(f"ncu.csv: {len(rows)} rows")
EOF
pack
say "done"
