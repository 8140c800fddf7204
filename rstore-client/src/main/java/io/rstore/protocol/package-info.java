/**
 * What clients, the master and memory servers say to each other on the control path:
 * the master's calls and the records they carry.
 */
package io.rstore.protocol;
