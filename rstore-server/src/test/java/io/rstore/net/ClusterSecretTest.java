package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.protocol.wire.Handshake;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class ClusterSecretTest {
    private static final RStoreSettings SETTINGS = RStoreSettings.defaults().withChunkSizeBytes(1 << 20)
            .withServerCapacityBytes(16 << 20).withOperationTimeoutMs(5_000);

    /** Over tcp, and over the master's RDMA listener (the same handshake in SEND/RECV messages). */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tcp", "rdma"})
    void shouldLetOnlyClientsThatProveTheSecretIn(String transport) throws Exception {
        RStoreSettings guarded = SETTINGS.withClusterSecret("s3cret-☕");
        InetSocketAddress loopback = new InetSocketAddress("127.0.0.1", 0);
        try (NetworkCluster cluster = transport.equals("rdma") ? NetworkCluster.startWithRdma(guarded, loopback, "emulated")
                : NetworkCluster.start(guarded, loopback)) {
            String uri = transport.equals("rdma") ? cluster.rdmaUri("127.0.0.1") : "rstore+tcp://127.0.0.1:" + cluster.port();
            try (RStore good = RStore.connect(uri, SETTINGS.withClusterSecret("s3cret-☕"));
                 Mapping m = good.createNamespace("guarded").alloc(3 << 20, AllocFlags.GROW).map(MapFlags.NONE)) {
                m.segment().set(ValueLayout.JAVA_LONG, 0, 77);
                m.write(); // data connections to both memory servers passed the handshake too
                m.read();
                assertEquals(77, m.segment().get(ValueLayout.JAVA_LONG, 0));
            }
            RStoreException none = assertThrows(RStoreException.class, () -> RStore.connect(uri, SETTINGS));
            assertEquals(ErrorCode.UNAUTHORIZED, none.code());
            assertTrue(none.getMessage().contains("requires a cluster secret"), none.getMessage());
            RStoreException wrong = assertThrows(RStoreException.class, () -> RStore.connect(uri, SETTINGS.withClusterSecret("guess")));
            assertEquals(ErrorCode.UNAUTHORIZED, wrong.code());
            assertTrue(wrong.getMessage().contains("wrong or missing cluster secret"), wrong.getMessage());
            assertFalse(SETTINGS.withClusterSecret("s3cret-☕").toString().contains("s3cret"), "settings never print the secret");
        }
    }

    @Test
    void shouldHangUpOnAConnectionThatSendsNoProof() throws Exception {
        try (NetworkCluster cluster = NetworkCluster.start(SETTINGS.withClusterSecret("k"), new InetSocketAddress("127.0.0.1", 0));
             Socket raw = new Socket("127.0.0.1", cluster.port())) {
            raw.setSoTimeout(5_000);
            DataInputStream in = new DataInputStream(raw.getInputStream());
            byte[] challenge = new byte[Handshake.CHALLENGE_FRAME];
            in.readFully(challenge);
            assertEquals(1, challenge[18], "the challenge says a secret is required");
            raw.getOutputStream().write(new byte[Handshake.PROOF_FRAME]); // zeros: not a proof
            byte[] lengthBytes = new byte[4];
            in.readFully(lengthBytes);
            byte[] verdict = new byte[ByteBuffer.wrap(lengthBytes).order(ByteOrder.LITTLE_ENDIAN).getInt()];
            in.readFully(verdict);
            assertEquals(3, verdict[3], "an error frame");
            assertEquals(ErrorCode.UNAUTHORIZED.code(), ByteBuffer.wrap(verdict).order(ByteOrder.LITTLE_ENDIAN).getInt(14));
            assertEquals(-1, in.read(), "and the connection is closed");
        }
    }

    @Test
    void shouldAcceptAnyClientWhenNoSecretIsSet() {
        try (NetworkCluster cluster = NetworkCluster.start(SETTINGS, new InetSocketAddress("127.0.0.1", 0));
             RStore client = RStore.connect("rstore+tcp://127.0.0.1:" + cluster.port(), SETTINGS.withClusterSecret("unneeded"))) {
            assertTrue(client.namespaces().isEmpty());
        }
    }
}
