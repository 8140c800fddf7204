package io.rstore;

import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.SegmentInfo;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A client's handle on a namespace: a private address space made of the chunks it
 * reserved, laid end to end, in which segments are allocated. Thread-safe; every call is
 * on the control path.
 */
public final class Namespace {
    private static final int BOOTSTRAP_ATTEMPTS = 100;

    private final RStore client;
    private final long id;
    private final String name;

    Namespace(RStore client, long id, String name) {
        this.client = client;
        this.id = id;
        this.name = name;
    }

    public long id() {
        return id;
    }

    public String name() {
        return name;
    }

    public RStore client() {
        return client;
    }

    /** Reserves at least {@code bytes} more DRAM (whole chunks striped over the servers); returns the total reserved. */
    public long reserve(long bytes) {
        return client.rpc("reserve", () -> client.master().reserve(client.session(), id, bytes));
    }

    /** Gives back whole chunks from the end of the address space (they must hold no segment); returns the total left. */
    public long release(long bytes) {
        return client.rpc("release", () -> client.master().release(client.session(), id, bytes));
    }

    public RAddress alloc(long bytes) {
        return alloc(bytes, AllocFlags.NONE);
    }

    /** Allocates a segment of {@code bytes} first-fit; see {@link AllocFlags}. */
    public RAddress alloc(long bytes, int flags) {
        SegmentInfo segment = client.rpc("alloc", () -> client.master().alloc(client.session(), id, bytes, flags));
        return new RAddress(this, segment, segment.length());
    }

    /**
     * A new segment holding {@code length} bytes of {@code file} from {@code offset}. Where
     * the memory servers share this process and {@code offset} is a multiple of the chunk
     * size, its whole chunks are the file's pages, mapped privately (copy-on-write: writes
     * to the segment never reach the file) and nothing is copied; the rest, or everything
     * elsewhere, is written from the file. A mapped file must not be written or truncated
     * in place while the segment lives (replacing it by a rename is fine: the mapping keeps
     * the old file); the graph cache is only ever replaced.
     */
    public RAddress allocFromFile(Path file, long offset, long length) {
        if (offset < 0 || length <= 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("allocFromFile needs offset >= 0 and length > 0, was " + offset + " and " + length);
        }
        SegmentInfo segment;
        long mapped;
        try {
            segment = client.rpc("allocFromFile", () -> client.master().allocFromFile(client.session(), id,
                    file.toAbsolutePath().toString(), offset, length));
            mapped = length / segment.chunkSizeBytes() * segment.chunkSizeBytes();
        } catch (RStoreException e) {
            if (e.code() != ErrorCode.UNSUPPORTED) {
                throw e;
            }
            segment = client.rpc("alloc", () -> client.master().alloc(client.session(), id, length, AllocFlags.GROW));
            mapped = 0;
        }
        RAddress raddress = new RAddress(this, segment, segment.length());
        if (mapped < length) {
            try {
                writeFrom(file, offset + mapped, raddress, mapped, length - mapped);
            } catch (RuntimeException e) {
                try {
                    free(raddress);
                } catch (RStoreException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
        }
        return raddress;
    }

    /**
     * Writes {@code length} bytes of the file from {@code offset} into the segment at
     * {@code at}: copied by the kernel where the transport can (shm), else straight from a
     * mapping of the file.
     */
    private static void writeFrom(Path file, long offset, RAddress segment, long at, long length) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = channel.map(FileChannel.MapMode.READ_ONLY, offset, length, arena); // nothing is read until touched
            try (Mapping m = segment.map(at, length, MapFlags.NONE, bytes)) {
                if (!m.writeFromFile(channel, offset, 0, length)) {
                    m.write();
                }
            }
        } catch (IOException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot read " + length + " bytes at " + offset + " of " + file + ": " + e.getMessage());
        }
    }

    /** Allocates a segment at a chosen address; fails with ADDRESS_IN_USE if the range overlaps a segment. */
    public RAddress allocAt(long address, long bytes, int flags) {
        SegmentInfo segment = client.rpc("allocAt", () -> client.master().allocAt(client.session(), id, address, bytes, flags));
        return new RAddress(this, segment, segment.length());
    }

    public void free(RAddress raddress) {
        free(raddress.address());
    }

    /** Frees the segment at {@code address}; fails with SEGMENT_IN_USE while any client maps it. */
    public void free(long address) {
        client.rpc("free", () -> {
            client.master().free(client.session(), id, address);
            return null;
        });
    }

    /** Binds to the whole segment at {@code address}: {@link RAddress#init(Namespace, long)}. */
    public RAddress raddress(long address) {
        return RAddress.init(this, address);
    }

    /**
     * The namespace's first segment at {@link RStore#RSTORE_INIT_RADDRESS}, created by
     * whichever of several racing clients gets there first: each tries to bind it, the
     * ones that find nothing try to allocate it, exactly one succeeds and the others,
     * told ADDRESS_IN_USE, bind to the winner's segment.
     */
    public RAddress bootstrap(long bytes) {
        for (int attempt = 0; attempt < BOOTSTRAP_ATTEMPTS; attempt++) {
            try {
                return RAddress.init(this, RStore.RSTORE_INIT_RADDRESS, bytes);
            } catch (RStoreException e) {
                if (e.code() != ErrorCode.INVALID_ADDRESS) {
                    throw e;
                }
            }
            try {
                return allocAt(RStore.RSTORE_INIT_RADDRESS, bytes, AllocFlags.GROW | AllocFlags.ZERO);
            } catch (RStoreException e) {
                if (e.code() != ErrorCode.ADDRESS_IN_USE) {
                    throw e;
                }
            }
        }
        throw ErrorCode.ADDRESS_IN_USE.exception("namespace '" + name + "': could not bootstrap " + bytes
                + " bytes at the init address in " + BOOTSTRAP_ATTEMPTS + " attempts; a segment that does not start there overlaps it");
    }

    public NamespaceInfo info() {
        return client.rpc("namespaceInfo", () -> client.master().namespaceInfo(client.session(), id));
    }

    @Override
    public String toString() {
        return "Namespace[" + name + "#" + id + "]";
    }
}
