/** Vertex programs for the Pregel engine (PageRank, shortest paths and BFS, connected components) and reference implementations. */
package io.carafe.algorithms.pregel;
