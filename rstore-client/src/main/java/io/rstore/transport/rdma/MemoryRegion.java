package io.rstore.transport.rdma;

/**
 * Registered memory: its address and length as the device sees them, the local key that
 * this side's work requests name it by, and the remote key a peer presents with an
 * address inside {@code [address, address+length)}.
 *
 * @param handle the device's own object for it (DiSNI's IbvMr), or null
 */
public record MemoryRegion(long address, long length, int lkey, int rkey, Object handle) {
}
