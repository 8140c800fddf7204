/**
 * The seam through which cluster implementations (the embedded cluster in rstore-server,
 * network transports) plug into {@link io.rstore.RStore}.
 */
package io.rstore.spi;
