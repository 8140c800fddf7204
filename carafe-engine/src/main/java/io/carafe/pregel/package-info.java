/**
 * The Pregel-style BSP engine on RStore: weighted partitioning, partition workers that
 * coordinate only through RStore (threads of one process also share read caches,
 * {@code GatheredArrays}), even/odd mailbox containers, and supersteps
 * synchronised by the global barrier.
 */
package io.carafe.pregel;
