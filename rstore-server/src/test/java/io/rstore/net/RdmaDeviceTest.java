package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.protocol.ServerInfo;
import io.rstore.transport.rdma.RdmaEnvironment;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The rdma transport on a real device through DiSNI. Needs an RDMA device, libdisni on
 * java.library.path and RSTORE_RDMA_ADDRESS (the device's IP address: soft RDMA devices
 * do not work on 127.0.0.1); skipped, saying which is missing, elsewhere (docs/rdma.md).
 */
@Timeout(120)
class RdmaDeviceTest {

    @Test
    void shouldReadAndWriteOneSidedOnARealDevice() {
        String why = RdmaEnvironment.unavailable();
        Assumptions.assumeTrue(why == null, () -> "no real RDMA here: " + why);
        String address = System.getenv("RSTORE_RDMA_ADDRESS");
        Assumptions.assumeTrue(address != null, "set RSTORE_RDMA_ADDRESS to the RDMA interface's IP address");
        RStoreSettings settings = RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withServerCapacityBytes(64 << 20)
                .withOperationTimeoutMs(10_000);
        try (NetworkCluster cluster = NetworkCluster.startWithRdma(settings, new InetSocketAddress(address, 0), "disni");
             RStore client = RStore.connect(cluster.rdmaUri(address), settings)) {
            for (ServerInfo s : client.servers()) {
                assertEquals("rdma", client.transportTo(s));
            }
            RAddress segment = client.createNamespace("rdma").alloc(3 << 20, AllocFlags.GROW);
            try (Mapping m = segment.map(MapFlags.NONE)) {
                for (long at = 0; at < m.length(); at += 8) {
                    m.segment().set(ValueLayout.JAVA_LONG, at, at ^ 0x5A5A);
                }
                m.write();
                m.segment().fill((byte) 0);
                m.read();
                for (long at = 0; at < m.length(); at += 8) {
                    assertEquals(at ^ 0x5A5A, m.segment().get(ValueLayout.JAVA_LONG, at), "long at " + at);
                }
                cluster.stopServer(1);
                RStoreException e = assertThrows(RStoreException.class, m::read);
                assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code(), e.getMessage());
            }
        }
    }
}
