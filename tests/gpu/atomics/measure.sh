#!/usr/bin/env bash
# Measures the atomic ground truth on this machine's GPU (not part of ctest):
#   tests/gpu/atomics/measure.sh [OUTDIR]      (default: $OUT, else ./atomics-out)
# atomic_rules under Nsight Compute (requests, sectors, wavefronts of each pattern; rules.csv),
# its SASS (rules.sass), and atomic_rates' cudaEvent timings (rates.txt).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out=${1:-${OUT:-atomics-out}}
mkdir -p "$out"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)}
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
work=$(mktemp -d /tmp/kern-atomics.XXXXXX)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  "$NVCC" --version | tail -2; "$NCU" --version | tail -1; } >"$out/versions.txt" 2>&1
for p in atomic_rules atomic_rates; do
  "$NVCC" -O3 -arch=sm_90 -lineinfo -o "$work/$p" "$here/$p.cu" 2>>"$out/build.log" || echo "nvcc failed: $p"
  "$NVCC" -O3 -arch=sm_90 -cubin -o "$work/$p.cubin" "$here/$p.cu" 2>>"$out/build.log" &&
    "$CUOBJDUMP" -sass "$work/$p.cubin" >"$out/$p.sass" 2>&1
done
"$work/atomic_rates" >"$out/rates.txt" 2>&1
"$work/atomic_rates" >"$out/rates2.txt" 2>&1
m=smsp__sass_inst_executed_op_global_atom.sum,smsp__sass_inst_executed_op_global_red.sum
m+=,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
m+=,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
m+=,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
m+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__inst_executed.sum
m2=lts__t_requests_op_atom.sum,lts__t_sectors_op_atom.sum,lts__t_requests_op_red.sum,lts__t_sectors_op_red.sum
"$NCU" --csv --metrics "$m,$m2" "$work/atomic_rules" >"$out/rules.csv" 2>"$out/rules.err"
rc=$?
if [ $rc -ne 0 ]; then
  echo "ncu with L2 metrics failed ($rc), again without" >>"$out/rules.err"
  "$NCU" --csv --metrics "$m" "$work/atomic_rules" >"$out/rules.csv" 2>>"$out/rules.err"
fi
"$work/atomic_rules" >"$out/rules.stdout" 2>&1
echo "done: $(wc -l <"$out/rules.csv") lines of ncu csv"
