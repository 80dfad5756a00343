// Control flow of the kinds real kernels have, for checking kern's model of what nvcc makes of
// it (ir/branch_model.cpp) against Nsight Compute's branch counters and warp execution
// efficiency: kernels that the model's thresholds were not read from (those came from
// tests/gpu/realcode). tests/gpu/branches/measure.sh runs it on a GPU; compare.py sets kern's
// counters beside the GPU's. Each kernel's result is checked on the host.
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

#define BLOCK 256
#define TAPS 8

// if/else with work on both sides: a real branch, and a jump over the else side.
__global__ void saturate(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    if (x > 0.5f) {
        float y = in[(i + 1) % n] * 0.25f + in[(i + 2) % n] * 0.25f;
        y += in[(i + 3) % n] * 0.25f + in[(i + 4) % n] * 0.25f;
        out[i] = y * x + in[(i + 5) % n] - in[(i + 6) % n];
    } else {
        float y = in[(i + 7) % n] * 0.5f - in[(i + 8) % n] * 0.5f;
        y -= in[(i + 9) % n] * 0.125f + in[(i + 10) % n] * 0.125f;
        out[i] = y - x + in[(i + 11) % n] * in[(i + 12) % n];
    }
}

// A select and a short guarded store.
__global__ void leakyRelu(const float *in, float *out, int *negatives, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[i] = x > 0.0f ? x : 0.01f * x;
        if (x < 0.0f)
            negatives[i] = 1;
    }
}

// Constant trip counts: 8 taps, 24 and 64 steps.
__global__ void fir8(const float *in, const float *w, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + TAPS <= n) {
        float acc = 0.0f;
        for (int k = 0; k < TAPS; ++k)
            acc += in[i + k] * w[k];
        out[i] = acc;
    }
}

__global__ void sum24(const int *in, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int k = 0; k < 24; ++k)
        acc += in[i * 24 + k] ^ k;
    out[i] = acc;
}

__global__ void poly64(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i], acc = 0.0f, p = 1.0f;
    for (int k = 0; k < 64; ++k) {
        acc += p * (1.0f / (k + 1));
        p *= x * 0.5f;
        if (acc > 1000.0f)
            acc -= 1000.0f;
    }
    out[i] = acc;
}

// Run-time trip counts, small and larger bodies.
__global__ void rowSums(const float *m, float *sums, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int c = 0; c < cols; ++c)
        s += m[c * gridDim.x * blockDim.x + r];
    sums[r] = s;
}

__global__ void rowNorms(const float *m, float *norms, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f, big = 0.0f;
    for (int c = 0; c < cols; ++c) {
        float v = m[c * gridDim.x * blockDim.x + r];
        float a = fabsf(v) * 1.5f + 0.25f;
        s += v * v + sqrtf(a) * 0.125f;
        big = fmaxf(big, a * a - v);
    }
    norms[r] = s + big;
}

// Data-dependent loops: a while with a break, a do-while.
__global__ void collatz(const int *start, int *steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int x = start[i];
        int s = 0;
        while (true) {
            if (x == 1u)
                break;
            x = (x & 1u) ? 3u * x + 1u : x >> 1;
            ++s;
        }
        steps[i] = s;
    }
}

__global__ void digits(const int *in, int *count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = in[i], d = 0;
        do {
            x /= 10;
            ++d;
        } while (x != 0);
        count[i] = d;
    }
}

// Divisions: by a value, a reciprocal, by a power of two, by a constant.
__global__ void ratios(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] / b[i] + 1.0f / b[i] + a[i] / 4.0f + b[i] / 3.0f;
}

// Nested conditions on the lane: divergent branches inside a uniform one.
__global__ void classify(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int r = 0;
    if (blockIdx.x % 2 == 0) {
        if (v % 3 == 0) {
            r = in[(i + 1) % n] + in[(i + 2) % n] + in[(i + 3) % n];
            r = r * 7 + in[(i + 4) % n] + in[(i + 5) % n] + (v >> 2);
        } else {
            r = v * 3;
        }
    } else {
        r = -v;
    }
    out[i] = r;
}

// Tree reductions: the stride from blockDim (run time) and from a constant.
__global__ void reduceDynamic(const int *in, int *out) {
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

__global__ void reduceConstant(const int *in, int *out) {
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] = max(s[t], s[t + stride]);
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

// A 5x5 box filter: two nested constant loops.
__global__ void box5(const float *in, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= 2 && y >= 2 && x < w - 2 && y < h - 2) {
        float s = 0.0f;
        for (int dy = -2; dy <= 2; ++dy)
            for (int dx = -2; dx <= 2; ++dx)
                s += in[(y + dy) * w + x + dx];
        out[y * w + x] = s * 0.04f;
    }
}

// A switch on the lane.
__global__ void lanes(const int *in, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    switch (threadIdx.x % 4) {
    case 0:
        v = v * 2 + 1;
        break;
    case 1:
        v = v - 7;
        break;
    case 2:
        v = v ^ 0x55;
        break;
    default:
        v = -v;
        break;
    }
    out[i] = v;
}

// A grid-stride loop with work after it, and nested run-time loops.
__global__ void countAbove(const float *in, int n, float level, int *counts) {
    __shared__ int hits[BLOCK];
    int c = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c += in[i] > level;
    hits[threadIdx.x] = c;
    __syncthreads();
    if (threadIdx.x == 0) {
        int total = 0;
        for (int k = 0; k < blockDim.x; ++k)
            total += hits[k];
        counts[blockIdx.x] = total;
    }
}

__global__ void outer(const float *a, float *out, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            s += a[(r * cols + c) * 64 + (i & 63)] * (r + 1);
    out[i] = s;
}

// A long guarded body and a short one.
__global__ void guardedLong(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float r = in[i];
    if ((i & 7) == 3) {
        float a = in[(i + 1) % n], b = in[(i + 2) % n], c = in[(i + 3) % n];
        float d = in[(i + 4) % n], e = in[(i + 5) % n], f = in[(i + 6) % n];
        r = a * b + c * d - e * f + r;
    }
    out[i] = r * 2.0f;
}

__global__ void guardedShort(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float r = in[i];
    if ((i & 7) == 3)
        r = r * in[(i + 1) % n] + 1.0f;
    out[i] = r * 2.0f;
}

// ---- the host -------------------------------------------------------------------------------

static unsigned int lcg = 2024u;
static unsigned int next() {
    lcg = lcg * 1103515245u + 12345u;
    return (lcg >> 8) & 0xffffff;
}
static float unit() { return (next() % 10000) / 10000.0f; }

template <typename T> static T *upload(const T *h, size_t count) {
    T *d;
    CHECK(cudaMalloc(&d, count * sizeof(T)));
    CHECK(cudaMemcpy(d, h, count * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static void download(T *h, const T *d, size_t count) {
    CHECK(cudaMemcpy(h, d, count * sizeof(T), cudaMemcpyDeviceToHost));
}

static int near(float a, float b) { return fabsf(a - b) <= 1e-3f * (1.0f + fabsf(b)); }

int main() {
    const int n = 1 << 16;
    float *hf = (float *)malloc(n * sizeof(float)), *hg = (float *)malloc(n * sizeof(float));
    float *ho = (float *)malloc(n * sizeof(float));
    int *hi = (int *)malloc(n * 24 * sizeof(int)), *hj = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; ++i) {
        hf[i] = unit();
        hg[i] = unit() + 0.5f;
    }
    for (int i = 0; i < n * 24; ++i)
        hi[i] = next() % 1000;
    float *da = upload(hf, n), *db = upload(hg, n), *dout;
    int *di = upload(hi, n * 24), *dj;
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMalloc(&dj, n * sizeof(int)));
    int bad = 0;

    saturate<<<n / BLOCK, BLOCK>>>(da, dout, n - 100);
    download(ho, dout, n - 100);
    for (int i = 0; i < n - 100; i += 97) {
        int m = n - 100;
        float x = hf[i], want;
        if (x > 0.5f) {
            float y = hf[(i + 1) % m] * 0.25f + hf[(i + 2) % m] * 0.25f;
            y += hf[(i + 3) % m] * 0.25f + hf[(i + 4) % m] * 0.25f;
            want = y * x + hf[(i + 5) % m] - hf[(i + 6) % m];
        } else {
            float y = hf[(i + 7) % m] * 0.5f - hf[(i + 8) % m] * 0.5f;
            y -= hf[(i + 9) % m] * 0.125f + hf[(i + 10) % m] * 0.125f;
            want = y - x + hf[(i + 11) % m] * hf[(i + 12) % m];
        }
        bad += !near(ho[i], want);
    }
    printf("saturate: %d bad\n", bad);

    for (int i = 0; i < n; ++i)
        ho[i] = hf[i] - 0.3f;
    float *dc = upload(ho, n);
    CHECK(cudaMemset(dj, 0, n * sizeof(int)));
    leakyRelu<<<n / BLOCK, BLOCK>>>(dc, dout, dj, n);
    download(hj, dj, n);
    int neg = 0;
    for (int i = 0; i < n; ++i)
        neg += hj[i];
    printf("leakyRelu: %d negatives\n", neg);

    float w[TAPS] = {0.1f, 0.2f, 0.3f, 0.4f, 0.4f, 0.3f, 0.2f, 0.1f};
    float *dw = upload(w, TAPS);
    fir8<<<n / BLOCK, BLOCK>>>(da, dw, dout, n);
    download(ho, dout, n);
    bad = 0;
    for (int i = 0; i + TAPS <= n; i += 101) {
        float acc = 0.0f;
        for (int k = 0; k < TAPS; ++k)
            acc += hf[i + k] * w[k];
        bad += !near(ho[i], acc);
    }
    printf("fir8: %d bad\n", bad);

    sum24<<<n / BLOCK, BLOCK>>>(di, dj);
    download(hj, dj, n);
    long long total = 0;
    for (int i = 0; i < n; ++i)
        total += hj[i];
    printf("sum24: %lld\n", total);

    poly64<<<n / BLOCK, BLOCK>>>(da, dout);
    download(ho, dout, n);
    bad = 0;
    for (int i = 0; i < n; i += 89) {
        float acc = 0.0f, p = 1.0f, x = hf[i];
        for (int k = 0; k < 64; ++k) {
            acc += p * (1.0f / (k + 1));
            p *= x * 0.5f;
            if (acc > 1000.0f)
                acc -= 1000.0f;
        }
        bad += !near(ho[i], acc);
    }
    printf("poly64: %d bad\n", bad);

    const int rows = 512;
    int colCounts[3] = {3, 7, 100};
    for (int t = 0; t < 3; ++t) {
        int cols = colCounts[t];
        rowSums<<<rows / BLOCK, BLOCK>>>(da, dout, cols);
        download(ho, dout, rows);
        bad = 0;
        for (int r = 0; r < rows; r += 37) {
            float s = 0.0f;
            for (int c = 0; c < cols; ++c)
                s += hf[c * rows + r];
            bad += !near(ho[r], s);
        }
        printf("rowSums %d: %d bad\n", cols, bad);
    }
    rowNorms<<<4096 / BLOCK, BLOCK>>>(da, dout, 13);
    download(ho, dout, 4096);
    double norms = 0;
    for (int r = 0; r < 4096; ++r)
        norms += ho[r];
    printf("rowNorms: %.0f\n", norms);

    for (int i = 0; i < n; ++i)
        hj[i] = 1 + next() % 5000;
    int *ds = upload(hj, n), *dsteps;
    CHECK(cudaMalloc(&dsteps, n * sizeof(int)));
    collatz<<<8, BLOCK>>>(ds, dsteps, 8 * BLOCK - 10);
    int steps[8 * BLOCK];
    download(steps, dsteps, 8 * BLOCK - 10);
    total = 0;
    for (int i = 0; i < 8 * BLOCK - 10; ++i)
        total += steps[i];
    printf("collatz: %lld steps\n", total);

    for (int i = 0; i < n; ++i)
        hj[i] = next() % 100000000;
    int *dd = upload(hj, n);
    digits<<<n / BLOCK, BLOCK>>>(dd, dsteps, n);
    download(hj, dsteps, n);
    total = 0;
    for (int i = 0; i < n; ++i)
        total += hj[i];
    printf("digits: %lld\n", total);

    ratios<<<n / BLOCK, BLOCK>>>(da, db, dout, n);
    download(ho, dout, n);
    bad = 0;
    for (int i = 0; i < n; i += 67)
        bad += !near(ho[i], hf[i] / hg[i] + 1.0f / hg[i] + hf[i] / 4.0f + hg[i] / 3.0f);
    printf("ratios: %d bad\n", bad);

    classify<<<n / BLOCK, BLOCK>>>(di, dj, n);
    download(hj, dj, n);
    total = 0;
    for (int i = 0; i < n; ++i)
        total += hj[i];
    printf("classify: %lld\n", total);

    int sums[n / BLOCK];
    reduceDynamic<<<n / BLOCK, BLOCK>>>(di, dj);
    download(sums, dj, n / BLOCK);
    total = 0;
    for (int b = 0; b < n / BLOCK; ++b)
        total += sums[b];
    printf("reduceDynamic: %lld\n", total);
    reduceConstant<<<n / BLOCK, BLOCK>>>(di, dj);
    download(sums, dj, n / BLOCK);
    total = 0;
    for (int b = 0; b < n / BLOCK; ++b)
        total += sums[b];
    printf("reduceConstant: %lld\n", total);

    box5<<<dim3(256 / 16, 256 / 16), dim3(16, 16)>>>(da, dout, 256, 256);
    download(ho, dout, 256 * 256);
    bad = 0;
    for (int y = 2; y < 254; y += 13)
        for (int x = 2; x < 254; x += 11) {
            float s = 0.0f;
            for (int dy = -2; dy <= 2; ++dy)
                for (int dx = -2; dx <= 2; ++dx)
                    s += hf[(y + dy) * 256 + x + dx];
            bad += !near(ho[y * 256 + x], s * 0.04f);
        }
    printf("box5: %d bad\n", bad);

    lanes<<<n / BLOCK, BLOCK>>>(di, dj);
    download(hj, dj, n);
    total = 0;
    for (int i = 0; i < n; ++i)
        total += hj[i];
    printf("lanes: %lld\n", total);

    int *dcounts;
    CHECK(cudaMalloc(&dcounts, 32 * sizeof(int)));
    countAbove<<<32, BLOCK>>>(da, n, 0.75f, dcounts);
    int counts[32];
    download(counts, dcounts, 32);
    total = 0;
    for (int b = 0; b < 32; ++b)
        total += counts[b];
    printf("countAbove: %lld\n", total);

    outer<<<4096 / BLOCK, BLOCK>>>(da, dout, 5, 9);
    download(ho, dout, 4096);
    double outs = 0;
    for (int i = 0; i < 4096; ++i)
        outs += ho[i];
    printf("outer: %.0f\n", outs);

    guardedLong<<<n / BLOCK, BLOCK>>>(da, dout, n);
    download(ho, dout, n);
    double g = 0;
    for (int i = 0; i < n; ++i)
        g += ho[i];
    printf("guardedLong: %.0f\n", g);
    guardedShort<<<n / BLOCK, BLOCK>>>(da, dout, n);
    download(ho, dout, n);
    g = 0;
    for (int i = 0; i < n; ++i)
        g += ho[i];
    printf("guardedShort: %.0f\n", g);
    return 0;
}
