// Ground truth for kern's atomic counters (not part of ctest): one warp per launch runs one
// atomic instruction whose 32 lanes hit the words of a pattern, so that Nsight Compute's request,
// sector and wavefront counts of that instruction can be read per pattern. Patterns come from
// memory (the index of each lane), so nvcc cannot see that lanes share an address.
//   atomic_rules            prints each launch's "launch N: op pattern" line, in launch order
// Run it under ncu (tests/gpu/atomics/measure.sh); compare.py sets the counts beside kern's.
#include "../timing/timing_common.cuh"

#include <string.h>

// A lane whose index is negative does not take part.
__global__ void g_add_unused(int *data, const int *idx) {
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) atomicAdd(&data[i], threadIdx.x + 1);
}
__global__ void g_add_used(int *data, const int *idx, int *out) {
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) out[blockIdx.x * 32 + threadIdx.x] = atomicAdd(&data[i], threadIdx.x + 1);
}
__global__ void g_add1_unused(int *data, const int *idx) {
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) atomicAdd(&data[i], 1);
}
__global__ void g_fadd_unused(float *data, const int *idx) {
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) atomicAdd(&data[i], 1.5f);
}
__global__ void g_max_unused(int *data, const int *idx) {
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) atomicMax(&data[i], (int)threadIdx.x);
}
__global__ void g_exch_used(int *data, const int *idx, int *out) {
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) out[blockIdx.x * 32 + threadIdx.x] = atomicExch(&data[i], threadIdx.x);
}
__global__ void g_cas_used(int *data, const int *idx, int *out) {
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) out[blockIdx.x * 32 + threadIdx.x] = atomicCAS(&data[i], 0, threadIdx.x);
}
__global__ void g_add64_unused(unsigned long long *data, const int *idx) {
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) atomicAdd(&data[i], 3ull);
}
__global__ void s_add_unused(int *out, const int *idx) {
    __shared__ int s[1024];
    for (int k = threadIdx.x; k < 1024; k += 32) s[k] = 0;
    __syncwarp();
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) atomicAdd(&s[i], threadIdx.x + 1);
    __syncwarp();
    if (threadIdx.x == 0) out[blockIdx.x] = s[0] + s[1] + s[33];
}
__global__ void s_add_used(int *out, const int *idx) {
    __shared__ int s[1024];
    for (int k = threadIdx.x; k < 1024; k += 32) s[k] = 0;
    __syncwarp();
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    int r = 0;
    if (i >= 0) r = atomicAdd(&s[i], threadIdx.x + 1);
    __syncwarp();
    out[blockIdx.x * 32 + threadIdx.x] = r + s[threadIdx.x];
}
__global__ void s_add1_unused(int *out, const int *idx) {
    __shared__ int s[1024];
    for (int k = threadIdx.x; k < 1024; k += 32) s[k] = 0;
    __syncwarp();
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) atomicAdd(&s[i], 1);
    __syncwarp();
    if (threadIdx.x == 0) out[blockIdx.x] = s[0] + s[1] + s[33];
}
__global__ void s_cas_used(int *out, const int *idx) {
    __shared__ int s[1024];
    for (int k = threadIdx.x; k < 1024; k += 32) s[k] = 0;
    __syncwarp();
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    int r = 0;
    if (i >= 0) r = atomicCAS(&s[i], 0, threadIdx.x + 1);
    __syncwarp();
    out[blockIdx.x * 32 + threadIdx.x] = r + s[threadIdx.x];
}
__global__ void s_fadd_unused(int *out, const int *idx) {
    __shared__ float s[1024];
    for (int k = threadIdx.x; k < 1024; k += 32) s[k] = 0;
    __syncwarp();
    int i = idx[blockIdx.x * 32 + threadIdx.x];
    if (i >= 0) atomicAdd(&s[i], 1.5f);
    __syncwarp();
    if (threadIdx.x == 0) out[blockIdx.x] = (int)(s[0] + s[1] + s[33]);
}

struct Pattern {
    const char *name;
    int warps; // launches of `warps` blocks of one warp; random patterns use many
    void (*fill)(int *idx, int warps);
};

static unsigned rng = 12345;
static unsigned next() { rng = rng * 1103515245u + 12345u; return (rng >> 8) & 0xffffff; }

#define PAT(nm, expr)                                                                      \
    static void fill_##nm(int *idx, int warps) {                                           \
        for (int w = 0; w < warps; ++w)                                                    \
            for (int l = 0; l < 32; ++l) idx[w * 32 + l] = (expr);                         \
    }
PAT(distinct, l)
PAT(same, 0)
PAT(pairs, l / 2)
PAT(quads, l / 4)
PAT(eights, l / 8)
PAT(halves, l / 16)
PAT(mod2, l % 2)
PAT(mod8, l % 8)
PAT(sector_each, l * 8)
PAT(line_each, l * 32)
PAT(four_sectors_8same, (l % 4) * 8)
PAT(sixteen_sectors_2same, (l % 16) * 8)
PAT(half_active, (l & 1) ? -1 : l)
PAT(one_lane, l == 5 ? 7 : -1)
PAT(hot8_rest_distinct_sectors, l < 8 ? 0 : (l - 7) * 8)
PAT(hot8_rest_same_sector_other_words, l < 8 ? 0 : 1 + (l % 7))
PAT(hot4_hot4_two_sectors, l < 4 ? 0 : (l < 8 ? 8 : (l - 7) * 8 + 16))
PAT(mod3_in_sector, l % 3)
PAT(stride2_words, l * 2)
PAT(bank_conflict_mod32x32, (l % 2) * 32)
PAT(random256, (int)(next() % 256))
PAT(random1024, (int)(next() % 1024))
PAT(random32, (int)(next() % 32))

static const Pattern patterns[] = {
    {"distinct", 1, fill_distinct},
    {"same", 1, fill_same},
    {"pairs", 1, fill_pairs},
    {"quads", 1, fill_quads},
    {"eights", 1, fill_eights},
    {"halves", 1, fill_halves},
    {"mod2", 1, fill_mod2},
    {"mod8", 1, fill_mod8},
    {"sector_each", 1, fill_sector_each},
    {"line_each", 1, fill_line_each},
    {"four_sectors_8same", 1, fill_four_sectors_8same},
    {"sixteen_sectors_2same", 1, fill_sixteen_sectors_2same},
    {"half_active", 1, fill_half_active},
    {"one_lane", 1, fill_one_lane},
    {"hot8_rest_distinct_sectors", 1, fill_hot8_rest_distinct_sectors},
    {"hot8_rest_same_sector_other_words", 1, fill_hot8_rest_same_sector_other_words},
    {"hot4_hot4_two_sectors", 1, fill_hot4_hot4_two_sectors},
    {"mod3_in_sector", 1, fill_mod3_in_sector},
    {"stride2_words", 1, fill_stride2_words},
    {"bank_conflict_mod32x32", 1, fill_bank_conflict_mod32x32},
    {"random256_x64", 64, fill_random256},
    {"random1024_x64", 64, fill_random1024},
    {"random32_x64", 64, fill_random32},
};

int main() {
    const int maxWarps = 64;
    int *idx, *out, *data;
    CHECK(cudaMalloc(&idx, maxWarps * 32 * sizeof(int)));
    CHECK(cudaMalloc(&out, maxWarps * 32 * sizeof(int)));
    CHECK(cudaMalloc(&data, 4096 * sizeof(long long)));
    CHECK(cudaMemset(data, 0, 4096 * sizeof(long long)));
    int host[maxWarps * 32];
    int launch = 0;
    const char *ops[] = {"g_add_unused", "g_add_used",  "g_add1_unused", "g_fadd_unused",
                         "g_max_unused", "g_exch_used", "g_cas_used",    "g_add64_unused",
                         "s_add_unused", "s_add_used",  "s_add1_unused", "s_cas_used",
                         "s_fadd_unused"};
    for (const Pattern &p : patterns) {
        p.fill(host, p.warps);
        CHECK(cudaMemcpy(idx, host, p.warps * 32 * sizeof(int), cudaMemcpyHostToDevice));
        // The indices, one line per warp, so that the counts can be recomputed by rule.
        printf("pattern %s warps %d:", p.name, p.warps);
        for (int k = 0; k < p.warps * 32; ++k) printf(" %d", host[k]);
        printf("\n");
        for (int o = 0; o < 13; ++o) {
            dim3 g(p.warps), b(32);
            switch (o) {
            case 0: g_add_unused<<<g, b>>>(data, idx); break;
            case 1: g_add_used<<<g, b>>>(data, idx, out); break;
            case 2: g_add1_unused<<<g, b>>>(data, idx); break;
            case 3: g_fadd_unused<<<g, b>>>((float *)data, idx); break;
            case 4: g_max_unused<<<g, b>>>(data, idx); break;
            case 5: g_exch_used<<<g, b>>>(data, idx, out); break;
            case 6: g_cas_used<<<g, b>>>(data, idx, out); break;
            case 7: g_add64_unused<<<g, b>>>((unsigned long long *)data, idx); break;
            case 8: s_add_unused<<<g, b>>>(out, idx); break;
            case 9: s_add_used<<<g, b>>>(out, idx); break;
            case 10: s_add1_unused<<<g, b>>>(out, idx); break;
            case 11: s_cas_used<<<g, b>>>(out, idx); break;
            case 12: s_fadd_unused<<<g, b>>>(out, idx); break;
            }
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            printf("launch %d: %s %s\n", launch++, ops[o], p.name);
        }
    }
    return 0;
}
