// kern's <cooperative_groups.h>: the thread block and its tiles from CUDA's cooperative groups,
// written in the C++ that kern compiles. A block's sync() is __syncthreads() itself, so it is
// counted and checked as that barrier is; a tile's operations are the warp's _sync intrinsics
// under the tile's lanes. Not provided yet: thread_group and tiled_partition(block, n),
// coalesced_threads(), cg::reduce, and grid-wide groups.
#ifndef KERN_COOPERATIVE_GROUPS_H
#define KERN_COOPERATIVE_GROUPS_H

namespace cooperative_groups {

/// The threads of the block that runs the calling thread.
class thread_block {
public:
  __device__ void sync() const { __syncthreads(); }
  __device__ unsigned long long thread_rank() const {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  __device__ unsigned long long size() const { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ unsigned long long num_threads() const { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ dim3 dim_threads() const { return blockDim; }
  __device__ dim3 group_dim() const { return blockDim; }

private:
  int unused_; // an empty class still has a size of one byte in C++
};

__device__ inline thread_block this_thread_block() {
  thread_block block;
  return block;
}

__device__ inline void sync(const thread_block &group) { group.sync(); }

// The shuffles of a tile, for each type CUDA's shuffles take.
#define KERN_CG_TILE_SHUFFLES(T)                                                                   \
  __device__ T shfl(T var, int srcRank) const { return __shfl_sync(mask(), var, srcRank, Size); }  \
  __device__ T shfl_down(T var, unsigned int delta) const {                                        \
    return __shfl_down_sync(mask(), var, delta, Size);                                             \
  }                                                                                                \
  __device__ T shfl_up(T var, unsigned int delta) const {                                          \
    return __shfl_up_sync(mask(), var, delta, Size);                                               \
  }                                                                                                \
  __device__ T shfl_xor(T var, int laneMask) const {                                               \
    return __shfl_xor_sync(mask(), var, laneMask, Size);                                           \
  }

/// Size consecutive threads of a block (Size a power of two up to 32), within one warp.
template <unsigned int Size> class thread_block_tile {
public:
  __device__ void sync() const { __syncwarp(mask()); }
  __device__ unsigned long long thread_rank() const { return blockRank() % Size; }
  __device__ unsigned long long num_threads() const { return Size; }
  __device__ unsigned long long size() const { return Size; }
  __device__ unsigned long long meta_group_rank() const { return blockRank() / Size; }
  __device__ unsigned long long meta_group_size() const {
    return (blockDim.x * blockDim.y * blockDim.z + Size - 1) / Size;
  }
  __device__ int any(int predicate) const { return __any_sync(mask(), predicate); }
  __device__ int all(int predicate) const { return __all_sync(mask(), predicate); }
  __device__ unsigned int ballot(int predicate) const {
    unsigned int bits = __ballot_sync(mask(), predicate);
    return Size >= 32 ? bits
                      : (bits >> (blockRank() % 32 / Size * Size)) & ((1u << (Size % 32)) - 1);
  }
  KERN_CG_TILE_SHUFFLES(int)
  KERN_CG_TILE_SHUFFLES(unsigned int)
  KERN_CG_TILE_SHUFFLES(long long)
  KERN_CG_TILE_SHUFFLES(unsigned long long)
  KERN_CG_TILE_SHUFFLES(float)
  KERN_CG_TILE_SHUFFLES(double)

private:
  __device__ unsigned int blockRank() const {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  /// The lanes of the calling thread's tile in its warp.
  __device__ unsigned int mask() const {
    return Size >= 32 ? 0xffffffffu : ((1u << (Size % 32)) - 1) << (blockRank() % 32 / Size * Size);
  }
  int unused_;
};

#undef KERN_CG_TILE_SHUFFLES

template <unsigned int Size> __device__ void sync(const thread_block_tile<Size> &tile) {
  tile.sync();
}

template <unsigned int Size>
__device__ thread_block_tile<Size> tiled_partition(const thread_block &parent) {
  thread_block_tile<Size> tile;
  return tile;
}

} // namespace cooperative_groups

#endif
