package io.rstore.net;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.master.Master;
import io.rstore.protocol.wire.FrameHandler;
import io.rstore.protocol.wire.MasterService;
import io.rstore.protocol.wire.RemoteMaster;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Who may register a memory server with a master: whoever proved the secret, else only its own host unless allowed. */
class RegistrationTest {
    private static final InetSocketAddress REMOTE = new InetSocketAddress("192.0.2.7", 40000); // TEST-NET-1: never this host
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 40000);

    @Test
    void shouldLetOnlyThisHostRegisterWithoutASecretUnlessAllowed() {
        String why = MasterNode.registrationRefused(REMOTE, "", false);
        assertNotNull(why);
        assertTrue(why.contains("rstore.master.remote-servers") && why.contains("secret"), why);
        assertNull(MasterNode.registrationRefused(LOOPBACK, "", false));
        assertNull(MasterNode.registrationRefused(REMOTE, "s3cret", false), "a peer that proved the secret may");
        assertNull(MasterNode.registrationRefused(REMOTE, "", true), "the operator allowed remote servers");
        assertNotNull(MasterNode.registrationRefused(null, "", false), "an RDMA peer, whose address is unknown, may not without a secret");
    }

    @Test
    void shouldAnswerARefusedRegistrationUnauthorizedWithoutTouchingTheServer() {
        Master master = new Master(1 << 20, (address, token) -> {
            throw new AssertionError("the master connected back to " + address + " for a refused registration");
        });
        FrameHandler connection = new MasterService(master).connection(MasterNode.registrationRefused(REMOTE, "", false));
        try (RemoteMaster remote = new RemoteMaster(new io.rstore.protocol.wire.FrameTransport() {
            @Override
            public ByteBuffer call(ByteBuffer request) {
                return connection.handle(request);
            }

            @Override
            public void close() {
                connection.close();
            }
        })) {
            RStoreException e = assertThrows(RStoreException.class,
                    () -> remote.registerServer(new io.rstore.protocol.ServerRegistration("rstore+tcp://192.0.2.7:7402", "", "", 1 << 26, "token", "who", false, java.util.List.of())));
            assertEquals(ErrorCode.UNAUTHORIZED, e.code());
            assertTrue(e.getMessage().contains("only from the master's own host"), e.getMessage());
            assertEquals(0, master.servers().size());
        }
    }

    /**
     * Servers repeat their registration every heartbeat: one the master marked dead while it
     * still serves (its pings went unanswered a while) comes back under its id with its
     * chunks, as its identity says who it is; one that stopped serving never claims to be
     * alive again.
     */
    @Test
    void shouldTakeBackAServerMarkedDeadThatStillServesButNeverOneThatStopped() throws Exception {
        io.rstore.RStoreSettings settings = io.rstore.RStoreSettings.defaults().withMemoryServers(2).withChunkSizeBytes(1 << 20)
                .withServerCapacityBytes(64 << 20).withOperationTimeoutMs(5_000);
        try (NetworkCluster cluster = NetworkCluster.start(settings, new InetSocketAddress("127.0.0.1", 0));
             io.rstore.RStore client = io.rstore.RStore.connect("rstore+tcp://127.0.0.1:" + cluster.port(), settings);
             io.rstore.Mapping m = client.createNamespace("n").alloc(2 << 20, io.rstore.AllocFlags.GROW).map(io.rstore.MapFlags.NONE)) {
            m.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG, (1 << 20) + 8, 4242); // in the second chunk
            m.write();
            int second = cluster.master().lookup(cluster.master().openSession("t"), client.joinNamespace("n").id(), 0).chunks().get(1).serverId();
            int first = 1 - second;
            cluster.master().markDead(second);
            cluster.stopServer(first);
            Thread.sleep(3_500); // three heartbeats
            java.util.List<io.rstore.protocol.ServerInfo> servers = client.servers();
            assertTrue(servers.get(second).alive(), "the server marked dead but serving rejoined: " + servers);
            assertTrue(!servers.get(first).alive(), "the stopped server stays dead: " + servers);
            assertEquals(2, servers.size(), "under its own id, not a new one");
            m.segment().fill((byte) 0);
            m.read(1 << 20, 1 << 20);
            assertEquals(4242, m.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG, (1 << 20) + 8), "its chunk kept its bytes");
        }
    }
}
