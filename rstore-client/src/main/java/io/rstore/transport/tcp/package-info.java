/**
 * The tcp transport: master frames over one connection, one-sided reads and writes over
 * a connection per memory server with many operations in flight.
 */
package io.rstore.transport.tcp;
