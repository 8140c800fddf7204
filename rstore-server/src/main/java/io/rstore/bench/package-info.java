/** The RStore benchmark behind {@code rstore bench}: control-path cost, data-path latency and bandwidth. */
package io.rstore.bench;
