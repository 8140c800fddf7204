package io.rstore.conformance;

import io.rstore.AllocFlags;
import io.rstore.Batch;
import io.rstore.Completion;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.MetricNames;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.protocol.ChunkLocation;
import io.rstore.protocol.SegmentInfo;
import io.rstore.protocol.ServerInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;

import static io.rstore.conformance.Expect.error;
import static io.rstore.conformance.TestCluster.CHUNK;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MappingConformanceTest {

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldShowOneClientsWriteToAnother(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            Namespace mine = cluster.client().createNamespace("share");
            RAddress seg = mine.alloc(4096, AllocFlags.GROW);
            Namespace theirs = cluster.client().joinNamespace("share");
            try (Mapping w = seg.map(MapFlags.NONE); Mapping r = theirs.raddress(seg.address()).map(MapFlags.NONE)) {
                w.segment().set(ValueLayout.JAVA_LONG, 4088, 0xCAFE_F00DL);
                w.write(4088, 8);
                r.read(4088, 8);
                assertEquals(0xCAFE_F00DL, r.segment().get(ValueLayout.JAVA_LONG, 4088));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldStripeChunksRoundRobinAcrossServers(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 3)) {
            RStore client = cluster.client();
            Namespace ns = client.createNamespace("stripes");
            RAddress seg = ns.alloc(6 * CHUNK, AllocFlags.GROW);
            SegmentInfo info = cluster.locate(seg);
            List<ChunkLocation> chunks = info.chunks();
            assertEquals(6, chunks.size());
            for (int i = 0; i < 6; i++) {
                assertEquals(i, chunks.get(i).index());
                assertEquals((chunks.get(0).serverId() + i) % 3, chunks.get(i).serverId(), "chunk " + i);
            }
            for (ServerInfo server : client.servers()) {
                assertEquals(2 * CHUNK, server.usedBytes(), "server " + server.id());
            }
            // released chunks come back on the same servers, from their pools: no server grows
            ns.free(seg);
            ns.release(4 * CHUNK);
            RAddress again = ns.alloc(6 * CHUNK, AllocFlags.GROW);
            List<ChunkLocation> reused = cluster.locate(again).chunks();
            for (int i = 0; i < 6; i++) {
                assertEquals(chunks.get(i).serverId(), reused.get(i).serverId(), "chunk " + i + " after release");
            }
            for (ServerInfo server : client.servers()) {
                assertEquals(2 * CHUNK, server.usedBytes(), "server " + server.id() + " after release");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldSplitTransfersAtChunkBoundariesAndReassembleThem(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 3)) {
            Namespace ns = cluster.client().createNamespace("split");
            ns.reserve(64);
            ns.alloc(1000); // so the big segment starts mid-chunk
            long length = 5 * CHUNK + 777;
            RAddress seg = ns.alloc(length, AllocFlags.GROW);
            byte[] data = new byte[(int) length];
            new Random(1).nextBytes(data);
            try (Mapping whole = seg.map(MapFlags.NONE)) {
                MemorySegment.copy(MemorySegment.ofArray(data), 0, whole.segment(), 0, length);
                whole.write();
            }
            long offset = CHUNK - 5; // a partial mapping crossing every boundary off-alignment
            long part = 3 * CHUNK + 10;
            Namespace other = cluster.client().joinNamespace("split");
            try (Mapping m = RAddress.init(other, seg.address()).map(offset, part, MapFlags.PREFETCH)) {
                byte[] got = m.segment().toArray(ValueLayout.JAVA_BYTE);
                byte[] want = java.util.Arrays.copyOfRange(data, (int) offset, (int) (offset + part));
                assertArrayEquals(want, got);
                // a small write straddling a boundary lands on both chunks
                m.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 1, -1L);
                m.write(1, 8);
            }
            try (Mapping check = seg.map(MapFlags.PREFETCH)) {
                assertEquals(-1L, check.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 1));
                assertEquals(data[(int) offset], check.segment().get(ValueLayout.JAVA_BYTE, offset));
                assertEquals(data[(int) offset + 9], check.segment().get(ValueLayout.JAVA_BYTE, offset + 9));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRejectOperationsOutsideTheMapping(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RAddress seg = cluster.client().createNamespace("b").alloc(1024, AllocFlags.GROW);
            try (Mapping m = seg.map(512, 256, MapFlags.NONE)) {
                error(ErrorCode.OUT_OF_BOUNDS, () -> m.read(0, 257));
                error(ErrorCode.OUT_OF_BOUNDS, () -> m.read(250, 8));
                error(ErrorCode.OUT_OF_BOUNDS, () -> m.write(-1, 1));
                error(ErrorCode.OUT_OF_BOUNDS, () -> m.write(8, Long.MAX_VALUE));
                error(ErrorCode.OUT_OF_BOUNDS, () -> m.readAsync(256, 1, new Completion()));
                m.read(248, 8);
                m.read(256, 0);
            }
        }
    }

    /**
     * MapFlags.DIRECT: on inproc and shm a range within one chunk is the server's own bytes
     * (others' writes show without a read, nothing is counted as moved); tcp and RDMA, and a
     * range across chunks anywhere, copy as a read-only mapping does. Either way reads see
     * the bytes, writes are refused, and the segment stays pinned while mapped.
     */
    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldMapTheServersOwnBytesWhereTheTransportReachesThemAndCopyElsewhere(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            RStore client = cluster.client();
            Namespace ns = client.createNamespace("direct");
            RAddress seg = ns.alloc(3 * CHUNK, AllocFlags.GROW);
            byte[] data = new byte[(int) (3 * CHUNK)];
            new Random(7).nextBytes(data);
            try (Mapping writer = seg.map(MapFlags.NONE)) {
                MemorySegment.copy(MemorySegment.ofArray(data), 0, writer.segment(), 0, data.length);
                writer.write();
                boolean reaches = transport.equals("inproc") || transport.equals("shm");
                long at = CHUNK + 100; // inside the second chunk, on the second server
                try (Mapping m = seg.map(at, 1000, MapFlags.READ_ONLY | MapFlags.DIRECT | MapFlags.PREFETCH)) {
                    assertEquals(reaches, m.isDirect(), transport);
                    assertArrayEquals(java.util.Arrays.copyOfRange(data, (int) at, (int) at + 1000), m.segment().toArray(ValueLayout.JAVA_BYTE));
                    writer.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, 0x5EED_CAFEL);
                    writer.write(at + 8, 8);
                    long readBefore = client.metrics().meter(MetricNames.READ_BYTES).getCount();
                    if (reaches) { // the server's bytes as they stand, with no read: nothing moved, nothing counted
                        assertEquals(0x5EED_CAFEL, m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
                    }
                    m.read(8, 8);
                    new Batch().read(m, 0, 16).join();
                    assertEquals(0x5EED_CAFEL, m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
                    assertEquals(readBefore + (reaches ? 0 : 24), client.metrics().meter(MetricNames.READ_BYTES).getCount());
                    error(ErrorCode.READ_ONLY, m::write);
                    error(ErrorCode.READ_ONLY, () -> new Batch().write(m, 0, 8));
                    if (reaches) {
                        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                                () -> m.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 1));
                    }
                }
                try (Mapping across = seg.map(CHUNK - 8, 16, MapFlags.READ_ONLY | MapFlags.DIRECT | MapFlags.PREFETCH)) {
                    assertEquals(false, across.isDirect(), "a range across chunks is copied");
                    assertArrayEquals(java.util.Arrays.copyOfRange(data, (int) CHUNK - 8, (int) CHUNK + 8), across.segment().toArray(ValueLayout.JAVA_BYTE));
                }
                error(ErrorCode.INVALID_ARGUMENT, () -> seg.map(0, 8, MapFlags.DIRECT));
                error(ErrorCode.INVALID_ARGUMENT, () -> seg.map(0, 8, MapFlags.READ_ONLY | MapFlags.DIRECT, MemorySegment.ofArray(new byte[8])));
            }
            try (Mapping pinned = seg.map(0, 64, MapFlags.READ_ONLY | MapFlags.DIRECT)) {
                error(ErrorCode.SEGMENT_IN_USE, () -> ns.free(seg)); // a direct mapping pins its segment as any mapping does
            }
            ns.free(seg);
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseWritesThroughAReadOnlyMapping(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RAddress seg = cluster.client().createNamespace("ro").alloc(64, AllocFlags.GROW);
            try (Mapping m = seg.map(MapFlags.READ_ONLY)) {
                assertTrue(m.isReadOnly());
                m.read();
                error(ErrorCode.READ_ONLY, m::write);
                error(ErrorCode.READ_ONLY, () -> new Batch().write(m, 0, 8));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldFailOperationsOnAClosedMappingOrClient(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore client = cluster.client();
            RAddress seg = client.createNamespace("c").alloc(64, AllocFlags.GROW);
            Mapping m = seg.map(MapFlags.NONE);
            m.unmap();
            m.unmap(); // idempotent
            error(ErrorCode.CLOSED, m::read);
            Mapping n = seg.map(MapFlags.NONE);
            client.close();
            error(ErrorCode.CLOSED, n::write);
            error(ErrorCode.CLOSED, () -> client.createNamespace("d"));
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldZeroSegmentsOnRequestAndChunksWhenTheyChangeNamespace(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore client = cluster.client();
            Namespace first = client.createNamespace("first");
            RAddress seg = first.alloc(CHUNK, AllocFlags.GROW);
            try (Mapping m = seg.map(MapFlags.NONE)) {
                m.segment().fill((byte) 0x5A);
                m.write();
            }
            first.free(seg);
            try (Mapping m = first.alloc(CHUNK, AllocFlags.ZERO).map(MapFlags.PREFETCH)) {
                assertEquals(0, countNonZero(m.segment()), "ZERO clears what an earlier segment left");
                m.segment().fill((byte) 0x77);
                m.write();
            }
            client.deleteNamespace("first");
            Namespace second = client.createNamespace("second");
            try (Mapping m = second.alloc(CHUNK, AllocFlags.GROW).map(MapFlags.PREFETCH)) {
                assertEquals(0, countNonZero(m.segment()), "no bytes leak from another namespace");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldKeepManyOperationsInFlightWithBatchesAndAsyncCalls(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            Namespace ns = cluster.client().createNamespace("many");
            int count = 64;
            Mapping[] maps = new Mapping[count];
            for (int i = 0; i < count; i++) {
                maps[i] = ns.alloc(CHUNK / 2 + 64 * i, AllocFlags.GROW).map(MapFlags.NONE);
                maps[i].segment().fill((byte) i);
            }
            Batch batch = new Batch();
            for (int round = 0; round < 3; round++) {
                for (Mapping m : maps) {
                    batch.write(m, 0, m.length());
                }
                assertEquals(count, batch.size());
                batch.join();
                assertEquals(0, batch.size(), "a batch empties itself for reuse");
            }
            for (Mapping m : maps) {
                m.segment().fill((byte) -1);
                batch.read(m, 0, m.length());
            }
            assertEquals(0, batch.submit().await());
            for (int i = 0; i < count; i++) {
                assertEquals(0, countNot(maps[i].segment(), (byte) i), "mapping " + i);
            }
            Completion[] completions = new Completion[count];
            for (int i = 0; i < count; i++) {
                maps[i].segment().fill((byte) -1);
                completions[i] = new Completion();
                maps[i].readAsync(0, maps[i].length(), completions[i]);
            }
            for (int i = 0; i < count; i++) {
                completions[i].join();
                assertEquals(0, countNot(maps[i].segment(), (byte) i), "async mapping " + i);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldMapOntoMemoryTheCallerAlreadyHas(String transport) throws Exception {
        try (TestCluster cluster = TestCluster.start(transport, 2); java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            RStore client = cluster.client();
            RAddress seg = client.createNamespace("own").alloc(3 * CHUNK, AllocFlags.GROW);
            MemorySegment mine = arena.allocate(3 * CHUNK);
            mine.fill((byte) 9);
            long heldBefore = client.localMemoryHeldBytes();
            try (Mapping m = seg.map(0, 3 * CHUNK, MapFlags.NONE, mine)) {
                assertEquals(mine.address(), m.segment().address(), "no copy: the mapping is the caller's memory");
                m.write();
            }
            assertEquals(heldBefore, client.localMemoryHeldBytes(), "no local memory was taken");
            assertEquals(9, mine.get(ValueLayout.JAVA_BYTE, 0), "unmap leaves the caller's memory alone");
            try (Mapping check = seg.map(MapFlags.PREFETCH)) {
                assertEquals(0, countNot(check.segment(), (byte) 9));
            }
            // a read-only local (a file mapped read-only) can be written out, not read into
            java.nio.file.Path file = java.nio.file.Files.createTempFile("rstore", ".bin");
            java.nio.file.Files.write(file, new byte[(int) CHUNK]);
            try (var channel = java.nio.channels.FileChannel.open(file)) {
                MemorySegment readOnly = channel.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, CHUNK, arena);
                try (Mapping m = seg.map(0, CHUNK, MapFlags.NONE, readOnly)) {
                    m.write();
                    error(ErrorCode.READ_ONLY, m::read);
                }
            } finally {
                java.nio.file.Files.delete(file);
            }
            error(ErrorCode.OUT_OF_BOUNDS, () -> seg.map(0, 3 * CHUNK, MapFlags.NONE, mine.asSlice(0, CHUNK)));
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRecordDataPathMetrics(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore client = cluster.client();
            try (Mapping m = client.createNamespace("m").alloc(4096, AllocFlags.GROW).map(MapFlags.NONE)) {
                for (int i = 0; i < 10 * MetricNames.LATENCY_SAMPLE_EVERY; i++) {
                    m.write(0, 8);
                    m.read(0, 4096);
                }
            }
            // latency is sampled, one operation in LATENCY_SAMPLE_EVERY; bytes are exact
            assertEquals(10, client.metrics().timer(MetricNames.READ_LATENCY).getCount());
            assertEquals(10, client.metrics().timer(MetricNames.WRITE_LATENCY).getCount());
            assertTrue(client.metrics().timer(MetricNames.READ_LATENCY).getSnapshot().getMedian() > 0);
            assertEquals(4096L * 10 * MetricNames.LATENCY_SAMPLE_EVERY, client.metrics().meter(MetricNames.READ_BYTES).getCount());
            assertEquals(8L * 10 * MetricNames.LATENCY_SAMPLE_EVERY, client.metrics().meter(MetricNames.WRITE_BYTES).getCount());
            assertTrue(client.metrics().meter(MetricNames.READ_BYTES).getMeanRate() > 0);
            try (Mapping m = client.joinNamespace("m").alloc(4096, AllocFlags.GROW).map(MapFlags.NONE)) {
                new Batch().read(m, 0, 1000).write(m, 0, 24).join();
                Completion c = new Completion();
                m.readAsync(0, 7, c);
                c.join();
            }
            assertEquals(4096L * 10 * MetricNames.LATENCY_SAMPLE_EVERY + 1007, client.metrics().meter(MetricNames.READ_BYTES).getCount(),
                    "batches and async reads count their bytes too");
            assertEquals(8L * 10 * MetricNames.LATENCY_SAMPLE_EVERY + 24, client.metrics().meter(MetricNames.WRITE_BYTES).getCount());
            assertTrue(client.metrics().timer(MetricNames.RPC_PREFIX + "alloc").getCount() >= 1);
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseOldCredentialsOnceChunksAreGivenBack(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore client = cluster.client();
            Namespace ns = client.createNamespace("keys");
            RAddress seg = ns.alloc(256, AllocFlags.GROW);
            SegmentInfo before = cluster.locate(seg);
            ChunkLocation chunk = before.chunks().getFirst();
            MemorySegment probe = MemorySegment.ofArray(new byte[8]);
            var regions = cluster.regions(chunk.serverId());
            assertEquals(0, regions.read(chunk.chunkId(), chunk.key(), 0, probe, 0, 8));
            client.deleteNamespace("keys");
            assertEquals(ErrorCode.UNAUTHORIZED.code(), regions.read(chunk.chunkId(), chunk.key(), 0, probe, 0, 8));
            assertEquals(ErrorCode.UNAUTHORIZED.code(), regions.write(chunk.chunkId(), chunk.key(), 0, probe, 0, 8));
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldReportServerUnavailableAndReserveOnLiveServersOnly(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            RStore client = cluster.client();
            Namespace ns = client.createNamespace("fail");
            RAddress seg = ns.alloc(2 * CHUNK, AllocFlags.GROW);
            try (Mapping m = seg.map(MapFlags.NONE)) {
                int dead = cluster.locate(seg).chunks().getFirst().serverId();
                cluster.stopServer(dead);
                error(ErrorCode.SERVER_UNAVAILABLE, m::read);
                error(ErrorCode.SERVER_UNAVAILABLE, m::write); // a refused write's payload must not derail the connection
                error(ErrorCode.SERVER_UNAVAILABLE, m::read);
                assertTrue(client.servers().stream().anyMatch(s -> s.id() == dead && !s.alive()));
                RAddress later = client.createNamespace("after").alloc(3 * CHUNK, AllocFlags.GROW);
                for (ChunkLocation c : cluster.locate(later).chunks()) {
                    assertTrue(c.serverId() != dead, "no chunk goes to a dead server");
                }
            }
        }
    }

    /**
     * Local memory the buddy allocator hands out again at the same address, to a larger
     * mapping, and arenas given back and made anew: every transfer must use the memory as
     * it is now (an RDMA client that cached a registration by address wrote past it).
     */
    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldMoveBytesThroughLocalMemoryReusedForLargerMappings(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, TestCluster.settings(2).withLocalCacheBytes(0))) {
            Namespace ns = cluster.client().createNamespace("reuse");
            long[] sizes = {64, 4096, 3 * CHUNK + 100, 512 * 1024, 2 << 20, 64, 2 << 20};
            for (int round = 0; round < sizes.length; round++) {
                RAddress seg = ns.alloc(sizes[round], AllocFlags.GROW);
                try (Mapping m = seg.map(MapFlags.NONE)) {
                    for (long at = 0; at + 8 <= m.length(); at += 8) {
                        m.segment().set(ValueLayout.JAVA_LONG, at, at * 31 + round);
                    }
                    m.write();
                    m.segment().fill((byte) 0);
                    m.read();
                    for (long at = 0; at + 8 <= m.length(); at += 8) {
                        assertEquals(at * 31 + round, m.segment().get(ValueLayout.JAVA_LONG, at), "round " + round + ", long at " + at);
                    }
                }
                ns.free(seg);
            }
        }
    }

    /**
     * A refused access (a chunk rekeyed under a mapping: on RDMA a remote access error,
     * which breaks the queue pair) fails alone: the client's other mappings on that server go on.
     */
    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldKeepOtherMappingsWorkingAfterARefusedAccess(String transport) {
        org.junit.jupiter.api.Assumptions.assumeFalse(transport.equals("shm"),
                "shm clients keep the pages of the chunk file they mapped: a recycled chunk is a new file, no access is refused");
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore client = cluster.client();
            RAddress stale = client.createNamespace("stale").alloc(4096, AllocFlags.GROW);
            RAddress live = client.createNamespace("live").alloc(4096, AllocFlags.GROW);
            try (Mapping old = stale.map(MapFlags.NONE); Mapping m = live.map(MapFlags.NONE)) {
                old.read();
                m.segment().set(ValueLayout.JAVA_LONG, 0, 77);
                m.write();
                ChunkLocation chunk = cluster.locate(stale).chunks().getFirst();
                cluster.server(chunk.serverId()).recycle(chunk.chunkId()); // new key, new registration: the old credentials die
                error(ErrorCode.UNAUTHORIZED, old::read);
                m.segment().set(ValueLayout.JAVA_LONG, 0, 0);
                m.read();
                assertEquals(77, m.segment().get(ValueLayout.JAVA_LONG, 0));
                m.segment().set(ValueLayout.JAVA_LONG, 8, 78);
                m.write();
                m.segment().fill((byte) 0);
                m.read();
                assertEquals(78, m.segment().get(ValueLayout.JAVA_LONG, 8));
            }
        }
    }

    static long countNonZero(MemorySegment segment) {
        return countNot(segment, (byte) 0);
    }

    static long countNot(MemorySegment segment, byte value) {
        long n = 0;
        for (long i = 0; i < segment.byteSize(); i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, i) != value) {
                n++;
            }
        }
        return n;
    }
}
