/**
 * The master: namespaces, reservations, segments, mapping references and the free-chunk
 * pool, all in memory and mutated atomically.
 */
package io.rstore.master;
