package io.rstore.transport;

import io.rstore.Completion;

import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;

/**
 * A client's connection to one memory server, shared by all its mappings. Posting is the
 * data path: it must not allocate, block for long, or throw; each posted piece ends in
 * exactly one {@link Completion#complete(int)} call, in posting order per endpoint.
 */
public interface Endpoint extends AutoCloseable {

    /**
     * Copies {@code length} bytes at {@code remoteOffset} of the remote chunk into {@code local}
     * at {@code localOffset}; {@code localKey} is what {@link Transport#localRegistrar()}
     * registered the memory under that {@code local} is part of.
     */
    void postRead(int chunkId, long key, long remoteOffset, MemorySegment local, int localKey, long localOffset, long length, Completion completion);

    /** Copies {@code length} bytes of {@code local} (registered under {@code localKey}) to {@code remoteOffset} of the remote chunk. */
    void postWrite(int chunkId, long key, long remoteOffset, MemorySegment local, int localKey, long localOffset, long length, Completion completion);

    /**
     * The chunk's own bytes {@code [remoteOffset, remoteOffset + length)}, read-only, where
     * this transport reaches the server's memory itself, checked as a read would be (id, key,
     * range, the server alive); null where every access is a copy (the default) or the check
     * fails, so the caller copies and a failed read says why. What it returns stays readable
     * while the endpoint is open (see {@link io.rstore.MapFlags#DIRECT}).
     */
    default MemorySegment view(int chunkId, long key, long remoteOffset, long length) {
        return null;
    }

    /**
     * Writes {@code length} bytes of {@code file} from {@code fileOffset} to
     * {@code remoteOffset} of the chunk by having the kernel copy them, where this transport
     * can (the chunk is a file here: shm), checked as a write is; returns an
     * {@link io.rstore.ErrorCode} number, or -1 where it cannot (the default), and then the
     * caller writes them through a mapping of the file. Blocks until they are written: a
     * control-path operation (a graph loaded from its cache file), not a post.
     */
    default int writeFromFile(int chunkId, long key, long remoteOffset, FileChannel file, long fileOffset, long length) {
        return -1;
    }

    /**
     * Makes progress on operations in flight without blocking: a transport that needs the
     * caller's CPU to complete them (tcp reading its answers) does it here, the way RDMA
     * programs poll their completion queues. Returns whether anything completed.
     * Transports that complete on their own return false.
     */
    default boolean poll() {
        return false;
    }

    @Override
    void close();
}
