#!/usr/bin/env bash
# Measures the counter test programs on a real GPU with Nsight Compute (not part of ctest):
# compiles tests/gpu/patterns.cu and tests/counters/*.kern with nvcc and writes ncu's metrics as
# CSV to OUTDIR (default: $OUT, else ./ncu-out). compare.py then sets them beside kern's h100
# counters (docs/validation.md).
set -u
cd "$(dirname "$0")/../.."
outdir=${1:-${OUT:-ncu-out}}
mkdir -p "$outdir" /tmp/kern-gpu
NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
command -v "$NCU" >/dev/null || NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
metrics=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,smsp__sass_inst_executed_op_branch.sum,smsp__sass_branch_targets_threads_divergent.sum
metrics+=,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$NVCC" --version | tail -2
  "$NCU" --version | tail -1
} > "$outdir/versions.txt" 2>&1
# -O3 as a user would build; -lineinfo so that ncu's source view maps SASS back to the lines.
progs="tests/gpu/patterns.cu tests/counters/shared_banks.kern tests/counters/global_coalescing.kern tests/counters/divergence.kern"
for src in $progs; do
  name=$(basename "${src%.*}")
  "$NVCC" -x cu -O3 -arch=sm_90 -lineinfo -o /tmp/kern-gpu/$name "$src" 2>>"$outdir/build.log" || { echo "nvcc failed: $src"; continue; }
  "$NVCC" -x cu -O3 -arch=sm_90 -cubin -o /tmp/kern-gpu/$name.cubin "$src" 2>>"$outdir/build.log" &&
    cuobjdump -sass /tmp/kern-gpu/$name.cubin > "$outdir/$name.sass" 2>&1
  "$NCU" --csv --metrics "$metrics" /tmp/kern-gpu/$name > "$outdir/$name.csv" 2> "$outdir/$name.err"
  echo "$name: ncu exit $?"
done
