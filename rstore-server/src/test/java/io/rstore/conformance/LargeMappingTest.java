package io.rstore.conformance;

import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A mapping past 2 GiB over rdma: its local memory is more than DiSNI registers as one
 * region (it takes an int length), so the client registers it in 1 GiB pieces and splits
 * work requests at their edges. The emulated device refuses a region past an int's length
 * as DiSNI does, so this fails here if the pieces are missing. Emulated device only:
 * moving 2 GiB through SoftRoCE under QEMU's emulation would outlast bin/test-rdma's budget.
 */
@Timeout(300)
class LargeMappingTest {
    private static final long MIB = 1 << 20;
    private static final long BYTES = 2_112 * MIB;

    @Test
    void shouldWriteAndReadAMappingPastTwoGibOverRdma() {
        org.junit.jupiter.api.Assumptions.assumeTrue(TestCluster.transports().anyMatch("rdma"::equals),
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
}
