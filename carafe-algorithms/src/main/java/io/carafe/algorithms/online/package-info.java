/**
 * Algorithms on the online API (VertexHandle, EdgeIterator): Dijkstra and BFS over a graph
 * in RStore, reading records and edge lists as they go with many reads in flight, for a
 * query that touches part of a graph. The kernels that read a graph whole into the process
 * are in {@link io.carafe.algorithms.resident}; the vertex programs in
 * {@link io.carafe.algorithms.pregel}.
 */
package io.carafe.algorithms.online;
