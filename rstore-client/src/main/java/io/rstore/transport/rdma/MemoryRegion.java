package io.rstore.transport.rdma;

/**
 * Registered memory: its address and length as the device sees them, and its remote key.
 * A peer presents {@code rkey} with an address inside {@code [address, address+length)}.
 *
 * @param handle the device's own object for it (DiSNI's IbvMr), or null
 */
public record MemoryRegion(long address, long length, int rkey, Object handle) {
}
