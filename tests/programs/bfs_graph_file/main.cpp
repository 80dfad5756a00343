// BFS driver: reads a graph file (node count, then "first-edge edge-count" per node, the
// source node, the edge count, then "destination weight" per edge), runs the GPU search and
// checks every node's level against a CPU queue-based search. Usage: bfs [-v] GRAPH_FILE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "bfs.h"

static void usage(const char *prog) { fprintf(stderr, "Usage: %s [-v] <input_file>\n", prog); }

static void bfsCPU(const Node *nodes, int numNodes, const int *edges, int source, int *cost) {
  int *queue = (int *)malloc(numNodes * sizeof(int));
  int head = 0, tail = 0;
  for (int i = 0; i < numNodes; ++i)
    cost[i] = -1;
  cost[source] = 0;
  queue[tail++] = source;
  while (head < tail) {
    int u = queue[head++];
    for (int e = nodes[u].starting; e < nodes[u].starting + nodes[u].no_of_edges; ++e) {
      int v = edges[e];
      if (cost[v] < 0) {
        cost[v] = cost[u] + 1;
        queue[tail++] = v;
      }
    }
  }
  free(queue);
}

int main(int argc, char **argv) {
  int verbose = 0;
  const char *input = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-v") == 0)
      verbose = 1;
    else
      input = argv[i];
  }
  if (input == NULL) {
    usage(argv[0]);
    return EXIT_FAILURE;
  }

  printf("Reading File\n");
  FILE *fp = fopen(input, "r");
  if (!fp) {
    printf("Error Reading graph file\n");
    return EXIT_FAILURE;
  }
  int numNodes = 0, source = 0, numEdges = 0;
  if (fscanf(fp, "%d", &numNodes) != 1) {
    printf("Bad graph file\n");
    return EXIT_FAILURE;
  }
  Node *nodes = (Node *)malloc(numNodes * sizeof(Node));
  for (int i = 0; i < numNodes; ++i) {
    int start, edgeno;
    fscanf(fp, "%d %d", &start, &edgeno);
    nodes[i].starting = start;
    nodes[i].no_of_edges = edgeno;
  }
  fscanf(fp, "%d", &source);
  fscanf(fp, "%d", &numEdges);
  int *edges = (int *)malloc(numEdges * sizeof(int));
  for (int i = 0; i < numEdges; ++i) {
    int id, cost;
    fscanf(fp, "%d", &id);
    fscanf(fp, "%d", &cost);
    edges[i] = id;
  }
  fclose(fp);
  printf("Read File: %d nodes, %d edges, source %d\n", numNodes, numEdges, source);

  int *cost = (int *)malloc(numNodes * sizeof(int));
  int *ref = (int *)malloc(numNodes * sizeof(int));
  int iterations = 0;
  runBfsOnDevice(nodes, numNodes, edges, numEdges, source, cost, &iterations);
  printf("Kernel Executed %d times\n", iterations);
  bfsCPU(nodes, numNodes, edges, source, ref);

  int errors = 0, maxLevel = 0;
  for (int i = 0; i < numNodes; ++i) {
    if (cost[i] != ref[i])
      errors++;
    if (cost[i] > maxLevel)
      maxLevel = cost[i];
  }
  for (int level = 0; level <= maxLevel; ++level) {
    int count = 0;
    for (int i = 0; i < numNodes; ++i)
      count += cost[i] == level;
    printf("level %d: %d nodes\n", level, count);
  }
  if (verbose)
    for (int i = 0; i < numNodes; ++i)
      printf("%d) cost:%d\n", i, cost[i]);
  printf("%s\n", errors == 0 ? "PASSED" : "FAILED");
  free(nodes);
  free(edges);
  free(cost);
  free(ref);
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
