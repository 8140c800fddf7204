/**
 * Graph algorithms that run in the calling process: on the VertexHandle/EdgeIterator API
 * (Dijkstra, BFS), keeping many reads in flight; over a {@link io.carafe.algorithms.online.ResidentGraph}
 * read whole from RStore, with {@link io.carafe.algorithms.online.Parallel} threads
 * (Afforest WCC, direction-optimizing BFS); and independent verifiers.
 */
package io.carafe.algorithms.online;
