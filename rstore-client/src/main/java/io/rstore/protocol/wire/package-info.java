/**
 * The wire form of the master protocol (docs/protocol.md): frames, the codec of every
 * call, and both ends, so any transport that carries frames carries the protocol.
 */
package io.rstore.protocol.wire;
