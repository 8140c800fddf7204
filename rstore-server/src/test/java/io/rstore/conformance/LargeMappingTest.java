package io.rstore.conformance;

import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.transport.rdma.RdmaDevice;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.ValueLayout;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Mappings past 1 GiB over rdma: their local memory is more than DiSNI registers as one
 * region (it takes an int length), so the client registers it in 1 GiB pieces and splits
 * work requests at their edges. The emulated device refuses a region past an int's length
 * as DiSNI does, so these fail here if the pieces are missing. The 2 GiB mapping moves all
 * its bytes, on the emulated device only (through SoftRoCE under QEMU's emulation it would
 * outlast bin/test-rdma's budget); the one past 1 GiB moves a few pages, on disni too.
 */
@Timeout(300)
class LargeMappingTest {
    private static final long MIB = 1 << 20;
    private static final long BYTES = 2_112 * MIB;

    @Test
    void shouldWriteAndReadAMappingPastTwoGibOverRdma() {
        Assumptions.assumeTrue(TestCluster.transports().anyMatch("rdma"::equals),
                "the emulated device is not among RSTORE_TEST_TRANSPORTS (bin/test-rdma's guest runs disni alone)");
        RStoreSettings settings = TestCluster.settings(1).withServerCapacityBytes(2_176 * MIB).withChunkSizeBytes(64 * MIB)
                .withOperationTimeoutMs(60_000);
        try (TestCluster cluster = TestCluster.start("rdma", settings)) {
            RStore writer = cluster.client();
            RStore reader = cluster.client();
            Namespace ns = writer.createNamespace("large", 0);
            RAddress segment = ns.alloc(BYTES, AllocFlags.GROW);
            try (Mapping out = segment.map(MapFlags.NONE)) {
                for (long at = 0; at < BYTES; at += 4096) { // a word a page, and one just before each 1 GiB edge
                    out.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at, at * 7 + 1);
                }
                out.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, (1L << 30) - 16, 42);
                out.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, (2L << 30) - 16, 43);
                out.write();
            }
            try (Mapping in = reader.joinNamespace("large").raddress(segment.address()).map(MapFlags.NONE)) {
                in.read();
                for (long at = 0; at < BYTES; at += 4096) {
                    assertEquals(at * 7 + 1, in.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, at), "at " + at);
                }
                assertEquals(42, in.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, (1L << 30) - 16));
                assertEquals(43, in.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, (2L << 30) - 16));
            }
        }
    }

    static Stream<String> rdmaDevices() {
        return TestCluster.transports().filter(t -> t.equals("rdma") || t.equals("disni"));
    }

    /**
     * A mapping just past 1 GiB, whose local arena (a power of two: 2 GiB, past what DiSNI
     * registers as one region) is registered in two pieces: one write and one read span the
     * edge between them, others touch the mapping's first and last pages. It moves a few
     * pages, so it runs on SoftRoCE under emulation too (bin/test-rdma); on disni it failed
     * with "DiSNI registers at most 2 GiB per region" before the pieces.
     */
    @ParameterizedTest
    @MethodSource("rdmaDevices")
    void shouldMoveBytesAcrossThePieceEdgeOfAMappingPastOneGib(String transport) {
        long bytes = 1_040 * MIB;
        long edge = RdmaDevice.PIECE;
        long span = 16 * 1024;
        RStoreSettings settings = TestCluster.settings(1).withServerCapacityBytes(1_088 * MIB).withChunkSizeBytes(64 * MIB)
                .withOperationTimeoutMs(60_000);
        try (TestCluster cluster = TestCluster.start(transport, settings)) {
            RStore writer = cluster.client();
            RStore reader = cluster.client();
            Namespace ns = writer.createNamespace("past-a-gib", 0);
            RAddress segment = ns.alloc(bytes, AllocFlags.GROW);
            long[] starts = {0, edge - span / 2, bytes - span};
            try (Mapping out = segment.map(MapFlags.NONE)) {
                for (long start : starts) {
                    for (long at = start; at < start + span; at += 8) {
                        out.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at, at * 7 + 1);
                    }
                    out.write(start, span);
                }
            }
            try (Mapping in = reader.joinNamespace("past-a-gib").raddress(segment.address()).map(MapFlags.NONE)) {
                for (long start : starts) {
                    in.read(start, span);
                    for (long at = start; at < start + span; at += 8) {
                        assertEquals(at * 7 + 1, in.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, at), "at " + at);
                    }
                }
            }
        }
    }
}
