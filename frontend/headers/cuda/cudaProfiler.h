// <cudaProfiler.h> as kern provides it: the driver API's profiler range, cuProfilerStart and
// cuProfilerStop, which kern's <cuda.h> defines (over cudaProfilerStart/cudaProfilerStop).
#pragma once
#include <cuda.h>
