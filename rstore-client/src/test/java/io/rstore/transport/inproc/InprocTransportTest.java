package io.rstore.transport.inproc;

import io.rstore.protocol.ServerInfo;
import io.rstore.transport.Endpoint;
import io.rstore.transport.RegionTable;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InprocTransportTest {

    /** A view is checked as a read is: the right id, key and range of a server that is online, else none. */
    @Test
    void shouldViewAChunksOwnBytesOnlyWithItsKeyWithinItsRangeWhileOnline() {
        try (Arena arena = Arena.ofConfined()) {
            RegionTable table = new RegionTable();
            MemorySegment chunk = arena.allocate(4096);
            int id = table.register(chunk);
            long key = table.key(id);
            ServerInfo server = new ServerInfo(0, "inproc", "", "", 4096, 0, true, false);
            Endpoint endpoint = new InprocTransport(serverId -> table).connect(server, serverId -> server);

            chunk.set(ValueLayout.JAVA_LONG, 1024, 42L);
            MemorySegment view = endpoint.view(id, key, 1024, 64);
            assertEquals(64, view.byteSize());
            assertTrue(view.isReadOnly());
            assertEquals(42L, view.get(ValueLayout.JAVA_LONG, 0));
            chunk.set(ValueLayout.JAVA_LONG, 1024, 43L);
            assertEquals(43L, view.get(ValueLayout.JAVA_LONG, 0), "the chunk itself, not a copy");
            assertThrows(IllegalArgumentException.class, () -> view.set(ValueLayout.JAVA_LONG, 0, 1L));

            assertNull(endpoint.view(id, key ^ 1, 1024, 64), "a wrong key");
            assertNull(endpoint.view(id + 1, key, 0, 64), "no such chunk");
            assertNull(endpoint.view(id, key, 4090, 64), "past the chunk's end");
            assertNull(endpoint.view(id, key, -8, 64), "before its start");
            table.setOnline(false);
            assertNull(endpoint.view(id, key, 0, 64), "an offline server");
            table.setOnline(true);
            table.rekey(id);
            assertNull(endpoint.view(id, key, 0, 64), "a revoked key");
        }
    }
}
