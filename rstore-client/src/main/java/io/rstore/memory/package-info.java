/**
 * A client's local, RDMA-ready memory: buddy-allocated arenas that mappings borrow and
 * give back, cached for reuse and trimmed past a threshold.
 */
package io.rstore.memory;
