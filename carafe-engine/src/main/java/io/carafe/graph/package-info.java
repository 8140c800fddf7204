/**
 * Graphs stored in RStore: the layouts of header, vertex records and adjacency arrays,
 * and the online API (CarafeGraph, VertexHandle, EdgeIterator, SequentialEdgeIterator).
 */
package io.carafe.graph;
