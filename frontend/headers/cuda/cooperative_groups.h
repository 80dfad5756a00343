// kern's <cooperative_groups.h>: the thread block and its tiles from CUDA's cooperative groups,
// written in the C++ that kern compiles. A block's sync() is __syncthreads() itself, so it is
// counted and checked as that barrier is; a tile's operations are the warp's _sync intrinsics
// under the tile's lanes. thread_group is what a block or a tile converts to (and what
// tiled_partition(group, n) returns); coalesced_threads() is the warp's active lanes at the call;
// cg::reduce (of <cooperative_groups/reduce.h>) combines a value over a tile or a coalesced group.
// Grid-wide groups are not provided.
#ifndef KERN_COOPERATIVE_GROUPS_H
#define KERN_COOPERATIVE_GROUPS_H

namespace cooperative_groups {

namespace __kern {
/// The calling thread's rank in its block, and its lane in its warp.
__device__ inline unsigned int blockRank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__device__ inline unsigned int laneId() { return blockRank() % 32; }
/// The lane of the `rank`-th set bit of `mask` (a binary search on bit counts, no branches).
__device__ inline unsigned int laneOfRank(unsigned int mask, unsigned int rank) {
  unsigned int lane = 0;
  for (unsigned int half = 16; half > 0; half /= 2) {
    unsigned int below = __popc((mask >> lane) & ((1u << half) - 1u));
    bool up = rank >= below;
    lane += up ? half : 0;
    rank -= up ? below : 0;
  }
  return lane;
}
} // namespace __kern

/// A group of threads of the block: the block itself or a tile of it, as a block or a tile
/// converts to, and as tiled_partition(group, n) makes.
class thread_group {
public:
  __device__ thread_group(unsigned int tileSize, bool isTile) : size_(tileSize), tile_(isTile) {}
  __device__ void sync() const {
    if (tile_)
      __syncwarp(mask());
    else
      __syncthreads();
  }
  __device__ unsigned long long thread_rank() const {
    return tile_ ? __kern::blockRank() % size_ : __kern::blockRank();
  }
  __device__ unsigned long long size() const { return num_threads(); }
  __device__ unsigned long long num_threads() const {
    return tile_ ? size_ : blockDim.x * blockDim.y * blockDim.z;
  }
  __device__ unsigned long long meta_group_rank() const {
    return tile_ ? __kern::blockRank() / size_ : 0;
  }
  __device__ unsigned long long meta_group_size() const {
    return tile_ ? (blockDim.x * blockDim.y * blockDim.z + size_ - 1) / size_ : 1;
  }

private:
  __device__ unsigned int mask() const {
    return size_ >= 32 ? 0xffffffffu : ((1u << size_) - 1u) << (__kern::laneId() / size_ * size_);
  }
  unsigned int size_;
  bool tile_;
};

/// The threads of the block that runs the calling thread.
class thread_block {
public:
  __device__ operator thread_group() const { return thread_group(0, false); }
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

// The shuffles of vector types, component by component.
#define KERN_CG_VEC2_SHUFFLE(T, OP, ARGTYPE)                                                       \
  __device__ T OP(T v, ARGTYPE arg) const {                                                        \
    T r = v;                                                                                       \
    r.x = OP(v.x, arg);                                                                            \
    r.y = OP(v.y, arg);                                                                            \
    return r;                                                                                      \
  }
#define KERN_CG_VEC4_SHUFFLE(T, OP, ARGTYPE)                                                       \
  __device__ T OP(T v, ARGTYPE arg) const {                                                        \
    T r = v;                                                                                       \
    r.x = OP(v.x, arg);                                                                            \
    r.y = OP(v.y, arg);                                                                            \
    r.z = OP(v.z, arg);                                                                            \
    r.w = OP(v.w, arg);                                                                            \
    return r;                                                                                      \
  }
#define KERN_CG_TILE_VECTOR_SHUFFLES(T, N)                                                         \
  KERN_CG_VEC##N##_SHUFFLE(T, shfl, int) KERN_CG_VEC##N##_SHUFFLE(T, shfl_down, unsigned int)      \
      KERN_CG_VEC##N##_SHUFFLE(T, shfl_up, unsigned int)                                           \
          KERN_CG_VEC##N##_SHUFFLE(T, shfl_xor, int)
/// Size consecutive threads of a block (Size a power of two up to 32), within one warp.
template <unsigned int Size> class thread_block_tile {
public:
  __device__ operator thread_group() const { return thread_group(Size, true); }
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
  KERN_CG_TILE_VECTOR_SHUFFLES(int2, 2)
  KERN_CG_TILE_VECTOR_SHUFFLES(uint2, 2)
  KERN_CG_TILE_VECTOR_SHUFFLES(float2, 2)
  KERN_CG_TILE_VECTOR_SHUFFLES(int4, 4)
  KERN_CG_TILE_VECTOR_SHUFFLES(uint4, 4)
  KERN_CG_TILE_VECTOR_SHUFFLES(float4, 4)

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

/// Tiles of `tileSize` threads (a power of two up to 32) of a block or of a larger tile.
__device__ inline thread_group tiled_partition(const thread_group &parent, unsigned int tileSize) {
  return thread_group(tileSize, true);
}

__device__ inline void sync(const thread_group &group) { group.sync(); }

// The shuffles of a coalesced group: ranks are the active lanes in order.
#define KERN_CG_COALESCED_SHUFFLES(T)                                                              \
  __device__ T shfl(T var, unsigned int srcRank) const {                                           \
    return __shfl_sync(mask_, var, __kern::laneOfRank(mask_, srcRank));                            \
  }                                                                                                \
  __device__ T shfl_down(T var, unsigned int delta) const {                                        \
    unsigned int r = thread_rank() + delta;                                                        \
    return __shfl_sync(mask_, var,                                                                 \
                       r < num_threads() ? __kern::laneOfRank(mask_, r) : __kern::laneId());       \
  }                                                                                                \
  __device__ T shfl_up(T var, unsigned int delta) const {                                          \
    unsigned int r = thread_rank();                                                                \
    return __shfl_sync(mask_, var,                                                                 \
                       r >= delta ? __kern::laneOfRank(mask_, r - delta) : __kern::laneId());      \
  }                                                                                                \
  __device__ T shfl_xor(T var, unsigned int laneMask) const {                                      \
    unsigned int r = thread_rank() ^ laneMask;                                                     \
    return __shfl_sync(mask_, var,                                                                 \
                       r < num_threads() ? __kern::laneOfRank(mask_, r) : __kern::laneId());       \
  }

/// The threads of the warp that are active where it is made (coalesced_threads()).
class coalesced_group {
public:
  __device__ explicit coalesced_group(unsigned int mask) : mask_(mask) {}
  __device__ void sync() const { __syncwarp(mask_); }
  __device__ unsigned long long thread_rank() const {
    return __popc(mask_ & ((1u << __kern::laneId()) - 1u));
  }
  __device__ unsigned long long num_threads() const { return __popc(mask_); }
  __device__ unsigned long long size() const { return __popc(mask_); }
  __device__ unsigned long long meta_group_rank() const { return 0; }
  __device__ unsigned long long meta_group_size() const { return 1; }
  __device__ int any(int predicate) const { return __any_sync(mask_, predicate); }
  __device__ int all(int predicate) const { return __all_sync(mask_, predicate); }
  /// Bit i is the predicate of the thread of rank i.
  __device__ unsigned int ballot(int predicate) const {
    unsigned int bits = __ballot_sync(mask_, predicate), out = 0;
    for (unsigned int lane = 0, rank = 0; lane < 32; ++lane) {
      bool member = (mask_ >> lane) & 1u;
      out |= member && ((bits >> lane) & 1u) ? 1u << rank : 0u;
      rank += member ? 1 : 0;
    }
    return out;
  }
  __device__ operator thread_group() const { return thread_group(32, true); }
  KERN_CG_COALESCED_SHUFFLES(int)
  KERN_CG_COALESCED_SHUFFLES(unsigned int)
  KERN_CG_COALESCED_SHUFFLES(long long)
  KERN_CG_COALESCED_SHUFFLES(unsigned long long)
  KERN_CG_COALESCED_SHUFFLES(float)
  KERN_CG_COALESCED_SHUFFLES(double)

private:
  unsigned int mask_;
};

#undef KERN_CG_COALESCED_SHUFFLES

__device__ inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

__device__ inline void sync(const coalesced_group &group) { group.sync(); }

// <cooperative_groups/reduce.h>: the operations, and reduce over a tile or a coalesced group.
template <typename T> struct plus {
  __device__ T operator()(T a, T b) const { return a + b; }
};
template <typename T> struct less {
  __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <typename T> struct greater {
  __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};
template <typename T> struct bit_and {
  __device__ T operator()(T a, T b) const { return a & b; }
};
template <typename T> struct bit_or {
  __device__ T operator()(T a, T b) const { return a | b; }
};
template <typename T> struct bit_xor {
  __device__ T operator()(T a, T b) const { return a ^ b; }
};

/// `op` over the values of every thread of `group`; each gets the result. A group whose size
/// is a power of two exchanges with shfl_xor at halving distances; another (a coalesced group)
/// combines rank r with r + 1, r + 2, r + 4... into rank 0, which then gives it to all.
template <typename Group, typename T, typename Op>
__device__ T reduce(const Group &group, T value, Op op) {
  unsigned int n = group.num_threads();
  if ((n & (n - 1)) == 0) {
    for (unsigned int distance = n / 2; distance > 0; distance /= 2)
      value = op(value, group.shfl_xor(value, distance));
    return value;
  }
  unsigned int rank = group.thread_rank();
  for (unsigned int distance = 1; distance < n; distance *= 2) {
    T other = group.shfl_down(value, distance);
    if (rank + distance < n)
      value = op(value, other);
  }
  return group.shfl(value, 0);
}

} // namespace cooperative_groups

#endif
