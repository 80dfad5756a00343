// Kernels written the way real CUDA programs write them, each launched on moderate data, for
// comparing every counter kern has with Nsight Compute's (tests/gpu/realcode/measure.sh and
// compare.py; docs/validation.md "Real code"). Each kernel's result is checked on the host and
// summed into a line the GPU build and kern must print alike.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));               \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#define TILE 16
#define RADIUS 4
#define SCAN_N 512

// ---- dense linear algebra -------------------------------------------------------------------

__global__ void matmulNaive(const float *a, const float *b, float *c, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; ++k)
            sum += a[row * n + k] * b[k * n + col];
        c[row * n + col] = sum;
    }
}

__global__ void matmulTiled(const float *a, const float *b, float *c, int n) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        as[ty][tx] = a[row * n + t * TILE + tx];
        bs[ty][tx] = b[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

__global__ void transposeNaive(float *out, const float *in, int n) {
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    out[x * n + y] = in[y * n + x];
}

__global__ void transposePadded(float *out, const float *in, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void saxpyGridStride(int n, float alpha, const float *x, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = alpha * x[i] + y[i];
}

// ---- convolution and stencils ---------------------------------------------------------------

__constant__ float c_kernel[2 * RADIUS + 1];

__global__ void convolutionRows(float *out, const float *in, int w, int h) {
    __shared__ float s[TILE][TILE + 2 * RADIUS];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    s[threadIdx.y][threadIdx.x + RADIUS] = in[y * w + x];
    if (threadIdx.x < RADIUS) {
        s[threadIdx.y][threadIdx.x] = x >= RADIUS ? in[y * w + x - RADIUS] : 0.0f;
        s[threadIdx.y][threadIdx.x + TILE + RADIUS] =
            x + TILE < w ? in[y * w + x + TILE] : 0.0f;
    }
    __syncthreads();
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k)
        sum += c_kernel[RADIUS + k] * s[threadIdx.y][threadIdx.x + RADIUS + k];
    out[y * w + x] = sum;
}

__global__ void convolutionColumns(float *out, const float *in, int w, int h) {
    __shared__ float s[TILE + 2 * RADIUS][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    s[threadIdx.y + RADIUS][threadIdx.x] = in[y * w + x];
    if (threadIdx.y < RADIUS) {
        s[threadIdx.y][threadIdx.x] = y >= RADIUS ? in[(y - RADIUS) * w + x] : 0.0f;
        s[threadIdx.y + TILE + RADIUS][threadIdx.x] = y + TILE < h ? in[(y + TILE) * w + x] : 0.0f;
    }
    __syncthreads();
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k)
        sum += c_kernel[RADIUS + k] * s[threadIdx.y + RADIUS + k][threadIdx.x];
    out[y * w + x] = sum;
}

__global__ void stencil5(const float *in, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
        int i = y * w + x;
        out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
    }
}

// ---- reductions and scans -------------------------------------------------------------------

__device__ void warpReduce(volatile int *s, int tid) {
    s[tid] += s[tid + 32];
    s[tid] += s[tid + 16];
    s[tid] += s[tid + 8];
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}

__global__ void reduceUnrolledTail(const int *in, int *out, int n) {
    __shared__ int s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int v = i < n ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid < 32)
        warpReduce(s, tid);
    if (tid == 0)
        out[blockIdx.x] = s[0];
}

__global__ void reduceShuffle(const int *in, int *out, int n) {
    __shared__ int warpSums[32];
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        warpSums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < blockDim.x / 32 ? warpSums[lane] : 0;
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0)
            atomicAdd(out, sum);
    }
}

__global__ void dotProduct(const float *a, const float *b, float *result, int n) {
    __shared__ float cache[256];
    float temp = 0.0f;
    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x)
        temp += a[i] * b[i];
    cache[threadIdx.x] = temp;
    __syncthreads();
    for (int i = blockDim.x / 2; i != 0; i /= 2) {
        if (threadIdx.x < i)
            cache[threadIdx.x] += cache[threadIdx.x + i];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(result, cache[0]);
}

// Hillis-Steele: double-buffered in shared memory, one block of SCAN_N threads.
__global__ void scanNaive(const int *in, int *out) {
    __shared__ int temp[2 * SCAN_N];
    int t = threadIdx.x, pout = 0, pin = 1;
    temp[t] = t > 0 ? in[t - 1] : 0;
    __syncthreads();
    for (int offset = 1; offset < SCAN_N; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= offset)
            temp[pout * SCAN_N + t] = temp[pin * SCAN_N + t] + temp[pin * SCAN_N + t - offset];
        else
            temp[pout * SCAN_N + t] = temp[pin * SCAN_N + t];
        __syncthreads();
    }
    out[t] = temp[pout * SCAN_N + t];
}

// Blelloch: SCAN_N elements per block of SCAN_N / 2 threads.
__global__ void scanBlelloch(const int *in, int *out) {
    __shared__ int temp[SCAN_N];
    int t = threadIdx.x, offset = 1;
    const int *blockIn = in + blockIdx.x * SCAN_N;
    temp[2 * t] = blockIn[2 * t];
    temp[2 * t + 1] = blockIn[2 * t + 1];
    for (int d = SCAN_N >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (t == 0)
        temp[SCAN_N - 1] = 0;
    for (int d = 1; d < SCAN_N; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            int v = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += v;
        }
    }
    __syncthreads();
    out[blockIdx.x * SCAN_N + 2 * t] = temp[2 * t];
    out[blockIdx.x * SCAN_N + 2 * t + 1] = temp[2 * t + 1];
}

// ---- sorting, histograms, irregular code ----------------------------------------------------

__global__ void bitonicStepGlobal(unsigned int *keys, unsigned int j, unsigned int k) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x, partner = i ^ j;
    if (partner > i) {
        unsigned int a = keys[i], b = keys[partner];
        if ((a > b) == ((i & k) == 0)) {
            keys[i] = b;
            keys[partner] = a;
        }
    }
}

__global__ void bitonicSortShared(unsigned int *keys) {
    __shared__ unsigned int s[512];
    unsigned int t = threadIdx.x;
    unsigned int *block = keys + blockIdx.x * 512;
    s[t] = block[t];
    s[t + 256] = block[t + 256];
    for (unsigned int size = 2; size <= 512; size <<= 1)
        for (unsigned int stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned int pos = 2 * t - (t & (stride - 1));
            bool ascending = ((blockIdx.x * 512 + pos) & size) == 0;
            unsigned int a = s[pos], b = s[pos + stride];
            if ((a > b) == ascending) {
                s[pos] = b;
                s[pos + stride] = a;
            }
        }
    __syncthreads();
    block[t] = s[t];
    block[t + 256] = s[t + 256];
}

__global__ void histogramGlobal(const unsigned char *data, int n, unsigned int *bins) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i]], 1u);
}

__global__ void histogramShared(const unsigned char *data, int n, unsigned int *bins) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void compact(const int *in, int *out, int *count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] % 3 == 0) {
        int slot = atomicAdd(count, 1);
        out[slot] = in[i];
    }
}

__global__ void spmvCsr(int rows, const int *rowStart, const int *cols, const float *vals,
                        const float *x, float *y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int k = rowStart[row]; k < rowStart[row + 1]; ++k)
            sum += vals[k] * x[cols[k]];
        y[row] = sum;
    }
}

__global__ void nbodyForces(const float4 *pos, float3 *acc, int n) {
    __shared__ float4 tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = pos[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int base = 0; base < n; base += blockDim.x) {
        tile[threadIdx.x] = pos[base + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < blockDim.x; ++j) {
            float4 o = tile[j];
            float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
            float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 0.01f);
            float s = o.w * inv * inv * inv;
            a.x += dx * s;
            a.y += dy * s;
            a.z += dz * s;
        }
        __syncthreads();
    }
    acc[i] = a;
}

__global__ void mandelbrot(unsigned char *out, int w, int h, int maxIter) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / h;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < maxIter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    out[y * w + x] = (unsigned char)(it % 256);
}

__global__ void nwDiagonal(int *score, const int *similarity, int n, int penalty, int diagonal,
                           int firstColumn) {
    __shared__ int s[TILE + 1][TILE + 1];
    __shared__ int sim[TILE][TILE];
    int bx = firstColumn + blockIdx.x, by = diagonal - bx, t = threadIdx.x, w = n + 1;
    int x0 = bx * TILE, y0 = by * TILE;
    for (int i = 0; i < TILE; ++i)
        sim[i][t] = similarity[(y0 + i + 1) * w + x0 + t + 1];
    s[0][t + 1] = score[y0 * w + x0 + t + 1];
    s[t + 1][0] = score[(y0 + t + 1) * w + x0];
    if (t == 0)
        s[0][0] = score[y0 * w + x0];
    __syncthreads();
    for (int m = 0; m < 2 * TILE - 1; ++m) {
        int i = t, j = m - t;
        if (j >= 0 && j < TILE)
            s[i + 1][j + 1] = max(s[i][j] + sim[i][j], max(s[i][j + 1], s[i + 1][j]) - penalty);
        __syncthreads();
    }
    for (int i = 0; i < TILE; ++i)
        score[(y0 + i + 1) * w + x0 + t + 1] = s[i + 1][t + 1];
}

__device__ float cndf(float d) {
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
                a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = 0.3989422804f * expf(-0.5f * d * d) *
              (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0 ? 1.0f - c : c;
}

__global__ void blackScholes(float *call, const float *price, const float *strike, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = price[i], x = strike[i], t = 1.0f, r = 0.02f, v = 0.3f;
        float sq = v * sqrtf(t);
        float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / sq, d2 = d1 - sq;
        call[i] = s * cndf(d1) - x * expf(-r * t) * cndf(d2);
    }
}

// ---- the host -------------------------------------------------------------------------------

static unsigned int lcg = 12345u;
static unsigned int next() {
    lcg = lcg * 1664525u + 1013904223u;
    return lcg >> 8;
}

template <typename T> static T *upload(const T *h, size_t count) {
    T *d;
    CHECK(cudaMalloc(&d, count * sizeof(T)));
    CHECK(cudaMemcpy(d, h, count * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static void download(T *h, const T *d, size_t count) {
    CHECK(cudaMemcpy(h, d, count * sizeof(T), cudaMemcpyDeviceToHost));
}

int main() {
    const int n = 256, big = 1 << 18;
    float *ha = (float *)malloc(big * sizeof(float)), *hb = (float *)malloc(big * sizeof(float));
    float *hc = (float *)malloc(big * sizeof(float));
    int *hi = (int *)malloc(big * sizeof(int));
    for (int i = 0; i < big; ++i) {
        ha[i] = (float)(next() % 100) / 50.0f;
        hb[i] = (float)(next() % 100) / 50.0f;
        hi[i] = (int)(next() % 1000);
    }
    float *da = upload(ha, big), *db = upload(hb, big), *dc;
    int *di = upload(hi, big), *dout;
    CHECK(cudaMalloc(&dc, big * sizeof(float)));
    CHECK(cudaMalloc(&dout, big * sizeof(int)));

    dim3 tile(TILE, TILE), grid2(n / TILE, n / TILE);
    matmulNaive<<<grid2, tile>>>(da, db, dc, n);
    download(hc, dc, n * n);
    double mm = 0.0;
    for (int i = 0; i < n * n; ++i)
        mm += hc[i];
    matmulTiled<<<grid2, tile>>>(da, db, dc, n);
    download(hc, dc, n * n);
    double mt = 0.0;
    for (int i = 0; i < n * n; ++i)
        mt += hc[i];
    printf("matmul: naive %.2f tiled %.2f\n", mm, mt);

    const int tn = 512;
    transposeNaive<<<dim3(tn / TILE, tn / TILE), tile>>>(dc, da, tn);
    download(hc, dc, tn * tn);
    int bad = 0;
    for (int y = 0; y < tn; ++y)
        for (int x = 0; x < tn; ++x)
            bad += hc[x * tn + y] != ha[y * tn + x];
    transposePadded<<<dim3(tn / TILE, tn / TILE), tile>>>(dc, da, tn);
    download(hc, dc, tn * tn);
    for (int y = 0; y < tn; ++y)
        for (int x = 0; x < tn; ++x)
            bad += hc[x * tn + y] != ha[y * tn + x];
    printf("transpose: %d wrong\n", bad);

    vectorAdd<<<(big + 255) / 256, 256>>>(da, db, dc, big);
    download(hc, dc, big);
    bad = 0;
    for (int i = 0; i < big; ++i)
        bad += hc[i] != ha[i] + hb[i];
    CHECK(cudaMemcpy(dc, hb, big * sizeof(float), cudaMemcpyHostToDevice));
    saxpyGridStride<<<64, 256>>>(big, 2.0f, da, dc);
    download(hc, dc, big);
    for (int i = 0; i < big; ++i)
        bad += fabsf(hc[i] - (2.0f * ha[i] + hb[i])) > 1e-5f;
    printf("vector add, saxpy: %d wrong\n", bad);

    float hk[2 * RADIUS + 1];
    for (int k = 0; k <= 2 * RADIUS; ++k)
        hk[k] = 1.0f / (2 * RADIUS + 1);
    CHECK(cudaMemcpyToSymbol(c_kernel, hk, sizeof hk));
    convolutionRows<<<dim3(tn / TILE, tn / TILE), tile>>>(dc, da, tn, tn);
    download(hc, dc, tn * tn);
    double cr = 0.0;
    for (int i = 0; i < tn * tn; ++i)
        cr += hc[i];
    convolutionColumns<<<dim3(tn / TILE, tn / TILE), tile>>>(dc, da, tn, tn);
    download(hc, dc, tn * tn);
    double cc = 0.0;
    for (int i = 0; i < tn * tn; ++i)
        cc += hc[i];
    stencil5<<<dim3(tn / 32, tn / 8), dim3(32, 8)>>>(da, dc, tn, tn);
    download(hc, dc, tn * tn);
    double st = 0.0;
    for (int y = 1; y < tn - 1; ++y)
        for (int x = 1; x < tn - 1; ++x)
            st += hc[y * tn + x];
    printf("convolution: rows %.3f columns %.3f stencil %.3f\n", cr, cc, st);

    long long expect = 0;
    for (int i = 0; i < big; ++i)
        expect += hi[i];
    reduceUnrolledTail<<<big / 512, 256>>>(di, dout, big);
    int *partial = (int *)malloc(big / 512 * sizeof(int));
    download(partial, dout, big / 512);
    long long r1 = 0;
    for (int i = 0; i < big / 512; ++i)
        r1 += partial[i];
    CHECK(cudaMemset(dout, 0, sizeof(int)));
    reduceShuffle<<<64, 256>>>(di, dout, big);
    int r2 = 0;
    download(&r2, dout, 1);
    float *dres;
    CHECK(cudaMalloc(&dres, sizeof(float)));
    CHECK(cudaMemset(dres, 0, sizeof(float)));
    dotProduct<<<64, 256>>>(da, db, dres, big);
    float dot = 0.0f;
    download(&dot, dres, 1);
    double dotRef = 0.0;
    for (int i = 0; i < big; ++i)
        dotRef += (double)ha[i] * hb[i];
    printf("reduce: %lld %lld %d (expected %lld), dot %s\n", expect, r1, r2, expect,
           fabs(dot - dotRef) < 1e-3 * dotRef ? "ok" : "wrong");

    scanNaive<<<1, SCAN_N>>>(di, dout);
    int *scan = (int *)malloc(big * sizeof(int));
    download(scan, dout, SCAN_N);
    bad = 0;
    for (int i = 0, run = 0; i < SCAN_N; run += hi[i], ++i)
        bad += scan[i] != run;
    scanBlelloch<<<64, SCAN_N / 2>>>(di, dout);
    download(scan, dout, 64 * SCAN_N);
    for (int b = 0; b < 64; ++b)
        for (int i = 0, run = 0; i < SCAN_N; run += hi[b * SCAN_N + i], ++i)
            bad += scan[b * SCAN_N + i] != run;
    printf("scan: %d wrong\n", bad);

    const unsigned int sn = 1 << 14;
    unsigned int *keys = (unsigned int *)malloc(sn * sizeof(unsigned int));
    for (unsigned int i = 0; i < sn; ++i)
        keys[i] = next();
    unsigned int *dkeys = upload(keys, sn);
    bitonicSortShared<<<sn / 512, 256>>>(dkeys);
    for (unsigned int k = 1024; k <= sn; k <<= 1)
        for (unsigned int j = k >> 1; j > 0; j >>= 1)
            bitonicStepGlobal<<<sn / 256, 256>>>(dkeys, j, k);
    download(keys, dkeys, sn);
    bad = 0;
    for (unsigned int i = 1; i < sn; ++i)
        bad += keys[i - 1] > keys[i];
    printf("bitonic sort: %d out of order\n", bad);

    unsigned char *bytes = (unsigned char *)malloc(big);
    for (int i = 0; i < big; ++i)
        bytes[i] = (unsigned char)(next() % 256);
    unsigned char *dbytes = upload(bytes, big);
    unsigned int *dbins, hbins[256];
    CHECK(cudaMalloc(&dbins, 256 * sizeof(unsigned int)));
    CHECK(cudaMemset(dbins, 0, 256 * sizeof(unsigned int)));
    histogramGlobal<<<64, 256>>>(dbytes, big, dbins);
    histogramShared<<<64, 256>>>(dbytes, big, dbins);
    download(hbins, dbins, 256);
    long long binSum = 0;
    for (int b = 0; b < 256; ++b)
        binSum += hbins[b];
    int *dcount, count = 0;
    CHECK(cudaMalloc(&dcount, sizeof(int)));
    CHECK(cudaMemset(dcount, 0, sizeof(int)));
    compact<<<big / 256, 256>>>(di, dout, dcount, big);
    download(&count, dcount, 1);
    int expectCount = 0;
    for (int i = 0; i < big; ++i)
        expectCount += hi[i] % 3 == 0;
    printf("histogram: %lld counted of %d, compact: %d of %d\n", binSum, 2 * big, count,
           expectCount);

    const int rows = 4096;
    int *rowStart = (int *)malloc((rows + 1) * sizeof(int));
    rowStart[0] = 0;
    for (int r = 0; r < rows; ++r)
        rowStart[r + 1] = rowStart[r] + 1 + (int)(next() % 16);
    int nnz = rowStart[rows];
    int *cols = (int *)malloc(nnz * sizeof(int));
    for (int k = 0; k < nnz; ++k)
        cols[k] = (int)(next() % rows);
    int *drow = upload(rowStart, rows + 1), *dcols = upload(cols, nnz);
    spmvCsr<<<rows / 128, 128>>>(rows, drow, dcols, da, db, dc);
    download(hc, dc, rows);
    double sp = 0.0;
    for (int r = 0; r < rows; ++r)
        sp += hc[r];

    const int bodies = 2048;
    float4 *pos = (float4 *)malloc(bodies * sizeof(float4));
    for (int i = 0; i < bodies; ++i)
        pos[i] = make_float4(ha[i], hb[i], ha[i + bodies], 1.0f);
    float4 *dpos = upload(pos, bodies);
    float3 *dacc, *acc = (float3 *)malloc(bodies * sizeof(float3));
    CHECK(cudaMalloc(&dacc, bodies * sizeof(float3)));
    nbodyForces<<<bodies / 128, 128>>>(dpos, dacc, bodies);
    download(acc, dacc, bodies);
    double ab = 0.0;
    for (int i = 0; i < bodies; ++i)
        ab += fabs(acc[i].x) + fabs(acc[i].y) + fabs(acc[i].z);
    printf("spmv: %.2f, nbody: %.1f\n", sp, ab);

    const int mw = 256, mh = 256;
    unsigned char *dpic, *pic = (unsigned char *)malloc(mw * mh);
    CHECK(cudaMalloc(&dpic, mw * mh));
    mandelbrot<<<dim3(mw / 16, mh / 16), tile>>>(dpic, mw, mh, 64);
    download(pic, dpic, mw * mh);
    long long ms = 0;
    for (int i = 0; i < mw * mh; ++i)
        ms += pic[i];

    const int nw = 128, w = nw + 1;
    int *sim = (int *)malloc(w * w * sizeof(int)), *score = (int *)malloc(w * w * sizeof(int));
    for (int i = 0; i < w * w; ++i) {
        sim[i] = (int)(next() % 21) - 10;
        score[i] = 0;
    }
    for (int i = 0; i < w; ++i)
        score[i] = score[i * w] = -10 * i;
    int *dsim = upload(sim, w * w), *dscore = upload(score, w * w);
    for (int d = 0; d < 2 * (nw / TILE) - 1; ++d) {
        int first = d < nw / TILE ? 0 : d - nw / TILE + 1;
        int last = d < nw / TILE ? d : nw / TILE - 1;
        nwDiagonal<<<last - first + 1, TILE>>>(dscore, dsim, nw, 10, d, first);
    }
    download(score, dscore, w * w);

    for (int i = 0; i < 4096; ++i) {
        ha[i] = 10.0f + (float)(next() % 900) / 10.0f;
        hb[i] = 10.0f + (float)(next() % 900) / 10.0f;
    }
    CHECK(cudaMemcpy(da, ha, 4096 * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, 4096 * sizeof(float), cudaMemcpyHostToDevice));
    blackScholes<<<4096 / 128, 128>>>(dc, da, db, 4096);
    download(hc, dc, 4096);
    double bs = 0.0;
    for (int i = 0; i < 4096; ++i)
        bs += hc[i];
    printf("mandelbrot: %lld, wavefront: %d, black-scholes: %.1f\n", ms, score[w * w - 1], bs);
    return 0;
}
