#!/usr/bin/env bash
# Measures what each launch executed, SASS opcode by opcode (not part of ctest): builds SRC
# (default tests/gpu/realcode/realcode.cu) with nvcc -O3 -arch=sm_90 as measure.sh does and runs
# it under Nsight Compute with sass__inst_executed_per_opcode (warp-level instructions executed
# per opcode) and smsp__inst_executed.sum. Writes OUTDIR/opcodes-NAME.csv (ncu's CSV, one row
# per launch, the opcodes as "OPCODE: count" instances). compare.py --classes sets kern's
# instruction classes beside them (docs/counters.md, "Instruction classes").
set -u
cd "$(dirname "$0")/../../.."
outdir=${1:-${OUT:-realcode-out}}
mkdir -p "$outdir"
NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
command -v "$NCU" >/dev/null || NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
src=${SRC:-tests/gpu/realcode/realcode.cu}
name=$(basename "$src" .cu)
bin=/tmp/kern-op-$name
"$NVCC" -x cu -O3 -arch=sm_90 -lineinfo -o $bin $src || { echo "nvcc failed"; exit 1; }
"$NCU" --csv --print-metric-instances details \
  --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum $bin \
  > "$outdir/opcodes-$name.csv" 2> "$outdir/opcodes-$name.err"
echo "ncu ($name): exit $?"
