/**
 * The RStore client API: clusters, namespaces, segments (raddresses) and mappings, with
 * one-sided reads and writes on the data path and everything costly on the control path.
 */
package io.rstore;
