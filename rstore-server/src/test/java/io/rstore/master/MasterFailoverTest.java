package io.rstore.master;

import io.rstore.ErrorCode;
import io.rstore.protocol.ChunkLocation;
import io.rstore.protocol.ChunkService;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.SegmentInfo;
import io.rstore.server.MemoryServer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A memory server found dead by a chunk call (before the heartbeat) is marked so, and the others serve the request. */
class MasterFailoverTest {
    private static final long CHUNK = 1 << 20;

    /** A server whose process has gone: every call fails as a lost connection does. */
    private static final class Gone implements ChunkService {
        private final MemoryServer memory = new MemoryServer(64 * CHUNK);
        boolean gone;

        private void check() {
            if (gone) {
                throw ErrorCode.SERVER_UNAVAILABLE.exception("lost the connection to the memory server at 10.0.0.9:7402");
            }
        }

        @Override
        public Grant allocateChunk(long bytes) {
            check();
            return memory.allocateChunk(bytes);
        }

        @Override
        public long recycle(int chunkId) {
            check();
            return memory.recycle(chunkId);
        }

        @Override
        public void zero(int chunkId, long offset, long length) {
            check();
            memory.zero(chunkId, offset, length);
        }

        @Override
        public void releaseChunk(int chunkId) {
            check();
            memory.releaseChunk(chunkId);
        }

        @Override
        public long capacityBytes() {
            return memory.capacityBytes();
        }

        @Override
        public long usedBytes() {
            return memory.usedBytes();
        }
    }

    @Test
    void shouldReserveOnTheLiveServersWhenOneTurnsOutDead() {
        Master master = new Master(CHUNK);
        try (MemoryServer live = new MemoryServer(64 * CHUNK)) {
            Gone gone = new Gone();
            master.registerServer("inproc://t/0", live);
            master.registerServer("inproc://t/1", gone);
            long session = master.openSession("test");
            NamespaceInfo ns = master.createNamespace(session, "n", 0);
            SegmentInfo first = master.alloc(session, ns.id(), 2 * CHUNK, io.rstore.AllocFlags.GROW);
            assertEquals(2, first.chunks().stream().map(ChunkLocation::serverId).distinct().count(), "striped over both");

            gone.gone = true;
            SegmentInfo second = master.alloc(session, ns.id(), 4 * CHUNK, io.rstore.AllocFlags.GROW);
            assertTrue(second.chunks().stream().allMatch(c -> c.serverId() == 0), "all new chunks on the live server: " + second.chunks());
            assertFalse(master.servers().get(1).alive(), "the dead server is marked so");

            // freeing a segment with a chunk on the dead server and releasing the namespace still works
            master.free(session, ns.id(), first.address());
            master.deleteNamespace(session, "n");
            assertEquals(0, master.namespaces(session).size());
            gone.memory.close();
        }
    }
}
