/**
 * Vertex programs for the Pregel engine: PageRank, shortest paths and BFS, connected
 * components (label propagation and Afforest's hooking), CDLP, LCC and triangles, SCC, and
 * a user's program loaded from a jar. Their references are in
 * {@link io.carafe.algorithms.references}.
 */
package io.carafe.algorithms.pregel;
