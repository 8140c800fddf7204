/**
 * Kernels over a graph read whole from RStore into this process ({@link
 * io.carafe.algorithms.resident.ResidentGraph}), on {@link io.carafe.algorithms.resident.Parallel}
 * threads, as GAP's: Afforest WCC, direction-optimizing BFS, Δ-stepping SSSP and pull
 * PageRank. The fastest answers on one machine; the engine's vertex programs
 * ({@link io.carafe.algorithms.pregel}) are the path past it.
 */
package io.carafe.algorithms.resident;
