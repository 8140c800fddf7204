/**
 * Online graph algorithms on the VertexHandle/EdgeIterator API (Dijkstra, BFS), keeping
 * many reads in flight, and independent verifiers.
 */
package io.carafe.algorithms.online;
