package io.rstore;

import io.rstore.internal.ClientMetrics;
import io.rstore.memory.LocalMemory;
import io.rstore.protocol.ChunkLocation;
import io.rstore.protocol.SegmentInfo;
import io.rstore.transport.Endpoint;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Local RDMA-ready memory standing for a range of a remote segment. {@link #read} pulls
 * remote bytes into {@link #segment()}, {@link #write} pushes them out: one-sided
 * operations, split at chunk boundaries by arithmetic and posted to every server at once.
 * The data path allocates nothing and looks nothing up.
 *
 * <p>Reads and writes are not ordered across clients; coordinate with a barrier. Several
 * threads may use one mapping; an operation must not be in flight when it is closed.
 * Local bytes are undefined until first read (see {@link MapFlags#PREFETCH}). A
 * {@link MapFlags#DIRECT} mapping that the transport can serve so is the chunk's own bytes
 * instead: read-only, never copied.
 */
public final class Mapping implements AutoCloseable {
    private static final VarHandle OWN_BUSY;

    static {
        try {
            OWN_BUSY = MethodHandles.lookup().findVarHandle(Mapping.class, "ownBusy", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final RStore client;
    private final RAddress raddress;
    private final long offset;
    private final long length;
    private final boolean readOnly;
    private final boolean localReadOnly;
    private final boolean direct;            // local is the chunk's own memory (MapFlags.DIRECT): nothing to move for a read
    private final LocalMemory.Block block; // null when the caller gave the local memory
    private final MemorySegment local;
    private final LocalMemory.Block bounce; // read-only memory the transport could not register: writes go out through this
    private final int localKey;              // what the transport registered the local memory (or the bounce block) under

    // Routing, resolved once at map time: namespace address = base + local offset;
    // chunk (address >>> shift) - firstChunk indexes the arrays below.
    private final long base;
    private final int shift;
    private final long chunkMask;
    private final long firstChunk;
    private final Endpoint[] endpoints;
    private final int[] chunkIds;
    private final long[] keys;

    private final long timeoutNanos;
    private final ClientMetrics metrics;
    private final Completion own = new Completion();
    @SuppressWarnings("unused") // accessed through OWN_BUSY
    private volatile int ownBusy;
    private int readTick; // racy by design: they only pick which operations to time
    private int writeTick;
    private volatile boolean closed;

    Mapping(RStore client, RAddress raddress, SegmentInfo segment, long offset, long length, int flags, MemorySegment given) {
        this.client = client;
        this.raddress = raddress;
        this.offset = offset;
        this.length = length;
        this.readOnly = (flags & MapFlags.READ_ONLY) != 0;
        this.base = segment.address() + offset;
        this.shift = Long.numberOfTrailingZeros(segment.chunkSizeBytes());
        this.chunkMask = segment.chunkSizeBytes() - 1;
        this.firstChunk = base >>> shift;
        int chunks = (int) (((base + length - 1) >>> shift) - firstChunk + 1);
        this.endpoints = new Endpoint[chunks];
        this.chunkIds = new int[chunks];
        this.keys = new long[chunks];
        for (ChunkLocation chunk : segment.chunks()) {
            long i = chunk.index() - firstChunk;
            if (i >= 0 && i < chunks) {
                endpoints[(int) i] = client.endpoint(chunk.serverId());
                chunkIds[(int) i] = chunk.chunkId();
                keys[(int) i] = chunk.key();
            }
        }
        for (int i = 0; i < chunks; i++) {
            if (endpoints[i] == null) {
                throw ErrorCode.UNKNOWN.exception("the master sent no location for chunk " + (firstChunk + i) + " of " + raddress);
            }
        }
        this.timeoutNanos = client.operationTimeoutNanos();
        this.metrics = client.clientMetrics();
        MemorySegment view = (flags & MapFlags.DIRECT) != 0 && chunks == 1 ? endpoints[0].view(chunkIds[0], keys[0], base & chunkMask, length) : null;
        this.direct = view != null;
        this.block = given == null && !direct ? client.localMemory().allocate(length) : null;
        this.local = direct ? view : given == null ? block.segment() : given.asSlice(0, length);
        this.localReadOnly = local.isReadOnly() && !direct; // a direct mapping's reads move nothing, so need no writable memory
        // memory the caller gave is registered for this mapping alone, and let go with it
        LocalMemory.Block through = null;
        int key;
        if (direct) {
            key = -1; // nothing of ours is registered
        } else if (given == null) {
            key = block.localKey();
        } else {
            try {
                key = client.localRegistrar().register(local);
            } catch (RStoreException e) {
                if (!localReadOnly) {
                    throw e;
                }
                // a device may refuse read-only memory (Linux before 6.2 cannot pin a read-only shared file
                // mapping for RDMA): then writes copy it into registered local memory first, nothing else changes
                through = client.localMemory().allocate(length);
                key = through.localKey();
            }
        }
        this.bounce = through;
        this.localKey = key;
        client.track(this);
    }

    /** The local memory: {@link #length()} bytes, byte {@code i} standing for segment byte {@code offset()+i}. */
    public MemorySegment segment() {
        return local;
    }

    public RAddress raddress() {
        return raddress;
    }

    /** Where the mapped range starts within the segment. */
    public long offset() {
        return offset;
    }

    public long length() {
        return length;
    }

    /**
     * Whether the local memory is the server's chunk itself ({@link MapFlags#DIRECT} where the
     * transport reaches it): reads move nothing, and others' writes show at once.
     */
    public boolean isDirect() {
        return direct;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    /** Pulls the whole mapped range from remote memory. */
    public void read() {
        read(0, length);
    }

    /** Pushes the whole mapped range to remote memory. */
    public void write() {
        write(0, length);
    }

    /** Pulls remote bytes {@code [offset, offset+length)} of the mapping into the local memory; waits for them. */
    public void read(long offset, long length) {
        transfer(false, offset, length);
    }

    /** Pushes local bytes {@code [offset, offset+length)} of the mapping to remote memory; waits until done. */
    public void write(long offset, long length) {
        transfer(true, offset, length);
    }

    /** Posts a read and returns; {@code completion} reports when it is done. */
    public void readAsync(long offset, long length, Completion completion) {
        postAsync(false, offset, length, completion);
    }

    /** Posts a write and returns; {@code completion} reports when it is done. */
    public void writeAsync(long offset, long length, Completion completion) {
        postAsync(true, offset, length, completion);
    }

    /**
     * Makes the remote bytes {@code [offset, offset+length)} of the mapping durable: returns
     * once every memory server holding part of them has flushed them to its persistence
     * directory (one control call, like RDMA FLUSH or pmem_persist). Write first: this
     * persists what the servers hold, not this mapping's local memory. Bytes written without
     * a persist survive the server's process dying (they are in the kernel's page cache) but
     * not its host crashing or losing power. UNSUPPORTED when part of the range lies on a
     * server without a persistence directory (see {@link NamespaceFlags#DURABLE}).
     */
    public void persist(long offset, long length) {
        if (closed) {
            throw ErrorCode.CLOSED.exception("persist on a closed mapping of " + raddress);
        }
        if (offset < 0 || length <= 0 || length > this.length - offset) {
            throw ErrorCode.OUT_OF_BOUNDS.exception("persist of " + length + " bytes at offset " + offset + " of a " + this.length
                    + "-byte mapping of " + raddress);
        }
        Namespace ns = raddress.namespace();
        client.rpc("persist", () -> {
            client.master().persist(client.session(), ns.id(), base + offset, length);
            return null;
        });
    }

    /** {@link #persist} on a thread of its own: the future completes when the range is durable, or with the error. */
    public CompletableFuture<Void> persistAsync(long offset, long length) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        // a platform thread: a virtual one's socket read starts the JDK's poller thread, which waits in
        // native code for good, and a JVM with a thread in native code waits 300 ms before it exits
        Thread.ofPlatform().name("rstore-persist").daemon().start(() -> {
            try {
                persist(offset, length);
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private void transfer(boolean write, long offset, long length) {
        int invalid = validate(write, offset, length);
        if (invalid != 0) {
            throw failure(invalid, write, offset, length);
        }
        boolean timed = metrics != null && ((write ? ++writeTick : ++readTick) & (MetricNames.LATENCY_SAMPLE_EVERY - 1)) == 0;
        long start = timed ? System.nanoTime() : 0;
        Completion completion = OWN_BUSY.compareAndSet(this, 0, 1) ? own : new Completion();
        int status;
        try {
            completion.arm(pieces(offset, length), timeoutNanos);
            post(write, offset, length, completion);
            status = completion.await();
        } finally {
            if (completion == own) {
                ownBusy = 0;
            }
        }
        if (status != 0) {
            throw failure(status, write, offset, length);
        }
        if (metrics != null && !direct) {
            (write ? metrics.writeBytes : metrics.readBytes).mark(length);
            if (timed) {
                (write ? metrics.writeLatency : metrics.readLatency).update(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            }
        }
    }

    private void postAsync(boolean write, long offset, long length, Completion completion) {
        int invalid = validate(write, offset, length);
        if (invalid != 0) {
            throw failure(invalid, write, offset, length);
        }
        completion.arm(pieces(offset, length), timeoutNanos);
        post(write, offset, length, completion);
        meter(write, length);
    }

    /** Counts bytes moved by an operation not timed here (async forms, batches). */
    void meter(boolean write, long length) {
        if (metrics != null && !direct) {
            (write ? metrics.writeBytes : metrics.readBytes).mark(length);
        }
    }

    /** Returns an {@link ErrorCode} number: 0 when the operation may be posted. */
    int validate(boolean write, long offset, long length) {
        if (closed) {
            return ErrorCode.CLOSED.code();
        }
        if (write ? readOnly : localReadOnly) {
            return ErrorCode.READ_ONLY.code();
        }
        if (offset < 0 || length < 0 || length > this.length - offset) {
            return ErrorCode.OUT_OF_BOUNDS.code();
        }
        return 0;
    }

    /** How many chunk pieces the range splits into: none for a direct mapping, whose reads (its only operations) move nothing. */
    int pieces(long offset, long length) {
        if (length == 0 || direct) {
            return 0;
        }
        long first = base + offset;
        return (int) (((first + length - 1) >>> shift) - (first >>> shift) + 1);
    }

    /** Posts one piece per chunk touched; every server gets its pieces before any completes. */
    void post(boolean write, long offset, long length, Completion completion) {
        if (direct) {
            return; // a read of the server's own bytes: they are there
        }
        MemorySegment local = this.local;
        if (bounce != null) { // read-only memory the device would not register: written out from a copy
            MemorySegment.copy(local, offset, bounce.segment(), offset, length);
            local = bounce.segment();
        }
        long address = base + offset;
        long localOffset = offset;
        long remaining = length;
        while (remaining > 0) {
            int i = (int) ((address >>> shift) - firstChunk);
            long within = address & chunkMask;
            long piece = Math.min(remaining, chunkMask + 1 - within);
            if (write) {
                endpoints[i].postWrite(chunkIds[i], keys[i], within, local, localKey, localOffset, piece, completion);
            } else {
                endpoints[i].postRead(chunkIds[i], keys[i], within, local, localKey, localOffset, piece, completion);
            }
            address += piece;
            localOffset += piece;
            remaining -= piece;
        }
    }

    /**
     * Writes {@code length} bytes of {@code file} from {@code fileOffset} to the mapping's
     * range from {@code offset}, chunk piece by chunk piece, each copied by the kernel where
     * the transport can ({@link Endpoint#writeFromFile}). Returns false, having written what it
     * could, if a piece's transport cannot: then the caller writes the range from memory.
     */
    boolean writeFromFile(FileChannel file, long fileOffset, long offset, long length) {
        int invalid = validate(true, offset, length);
        if (invalid != 0) {
            throw failure(invalid, true, offset, length);
        }
        long address = base + offset;
        for (long done = 0; done < length; ) {
            int i = (int) ((address >>> shift) - firstChunk);
            long within = address & chunkMask;
            long piece = Math.min(length - done, chunkMask + 1 - within);
            int status = endpoints[i].writeFromFile(chunkIds[i], keys[i], within, file, fileOffset + done, piece);
            if (status < 0) {
                return false;
            }
            if (status != 0) {
                throw failure(status, true, offset + done, piece);
            }
            meter(true, piece);
            address += piece;
            done += piece;
        }
        return true;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    RStoreException failure(int status, boolean write, long offset, long length) {
        return new RStoreException(ErrorCode.of(status), (write ? "write" : "read") + " of " + length + " bytes at offset "
                + offset + " of a " + this.length + "-byte mapping of " + raddress + " failed");
    }

    /**
     * Drops the master's reference and gives the local memory back to the cache. Idempotent.
     * With the master unreachable it still succeeds: the local memory is given back, and a
     * master drops the references of a client whose connection ended.
     */
    public void unmap() {
        if (closed) {
            return;
        }
        releaseLocal();
        if (!client.isClosed()) {
            Namespace ns = raddress.namespace();
            try {
                client.rpc("unmap", () -> {
                    client.master().unmap(client.session(), ns.id(), raddress.address());
                    return null;
                });
            } catch (RStoreException e) {
                if (!RStore.masterGone(e)) {
                    throw e;
                }
            }
        }
    }

    /** Same as {@link #unmap()}. */
    @Override
    public void close() {
        unmap();
    }

    /** Local half of unmap; the client's close drops master references in bulk. */
    synchronized void releaseLocal() {
        if (!closed) {
            closed = true;
            client.untrack(this);
            if (block != null) {
                client.localMemory().free(block);
            } else if (bounce != null) {
                client.localMemory().free(bounce);
            } else if (!direct) {
                client.localRegistrar().deregister(localKey);
            }
        }
    }

    @Override
    public String toString() {
        return "Mapping[" + raddress + " offset " + offset + " length " + length + (direct ? " direct]" : readOnly ? " read-only]" : "]");
    }
}
