package io.rstore.transport.shm;

import io.rstore.Completion;
import io.rstore.ErrorCode;
import io.rstore.protocol.ServerInfo;
import io.rstore.transport.Endpoint;
import io.rstore.transport.Transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * One-sided operations on a memory server of this host through shared memory: the client
 * maps the server's chunk files and copies directly, so the server's CPU takes no part,
 * as with RDMA. The key is checked by naming: a chunk is opened (once, on first access)
 * by the file name its id and key make, so a wrong or revoked key finds no file. The
 * server's heartbeat is checked on every operation, so a killed server's chunks fail with
 * SERVER_UNAVAILABLE within {@link ShmLayout#LEASE_NANOS}. A
 * {@link io.rstore.MapFlags#DIRECT} mapping is the chunk file's pages themselves: checked
 * when it is made, it keeps the pages it had if the server dies (the file stays mapped).
 */
public final class ShmTransport implements Transport {

    @Override
    public String name() {
        return "shm";
    }

    /** Why {@code server} cannot be reached through shm from here, or null if it can. */
    public static String unreachable(ServerInfo server) {
        if (server.shm().isEmpty()) {
            return "it offers no shm chunk files (in-process, or started without rstore.shm.dir)";
        }
        if (ShmLayout.localDirectory(server.shm()) == null) {
            return "its chunk files (" + server.shm() + ") are not on this host";
        }
        return null;
    }

    @Override
    public Endpoint connect(ServerInfo server, Locator locator) { // its chunk files and heartbeat are in its directory, whatever its port
        Transport.checkReachable(server, name(), unreachable(server));
        return new ShmEndpoint(ShmLayout.localDirectory(server.shm()));
    }

    @Override
    public void close() {
    }

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private record Chunk(long key, MemorySegment memory) {
    }

    private static final class ShmEndpoint implements Endpoint {
        private final Path directory;
        private final Arena arena = Arena.ofShared(); // every chunk mapping lives until the endpoint closes
        private final MemorySegment heartbeat;
        private volatile Chunk[] chunks = new Chunk[64];

        ShmEndpoint(Path directory) {
            this.directory = directory;
            try (FileChannel file = FileChannel.open(directory.resolve(ShmLayout.HEARTBEAT_FILE), StandardOpenOption.READ)) {
                this.heartbeat = file.map(FileChannel.MapMode.READ_ONLY, 0, Long.BYTES, arena);
            } catch (IOException e) {
                arena.close();
                throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot open the memory server's heartbeat in " + directory + ": " + e.getMessage());
            }
        }

        @Override
        public void postRead(int chunkId, long key, long remoteOffset, MemorySegment local, int localKey, long localOffset, long length, Completion completion) {
            MemorySegment chunk = checked(chunkId, key, remoteOffset, length);
            completion.complete(chunk == null ? failure(chunkId, key) : copy(chunk, remoteOffset, local, localOffset, length));
        }

        @Override
        public void postWrite(int chunkId, long key, long remoteOffset, MemorySegment local, int localKey, long localOffset, long length, Completion completion) {
            MemorySegment chunk = checked(chunkId, key, remoteOffset, length);
            completion.complete(chunk == null ? failure(chunkId, key) : copy(local, localOffset, chunk, remoteOffset, length));
        }

        @Override
        public MemorySegment view(int chunkId, long key, long remoteOffset, long length) {
            MemorySegment chunk = checked(chunkId, key, remoteOffset, length);
            return chunk == null ? null : chunk.asSlice(remoteOffset, length).asReadOnly();
        }

        /**
         * The kernel copies the file's bytes into the chunk's file, whose pages every mapping
         * of it shares: no page of either is faulted in here (loading livejournal-synthetic for
         * worker processes took 0.67 s instead of 0.9 s, and the loader held 0.7 GB less).
         */
        @Override
        public int writeFromFile(int chunkId, long key, long remoteOffset, FileChannel file, long fileOffset, long length) {
            if (checked(chunkId, key, remoteOffset, length) == null) {
                return failure(chunkId, key);
            }
            try (FileChannel chunk = FileChannel.open(ShmLayout.chunkFile(directory, chunkId, key), StandardOpenOption.WRITE)) {
                chunk.position(remoteOffset);
                for (long done = 0; done < length; ) {
                    long moved = file.transferTo(fileOffset + done, length - done, chunk);
                    if (moved <= 0) {
                        return ErrorCode.OUT_OF_BOUNDS.code(); // the file ended first
                    }
                    done += moved;
                }
                return ErrorCode.NONE.code();
            } catch (IOException e) { // the chunk's file went with its key (recycled) or its server
                return failure(chunkId, key);
            }
        }

        /** The chunk's memory if the server is alive, the key right and the range inside; else null. */
        private MemorySegment checked(int chunkId, long key, long offset, long length) {
            if (!alive() || chunkId < 0) {
                return null;
            }
            Chunk[] table = chunks;
            Chunk chunk = chunkId < table.length ? table[chunkId] : null;
            if (chunk == null || chunk.key() != key) {
                chunk = open(chunkId, key);
                if (chunk == null) {
                    return null;
                }
            }
            MemorySegment memory = chunk.memory();
            return offset >= 0 && length >= 0 && length <= memory.byteSize() - offset ? memory : null;
        }

        private boolean alive() {
            long beat = (long) LONG.getVolatile(heartbeat, 0L);
            return beat != 0 && System.nanoTime() - beat < ShmLayout.LEASE_NANOS;
        }

        /** First access to a chunk (or to its new key): map its file. Null if no file has that id and key. */
        private synchronized Chunk open(int chunkId, long key) {
            Chunk[] table = chunks;
            if (chunkId < table.length && table[chunkId] != null && table[chunkId].key() == key) {
                return table[chunkId];
            }
            Path file = ShmLayout.chunkFile(directory, chunkId, key);
            Chunk chunk;
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                chunk = new Chunk(key, channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena));
            } catch (IOException | IllegalStateException e) { // no such file: a wrong or revoked key
                return null;
            }
            // copy-on-write: readers never lock; a replaced mapping (the chunk got a new key) stays
            // mapped until the endpoint closes, as another thread may still be copying from it
            Chunk[] grown = Arrays.copyOf(table, Math.max(table.length, Integer.highestOneBit(chunkId) * 2));
            grown[chunkId] = chunk;
            chunks = grown;
            return chunk;
        }

        /** Off the fast path: which check failed. */
        private int failure(int chunkId, long key) {
            if (!alive() || !Files.isDirectory(directory)) {
                return ErrorCode.SERVER_UNAVAILABLE.code();
            }
            Chunk[] table = chunks;
            if (chunkId < 0 || chunkId >= table.length || table[chunkId] == null || table[chunkId].key() != key) {
                return ErrorCode.UNAUTHORIZED.code();
            }
            return ErrorCode.OUT_OF_BOUNDS.code();
        }

        private static int copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long length) {
            try {
                MemorySegment.copy(src, srcOffset, dst, dstOffset, length);
                return ErrorCode.NONE.code();
            } catch (IndexOutOfBoundsException e) {
                return ErrorCode.OUT_OF_BOUNDS.code();
            } catch (IllegalStateException e) {
                return ErrorCode.CLOSED.code();
            }
        }

        @Override
        public void close() {
            arena.close();
        }
    }
}
