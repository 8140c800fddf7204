/**
 * The Pregel-style BSP engine on RStore: weighted partitioning, partition workers that
 * share nothing but RStore, even/odd mailbox containers, and supersteps synchronised by
 * the global barrier.
 */
package io.carafe.pregel;
