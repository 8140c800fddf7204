/**
 * The transport SPI: endpoints that post one-sided reads and writes against registered,
 * key-checked memory. Implementations live in sub-packages.
 */
package io.rstore.transport;
