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
}
