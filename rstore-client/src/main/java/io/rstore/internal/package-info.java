/** Client internals that are not API: metrics wiring, durable-file helpers shared with the servers and Carafe. */
package io.rstore.internal;
