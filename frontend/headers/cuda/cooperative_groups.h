// kern's <cooperative_groups.h>: the thread block and its tiles from CUDA's cooperative groups,
// written in the C++ that kern compiles. A block's sync() is __syncthreads() itself, so it is
// counted and checked as that barrier is; the operations of a tile or of a coalesced group are
// the warp's _sync intrinsics under the group's lanes. thread_group is what a block, a tile or a
// coalesced group converts to (and what tiled_partition(group, n) returns); coalesced_threads()
// is the warp's active lanes at the call; binary_partition(group, pred) and
// labeled_partition(group, label) split a tile or a coalesced group; this_thread() is the calling
// thread as a tile of one; cg::reduce (of <cooperative_groups/reduce.h>) combines a value over a
// tile or a coalesced group. this_grid() gives the grid's ranks and sizes, without the grid-wide
// barrier (kern names it in one diagnostic).
#ifndef KERN_COOPERATIVE_GROUPS_H
#define KERN_COOPERATIVE_GROUPS_H

namespace cooperative_groups {

namespace __kern {
/// The calling thread's rank in its block, and its lane in its warp.
__device__ inline unsigned int blockRank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__device__ inline unsigned int blockSize() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ inline unsigned int laneId() { return blockRank() % 32; }
/// The lanes below the calling thread's.
__device__ inline unsigned int lanesBelow() { return (1u << laneId()) - 1u; }
/// `count` lanes (0 to 32) from lane `first` on.
__device__ inline unsigned int laneRange(unsigned int first, unsigned int count) {
  return (count >= 32 ? 0xffffffffu : (1u << count) - 1u) << first;
}
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
/// A group within one warp: its lanes, its size, where it is among its parent's tiles, and
/// whether it was made by tiling (its lanes are then consecutive from an aligned lane).
struct lanes {
  unsigned int mask, size, metaRank, metaSize;
  bool tiled;
};
__device__ inline void checkTileSize(unsigned int n) {
  __kern_assert(n >= 1 && n <= 32 && (n & (n - 1)) == 0,
                "tiled_partition: the tile size must be a power of two from 1 to 32");
}
/// The tile of `n` threads of the block that holds the calling thread (the last one is short
/// when the block's size is not a multiple of n).
__device__ inline lanes blockTile(unsigned int n) {
  checkTileSize(n);
  unsigned int first = blockRank() / n * n, total = blockSize();
  lanes t;
  t.size = total - first < n ? total - first : n;
  t.mask = laneRange(laneId() / n * n, t.size);
  t.metaRank = blockRank() / n;
  t.metaSize = (total + n - 1) / n;
  t.tiled = true;
  return t;
}
/// The tile of `n` threads of the group `g` that holds the calling thread, by rank in g.
__device__ inline lanes groupTile(lanes g, unsigned int n) {
  checkTileSize(n);
  if (g.size <= n)
    return g;
  unsigned int rank = __popc(g.mask & lanesBelow()), first = rank / n * n;
  unsigned int count = g.size - first < n ? g.size - first : n;
  lanes t;
  t.size = count;
  t.metaRank = rank / n;
  t.tiled = g.tiled;
  if (g.tiled) {
    t.mask = laneRange(laneId() / n * n, count);
    t.metaSize = g.size / n;
  } else {
    unsigned int low = laneOfRank(g.mask, first), high = laneOfRank(g.mask, first + count - 1);
    t.mask = g.mask & laneRange(low, high - low + 1);
    t.metaSize = (g.size + n - 1) / n;
  }
  return t;
}
} // namespace __kern

/// A group of threads of the block: the block itself, a tile of it, or a coalesced group, as
/// each converts to, and as tiled_partition(group, n) makes.
class thread_group {
public:
  __device__ explicit thread_group(__kern::lanes g) : block_(false), g_(g) {}
  __device__ static thread_group __block() {
    __kern::lanes none = {0, 0, 0, 1, false};
    thread_group b(none);
    b.block_ = true;
    return b;
  }
  __device__ void sync() const {
    if (block_)
      __syncthreads();
    else
      __syncwarp(g_.mask);
  }
  __device__ unsigned long long thread_rank() const {
    return block_ ? __kern::blockRank() : __popc(g_.mask & __kern::lanesBelow());
  }
  __device__ unsigned long long size() const { return num_threads(); }
  __device__ unsigned long long num_threads() const {
    return block_ ? __kern::blockSize() : g_.size;
  }
  __device__ bool __isBlock() const { return block_; }
  __device__ __kern::lanes __lanes() const { return g_; }

private:
  bool block_;
  __kern::lanes g_;
};

/// The threads of the block that runs the calling thread.
class thread_block {
public:
  __device__ operator thread_group() const { return thread_group::__block(); }
  __device__ void sync() const { __syncthreads(); }
  __device__ unsigned int thread_rank() const {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  __device__ unsigned int size() const { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ unsigned int num_threads() const { return blockDim.x * blockDim.y * blockDim.z; }
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

/// The threads of the whole grid: their ranks and sizes. Its sync() (a grid-wide barrier, which
/// needs every block resident at once) is not provided: a program that calls it gets one
/// diagnostic, and is_valid() is false, as for a grid that cannot synchronise (a GPU says true
/// under cudaLaunchCooperativeKernel).
class grid_group {
public:
  __device__ unsigned long long thread_rank() const {
    return block_rank() * (unsigned long long)__kern::blockSize() + __kern::blockRank();
  }
  __device__ unsigned long long size() const { return num_threads(); }
  __device__ unsigned long long num_threads() const {
    return num_blocks() * (unsigned long long)__kern::blockSize();
  }
  __device__ unsigned long long num_blocks() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  __device__ unsigned long long block_rank() const {
    return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  }
  __device__ dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  /// In threads of the whole grid: the calling thread's index, and the grid's dimensions.
  __device__ dim3 thread_index() const {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }
  __device__ dim3 dim_threads() const {
    return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
  }
  __device__ dim3 dim_blocks() const { return gridDim; }
  __device__ dim3 group_dim() const { return gridDim; }
  __device__ bool is_valid() const { return false; }
  /// Named where a program calls it: instantiating it fails.
  template <typename Unsupported = void> __device__ void sync() const {
    static_assert(!sizeof(Unsupported *),
                  "a grid-wide barrier (grid_group::sync()) is not supported");
  }

private:
  int unused_;
};

__device__ inline grid_group this_grid() {
  grid_group all;
  return all;
}

template <typename Unsupported = void> __device__ void sync(const grid_group &) {
  static_assert(!sizeof(Unsupported *),
                "a grid-wide barrier (grid_group::sync()) is not supported");
}

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
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                "thread_block_tile<Size>: Size must be a power of two from 1 to 32 (tiles "
                "larger than a warp are not supported)");

public:
  /// The tile of rank `metaRank` among the `metaSize` tiles of its parent.
  __device__ thread_block_tile(unsigned int metaRank, unsigned int metaSize)
      : metaRank_(metaRank), metaSize_(metaSize) {}
  __device__ operator thread_group() const {
    __kern::lanes g = {mask(), Size, metaRank_, metaSize_, true};
    return thread_group(g);
  }
  __device__ void sync() const { __syncwarp(mask()); }
  __device__ unsigned int thread_rank() const { return blockRank() % Size; }
  __device__ unsigned int num_threads() const { return Size; }
  __device__ unsigned int size() const { return Size; }
  __device__ unsigned int meta_group_rank() const { return metaRank_; }
  __device__ unsigned int meta_group_size() const { return metaSize_; }
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
  unsigned int metaRank_, metaSize_;
};

#undef KERN_CG_TILE_SHUFFLES

template <unsigned int Size> __device__ void sync(const thread_block_tile<Size> &tile) {
  tile.sync();
}

/// The tile of Size threads of `parent` (the block or a larger tile) that holds the calling
/// thread; its meta group is the parent's tiles.
template <unsigned int Size, typename Parent>
__device__ thread_block_tile<Size> tiled_partition(const Parent &parent) {
  thread_block_tile<Size> tile(parent.thread_rank() / Size,
                               (parent.num_threads() + Size - 1) / Size);
  return tile;
}

/// The calling thread alone, as a tile of one.
__device__ inline thread_block_tile<1> this_thread() {
  thread_block_tile<1> self(0, 1);
  return self;
}

/// Tiles of `tileSize` threads (a power of two up to 32) of a block, a tile or a coalesced
/// group: consecutive ranks of the parent.
__device__ inline thread_group tiled_partition(const thread_group &parent, unsigned int tileSize) {
  return thread_group(parent.__isBlock() ? __kern::blockTile(tileSize)
                                         : __kern::groupTile(parent.__lanes(), tileSize));
}
__device__ inline thread_group tiled_partition(const thread_block &parent, unsigned int tileSize) {
  return thread_group(__kern::blockTile(tileSize));
}

__device__ inline void sync(const thread_group &group) { group.sync(); }

// The shuffles of a coalesced group: ranks are the active lanes in order.
#define KERN_CG_COALESCED_SHUFFLES(T)                                                              \
  __device__ T shfl(T var, unsigned int srcRank) const {                                           \
    return __shfl_sync(g_.mask, var, __kern::laneOfRank(g_.mask, srcRank));                        \
  }                                                                                                \
  __device__ T shfl_down(T var, unsigned int delta) const {                                        \
    unsigned int r = thread_rank() + delta;                                                        \
    return __shfl_sync(g_.mask, var,                                                               \
                       r < num_threads() ? __kern::laneOfRank(g_.mask, r) : __kern::laneId());     \
  }                                                                                                \
  __device__ T shfl_up(T var, unsigned int delta) const {                                          \
    unsigned int r = thread_rank();                                                                \
    return __shfl_sync(g_.mask, var,                                                               \
                       r >= delta ? __kern::laneOfRank(g_.mask, r - delta) : __kern::laneId());    \
  }                                                                                                \
  __device__ T shfl_xor(T var, unsigned int laneMask) const {                                      \
    unsigned int r = thread_rank() ^ laneMask;                                                     \
    return __shfl_sync(g_.mask, var,                                                               \
                       r < num_threads() ? __kern::laneOfRank(g_.mask, r) : __kern::laneId());     \
  }

/// The threads of the warp that are active where it is made (coalesced_threads()).
class coalesced_group {
public:
  __device__ explicit coalesced_group(__kern::lanes g) : g_(g) {}
  __device__ void sync() const { __syncwarp(g_.mask); }
  __device__ unsigned int thread_rank() const { return __popc(g_.mask & __kern::lanesBelow()); }
  __device__ unsigned int num_threads() const { return g_.size; }
  __device__ unsigned int size() const { return g_.size; }
  __device__ unsigned int meta_group_rank() const { return g_.metaRank; }
  __device__ unsigned int meta_group_size() const { return g_.metaSize; }
  __device__ int any(int predicate) const { return __any_sync(g_.mask, predicate); }
  __device__ int all(int predicate) const { return __all_sync(g_.mask, predicate); }
  /// Bit i is the predicate of the thread of rank i.
  __device__ unsigned int ballot(int predicate) const {
    unsigned int bits = __ballot_sync(g_.mask, predicate), out = 0;
    for (unsigned int lane = 0, rank = 0; lane < 32; ++lane) {
      bool member = (g_.mask >> lane) & 1u;
      out |= member && ((bits >> lane) & 1u) ? 1u << rank : 0u;
      rank += member ? 1 : 0;
    }
    return out;
  }
  __device__ operator thread_group() const { return thread_group(g_); }
  __device__ __kern::lanes __lanes() const { return g_; }
  KERN_CG_COALESCED_SHUFFLES(int)
  KERN_CG_COALESCED_SHUFFLES(unsigned int)
  KERN_CG_COALESCED_SHUFFLES(long long)
  KERN_CG_COALESCED_SHUFFLES(unsigned long long)
  KERN_CG_COALESCED_SHUFFLES(float)
  KERN_CG_COALESCED_SHUFFLES(double)

private:
  __kern::lanes g_;
};

#undef KERN_CG_COALESCED_SHUFFLES

__device__ inline coalesced_group coalesced_threads() {
  unsigned int active = __activemask();
  __kern::lanes g = {active, (unsigned int)__popc(active), 0, 1, false};
  return coalesced_group(g);
}

/// Tiles of `tileSize` threads (a power of two up to 32) of a coalesced group, by rank.
__device__ inline coalesced_group tiled_partition(const coalesced_group &parent,
                                                  unsigned int tileSize) {
  return coalesced_group(__kern::groupTile(parent.__lanes(), tileSize));
}

__device__ inline void sync(const coalesced_group &group) { group.sync(); }

namespace __kern {
/// The threads of `parent` whose predicate is the calling thread's `pred`: a coalesced group,
/// the second (meta_group_rank 1) of the two for those whose predicate is true.
__device__ inline coalesced_group binaryPartition(lanes parent, bool pred) {
  unsigned int yes = __ballot_sync(parent.mask, pred);
  lanes g;
  g.mask = pred ? yes : parent.mask & ~yes;
  g.size = __popc(g.mask);
  g.metaRank = pred ? 1 : 0;
  g.metaSize = 2;
  g.tiled = false;
  return coalesced_group(g);
}

/// The threads of `parent` whose `label` is the calling thread's (__match_any_sync).
__device__ inline coalesced_group labeledPartition(lanes parent, unsigned int sameLabel) {
  lanes g;
  g.mask = parent.mask & sameLabel;
  g.size = __popc(g.mask);
  g.metaRank = 0;
  g.metaSize = 1;
  g.tiled = false;
  return coalesced_group(g);
}
} // namespace __kern

// CUDA's int and unsigned labels match by the same bits: the int form converts to this one.
template <unsigned int Size>
__device__ coalesced_group labeled_partition(const thread_block_tile<Size> &parent,
                                             unsigned int label) {
  thread_group whole = parent;
  __kern::lanes p = whole.__lanes();
  return __kern::labeledPartition(p, __match_any_sync(p.mask, label));
}
__device__ inline coalesced_group labeled_partition(const coalesced_group &parent,
                                                    unsigned int label) {
  return __kern::labeledPartition(parent.__lanes(), __match_any_sync(parent.__lanes().mask, label));
}

template <unsigned int Size>
__device__ coalesced_group binary_partition(const thread_block_tile<Size> &parent, bool pred) {
  thread_group whole = parent;
  return __kern::binaryPartition(whole.__lanes(), pred);
}
__device__ inline coalesced_group binary_partition(const coalesced_group &parent, bool pred) {
  return __kern::binaryPartition(parent.__lanes(), pred);
}

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
