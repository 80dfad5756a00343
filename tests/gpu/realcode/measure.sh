#!/usr/bin/env bash
# Measures tests/gpu/realcode/realcode.cu (or the program SRC names, as for tests/gpu/branches) on a real GPU (not part of ctest): builds it with nvcc as
# a user would (-O3 -arch=sm_90 -lineinfo), runs it plainly, and once under Nsight Compute with
# every metric that kern's report names (the `ncu` section of each launch) and the launch's
# registers and theoretical occupancy. Writes to OUTDIR (default $OUT, else ./realcode-out):
# stdout.txt, ncu.csv, resource-usage.txt, realcode.sass, versions.txt.
# compare.py then sets them beside kern's counters (docs/validation.md, "Real code").
set -u
cd "$(dirname "$0")/../../.."
outdir=${1:-${OUT:-realcode-out}}
mkdir -p "$outdir"
NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
command -v "$NCU" >/dev/null || NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
src=${SRC:-tests/gpu/realcode/realcode.cu}
name=$(basename "$src" .cu)
bin=/tmp/kern-$name
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$NVCC" --version | tail -2
  "$NCU" --version | tail -1
} > "$outdir/versions.txt" 2>&1
"$NVCC" -x cu -O3 -arch=sm_90 -lineinfo --resource-usage -o $bin $src > "$outdir/resource-usage.txt" 2>&1 || { echo "nvcc failed"; exit 1; }
"$NVCC" -x cu -O3 -arch=sm_90 -cubin -o $bin.cubin $src && "$CUOBJDUMP" -sass $bin.cubin > "$outdir/$name.sass" 2>&1
$bin > "$outdir/stdout.txt" 2>&1
echo "plain run: exit $?"
# kern's metric names (python3 reads them from the report of a kern run when KERN is set;
# otherwise the list below, which is what kern's report holds).
metrics="gpu__time_duration.sum smsp__inst_executed.sum smsp__thread_inst_executed.sum
smsp__thread_inst_executed_per_inst_executed.ratio
smsp__sass_inst_executed_op_global_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum smsp__sass_data_bytes_mem_global_op_ld.sum
l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct
smsp__sass_inst_executed_op_global_st.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum smsp__sass_data_bytes_mem_global_op_st.sum
l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct
smsp__sass_inst_executed_op_global_atom.sum l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum smsp__sass_inst_executed_op_global_red.sum
l1tex__t_requests_pipe_lsu_mem_global_op_red.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
smsp__sass_inst_executed_op_shared_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum smsp__sass_inst_executed_op_shared_st.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
smsp__sass_inst_executed_op_shared_atom.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum smsp__sass_inst_executed_op_branch.sum
smsp__sass_branch_targets.sum smsp__sass_branch_targets_threads_divergent.sum
smsp__sass_branch_targets_threads_uniform.sum smsp__sass_average_branch_targets_threads_uniform.pct
smsp__inst_executed_op_barrier.sum smsp__sass_inst_executed_op_ld.sum smsp__sass_inst_executed_op_st.sum
launch__registers_per_thread sm__maximum_warps_per_active_cycle_pct launch__occupancy_limit_registers
smsp__sass_thread_inst_executed_op_fp32_pred_on.sum smsp__sass_thread_inst_executed_op_integer_pred_on.sum
sm__sass_inst_executed_op_shared_ld.sum"
# Keep the names this ncu knows (an unknown one fails the whole run).
"$NCU" --query-metrics --chip gh100 > "$outdir/query.txt" 2>&1
known=""
for m in $metrics; do
  base=${m%.*}
  if grep -q "^$base\b" "$outdir/query.txt" || grep -q "^${m%%__*}__" /dev/null; then
    known+="${known:+,}$m"
  else
    echo "not measured (unknown to this ncu): $m" >> "$outdir/unknown-metrics.txt"
  fi
done
"$NCU" --csv --metrics "$known" $bin > "$outdir/ncu.csv" 2> "$outdir/ncu.err"
echo "ncu: exit $?"
# Attributes (launch__*, sm__maximum...) are not in --query-metrics: a second pass for them.
"$NCU" --csv --section LaunchStats --section Occupancy $bin > "$outdir/ncu-sections.csv" 2>> "$outdir/ncu.err"
echo "ncu sections: exit $?"
python3 tests/gpu/realcode/collect.py "$outdir"
