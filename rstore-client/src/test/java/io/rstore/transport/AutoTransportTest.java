package io.rstore.transport;

import io.rstore.protocol.ServerInfo;
import io.rstore.transport.tcp.TcpTransport;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** auto's choice per server, and that falling back from a real RDMA device is said once, loudly. */
class AutoTransportTest {

    private static ServerInfo server(int id, String shm, String rdma) {
        return new ServerInfo(id, "rstore+tcp://10.9.9.9:7402/" + id, shm, rdma, 1 << 30, 0, true, false);
    }

    @Test
    void shouldFallBackFromRdmaToTcpAndSaySoOncePerServer() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (AutoTransport auto = new AutoTransport(new TcpTransport(1_000, ""), 1_000, "")) {
            ServerInfo onCard = server(3, "", "disni://10.9.9.9:7410");
            assertEquals("tcp", auto.routeTo(onCard), "no RDMA device on this machine: tcp");
            assertEquals("tcp", auto.routeTo(onCard));
            assertEquals("tcp", auto.routeTo(server(4, "", "emulated://10.9.9.9:7411")), "the emulated device is never auto's pick");
            assertEquals("tcp", auto.routeTo(server(5, "not-this-boot:/dev/shm/x", "")), "chunk files of another host: tcp");
        } finally {
            System.setErr(err);
        }
        String said = captured.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("WARNING: memory server 3 offers RDMA (disni://10.9.9.9:7410) but this client falls back to tcp"), said);
        assertEquals(1, said.lines().count(), "once per server, and not for the emulated device: " + said);
    }
}
