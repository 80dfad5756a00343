// Graph storage shared by the BFS host and kernel files: compressed adjacency lists.
#ifndef BFS_H
#define BFS_H

typedef struct {
  int starting; // index of the node's first edge in the edge list
  int no_of_edges;
} Node;

#define MAX_THREADS_PER_BLOCK 64

void runBfsOnDevice(const Node *h_nodes, int numNodes, const int *h_edges, int numEdges, int source,
                    int *h_cost, int *iterations);

#endif
