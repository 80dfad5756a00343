// kern's <cooperative_groups.h>: the thread-block group of CUDA's cooperative groups, written
// in the C++ that kern compiles. A block's sync() is __syncthreads() itself, so it is counted
// and checked as that barrier is. Tiles (thread_block_tile<N>, tiled_partition) and grid-wide
// groups are not provided yet.
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

} // namespace cooperative_groups

#endif
