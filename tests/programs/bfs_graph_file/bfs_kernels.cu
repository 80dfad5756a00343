// Level-synchronous breadth-first search on the GPU: one thread per node; a frontier mask, an
// "updating" mask for the next level, and a flag that says whether another level is needed.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#include "bfs.h"

__global__ void expandFrontier(const Node *g_nodes, const int *g_edges, bool *g_frontier,
                               bool *g_updating, const bool *g_visited, int *g_cost, int numNodes) {
  int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
  if (tid < numNodes && g_frontier[tid]) {
    g_frontier[tid] = false;
    for (int i = g_nodes[tid].starting; i < g_nodes[tid].starting + g_nodes[tid].no_of_edges; i++) {
      int id = g_edges[i];
      if (!g_visited[id]) {
        g_cost[id] = g_cost[tid] + 1;
        g_updating[id] = true;
      }
    }
  }
}

__global__ void advanceLevel(bool *g_frontier, bool *g_updating, bool *g_visited, bool *g_over,
                             int numNodes) {
  int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
  if (tid < numNodes && g_updating[tid]) {
    g_frontier[tid] = true;
    g_visited[tid] = true;
    *g_over = true;
    g_updating[tid] = false;
  }
}

void runBfsOnDevice(const Node *h_nodes, int numNodes, const int *h_edges, int numEdges, int source,
                    int *h_cost, int *iterations) {
  bool *h_frontier = (bool *)calloc(numNodes, sizeof(bool));
  bool *h_visited = (bool *)calloc(numNodes, sizeof(bool));
  for (int i = 0; i < numNodes; ++i)
    h_cost[i] = -1;
  h_frontier[source] = true;
  h_visited[source] = true;
  h_cost[source] = 0;

  Node *d_nodes;
  int *d_edges, *d_cost;
  bool *d_frontier, *d_updating, *d_visited, *d_over;
  checkCudaErrors(cudaMalloc(&d_nodes, numNodes * sizeof(Node)));
  checkCudaErrors(cudaMalloc(&d_edges, numEdges * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_cost, numNodes * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_frontier, numNodes * sizeof(bool)));
  checkCudaErrors(cudaMalloc(&d_updating, numNodes * sizeof(bool)));
  checkCudaErrors(cudaMalloc(&d_visited, numNodes * sizeof(bool)));
  checkCudaErrors(cudaMalloc(&d_over, sizeof(bool)));
  checkCudaErrors(cudaMemcpy(d_nodes, h_nodes, numNodes * sizeof(Node), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_edges, h_edges, numEdges * sizeof(int), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_cost, h_cost, numNodes * sizeof(int), cudaMemcpyHostToDevice));
  checkCudaErrors(
      cudaMemcpy(d_frontier, h_frontier, numNodes * sizeof(bool), cudaMemcpyHostToDevice));
  checkCudaErrors(
      cudaMemcpy(d_visited, h_visited, numNodes * sizeof(bool), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(d_updating, 0, numNodes * sizeof(bool)));

  int numBlocks = (numNodes + MAX_THREADS_PER_BLOCK - 1) / MAX_THREADS_PER_BLOCK;
  bool stop;
  int k = 0;
  do {
    stop = false;
    checkCudaErrors(cudaMemcpy(d_over, &stop, sizeof(bool), cudaMemcpyHostToDevice));
    expandFrontier<<<numBlocks, MAX_THREADS_PER_BLOCK>>>(d_nodes, d_edges, d_frontier, d_updating,
                                                         d_visited, d_cost, numNodes);
    getLastCudaError("expandFrontier failed");
    advanceLevel<<<numBlocks, MAX_THREADS_PER_BLOCK>>>(d_frontier, d_updating, d_visited, d_over,
                                                       numNodes);
    getLastCudaError("advanceLevel failed");
    checkCudaErrors(cudaMemcpy(&stop, d_over, sizeof(bool), cudaMemcpyDeviceToHost));
    k++;
  } while (stop);
  *iterations = k;

  checkCudaErrors(cudaMemcpy(h_cost, d_cost, numNodes * sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d_nodes));
  checkCudaErrors(cudaFree(d_edges));
  checkCudaErrors(cudaFree(d_cost));
  checkCudaErrors(cudaFree(d_frontier));
  checkCudaErrors(cudaFree(d_updating));
  checkCudaErrors(cudaFree(d_visited));
  checkCudaErrors(cudaFree(d_over));
  free(h_frontier);
  free(h_visited);
}
