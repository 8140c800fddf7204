package io.rstore.conformance;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.protocol.ChunkLocation;
import io.rstore.protocol.ServerInfo;
import io.rstore.transport.rdma.MemoryRegion;
import io.rstore.transport.rdma.QueuePair;
import io.rstore.transport.rdma.RdmaDevice;
import io.rstore.transport.rdma.RdmaEnvironment;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A memory server's RDMA listener seen by a raw client that speaks the wire protocol
 * itself (a chunk resolve is {@code chunkId i32, key i64}; its answer {@code status i32,
 * address i64, length i64, rkey i32}), on the emulated device and, in bin/test-rdma's
 * guest, on SoftRoCE.
 */
@Timeout(120)
class RdmaListenerTest {
    private static final int SECRET_BYTES = 4096;

    static Stream<String> rdmaTransports() {
        return TestCluster.transports().filter(t -> t.equals("rdma") || t.equals("disni"));
    }

    @ParameterizedTest
    @MethodSource("rdmaTransports")
    void shouldAnswerAWrongKeyWithItsStatusAndNothingOfAnotherChunk(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore victim = cluster.client();
            RAddress secret = victim.createNamespace("victim").alloc(SECRET_BYTES, AllocFlags.GROW);
            try (Mapping m = secret.map(MapFlags.NONE)) {
                for (long at = 0; at < SECRET_BYTES; at += 8) {
                    m.segment().set(ValueLayout.JAVA_LONG, at, 0x5EC7E7L * (at + 1));
                }
                m.write();
                m.read(); // the server has just resolved the victim's chunk
            }
            ChunkLocation chunk = cluster.locate(secret).chunks().getFirst();
            ServerInfo server = victim.servers().stream().filter(s -> s.id() == chunk.serverId()).findFirst().orElseThrow();
            URI listener = URI.create(server.rdma());
            try (RdmaDevice device = RdmaEnvironment.open(listener.getScheme(), "");
                 Arena arena = Arena.ofShared()) {
                long[] completion = {-1, -1};
                QueuePair qp = connect(device, listener, completion);
                MemorySegment landing = arena.allocate(SECRET_BYTES, 4096);
                MemoryRegion local = device.register(landing); // after connecting: DiSNI has a protection domain only then
                try {
                    // the right key: the harness reaches the listener and reads what the victim wrote
                    ByteBuffer granted = resolve(qp, chunk.chunkId(), chunk.key());
                    assertEquals(ErrorCode.NONE.code(), granted.getInt(0));
                    assertNotEquals(0, granted.getLong(12), "a granted resolve names the chunk's length");

                    // wrong keys, for the victim's chunk and for chunks that are not there
                    long[][] attempts = {{chunk.chunkId(), chunk.key() + 1}, {chunk.chunkId(), 0}, {chunk.chunkId() + 1, 0}, {12_345, 42}};
                    for (long[] attempt : attempts) {
                        ByteBuffer refused = resolve(qp, (int) attempt[0], attempt[1]);
                        String what = "chunk " + attempt[0] + " under key " + attempt[1];
                        assertEquals(ErrorCode.UNAUTHORIZED.code(), refused.getInt(0), what);
                        assertEquals(24, refused.remaining(), what);
                        assertEquals(0, refused.getLong(4), what + ": the answer named an address");
                        assertEquals(0, refused.getLong(12), what + ": the answer named a length");
                        assertEquals(0, refused.getInt(20), what + ": the answer named an rkey");
                        // and whatever it named, a one-sided READ with it brings none of the victim's bytes
                        landing.fill((byte) 0);
                        qp.postRead(7, landing.address(), local.lkey(), refused.getLong(4), refused.getInt(20), SECRET_BYTES);
                        long deadline = System.nanoTime() + 10_000_000_000L * TestCluster.TIME_SCALE;
                        while (completion[0] != 7 && System.nanoTime() < deadline) {
                            qp.poll();
                        }
                        assertNotEquals(QueuePair.SUCCESS, completion[1], what + ": a READ with the refused answer succeeded");
                        assertEquals(0, landing.get(ValueLayout.JAVA_LONG, 0), what);
                        completion[0] = -1;
                        if (qp.failed()) { // a failed READ errors the queue pair, as a real one does: go on on a new one
                            qp.close();
                            qp = connect(device, listener, completion);
                        }
                    }
                } finally {
                    qp.close();
                    device.deregister(local);
                }
            }
        }
    }

    /** A queue pair whose last completion lands in {@code completion} (work request id, status). */
    private static QueuePair connect(RdmaDevice device, URI listener, long[] completion) {
        return device.connect(new InetSocketAddress(listener.getHost(), listener.getPort()), 10_000L * TestCluster.TIME_SCALE,
                (wrId, status) -> {
                    completion[0] = wrId;
                    completion[1] = status;
                });
    }

    private static ByteBuffer resolve(QueuePair qp, int chunkId, long key) {
        ByteBuffer request = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(chunkId).putLong(key).flip();
        return qp.call(request, 10_000L * TestCluster.TIME_SCALE).order(ByteOrder.LITTLE_ENDIAN);
    }
}
