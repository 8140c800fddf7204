/**
 * Importing edge lists (SNAP text, plain or gzip): a byte-level parser, the CSR builder,
 * and the binary graph file that caches an import.
 */
package io.carafe.importer;
