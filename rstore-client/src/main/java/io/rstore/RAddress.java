package io.rstore;

import io.rstore.protocol.SegmentInfo;

import java.lang.foreign.MemorySegment;

/**
 * A globally visible {@code <address, length>} segment of a namespace, with the chunk
 * locations fetched once from the master. Map it to read and write it.
 */
public final class RAddress {
    private final Namespace namespace;
    private final SegmentInfo segment;
    private final long length;

    RAddress(Namespace namespace, SegmentInfo segment, long length) {
        this.namespace = namespace;
        this.segment = segment;
        this.length = length;
    }

    /** Binds to the whole segment that starts at {@code address}; INVALID_ADDRESS if there is none. */
    public static RAddress init(Namespace namespace, long address) {
        SegmentInfo segment = lookup(namespace, address);
        return new RAddress(namespace, segment, segment.length());
    }

    /** Binds to the first {@code length} bytes of the segment at {@code address}. */
    public static RAddress init(Namespace namespace, long address, long length) {
        SegmentInfo segment = lookup(namespace, address);
        if (length <= 0 || length > segment.length()) {
            throw ErrorCode.OUT_OF_BOUNDS.exception("cannot bind " + length + " bytes at address " + address + " of " + namespace
                    + ": the segment there has " + segment.length() + " bytes");
        }
        return new RAddress(namespace, segment, length);
    }

    private static SegmentInfo lookup(Namespace namespace, long address) {
        RStore client = namespace.client();
        return client.rpc("lookup", () -> client.master().lookup(client.session(), namespace.id(), address));
    }

    public Namespace namespace() {
        return namespace;
    }

    public long address() {
        return segment.address();
    }

    public long length() {
        return length;
    }

    /**
     * The namespace's chunk size: chunks cover {@code [k·C, (k+1)·C)} of its address space,
     * so a {@link MapFlags#DIRECT} mapping within one such range can be the chunk's own bytes.
     */
    public long chunkSizeBytes() {
        return segment.chunkSizeBytes();
    }

    /** Maps the whole segment into local memory. */
    public Mapping map(int flags) {
        return map(0, length, flags);
    }

    /**
     * Maps {@code [offset, offset+length)} of the segment into local RDMA-ready memory and
     * takes a reference at the master (so the segment cannot be freed while mapped).
     */
    public Mapping map(long offset, long length, int flags) {
        return map(offset, length, flags, null);
    }

    /**
     * Like {@link #map(long, long, int)}, but on memory the caller already has (as RDMA
     * registers a user buffer): {@code local} (at least {@code length} bytes) becomes the
     * mapping's local memory, is not copied, and is not freed by unmap; it must outlive
     * the mapping. A read-only {@code local} (say a file mapped read-only) can only be
     * written out: reads into it fail with READ_ONLY.
     */
    public Mapping map(long offset, long length, int flags, MemorySegment local) {
        if (local != null && local.byteSize() < length) {
            throw ErrorCode.OUT_OF_BOUNDS.exception("the local memory given has " + local.byteSize() + " bytes, the mapping needs " + length);
        }
        if ((flags & ~MapFlags.ALL) != 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("unknown map flags " + Integer.toBinaryString(flags) + "; use MapFlags");
        }
        if ((flags & MapFlags.DIRECT) != 0 && ((flags & MapFlags.READ_ONLY) == 0 || local != null)) {
            throw ErrorCode.INVALID_ARGUMENT.exception("MapFlags.DIRECT maps the server's own bytes read-only: it needs MapFlags.READ_ONLY"
                    + " and no local memory of the caller's");
        }
        if (offset < 0 || length <= 0 || length > this.length - offset) {
            throw ErrorCode.OUT_OF_BOUNDS.exception("cannot map " + length + " bytes at offset " + offset
                    + " of a " + this.length + "-byte segment at " + address() + " of " + namespace);
        }
        RStore client = namespace.client();
        SegmentInfo current = client.rpc("map", () -> client.master().map(client.session(), namespace.id(), address()));
        Mapping mapping;
        try {
            mapping = new Mapping(client, this, current, offset, length, flags, local);
        } catch (RuntimeException e) {
            client.rpc("unmap", () -> {
                client.master().unmap(client.session(), namespace.id(), address());
                return null;
            });
            throw e;
        }
        if ((flags & MapFlags.PREFETCH) != 0) {
            try {
                mapping.read(0, length);
            } catch (RuntimeException e) {
                mapping.close();
                throw e;
            }
        }
        return mapping;
    }

    @Override
    public String toString() {
        return "RAddress[" + namespace.name() + "@" + address() + "+" + length + "]";
    }
}
