package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.protocol.wire.Frames;
import io.rstore.protocol.wire.Handshake;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A master daemon flooded as an attacker would flood it, on loopback: thousands of idle
 * connections, hundreds of frame headers that promise 16 MiB, silent connections to its
 * emulated RDMA listener. Its descriptors and resident memory stay within the bounds
 * docs/rstore.md states, and a legitimate client is served.
 */
@Timeout(240)
class DaemonLimitsTest {
    private static final int MAX_CONNECTIONS = 500;
    private static final long MIB = 1 << 20;
    private final JavaProcesses processes = new JavaProcesses();
    private Process master;
    private int port;
    private int rdmaPort;

    @TempDir
    Path dir;

    @BeforeEach
    void startDaemons() throws Exception {
        Path conf = dir.resolve("rstore.conf");
        Files.writeString(conf, """
                rstore.chunk.size = 1MiB
                rstore.server.capacity = 64MiB
                rstore.shm.dir =
                rstore.timeout = 5s
                rstore.rdma.device = emulated
                rstore.master.rdma.port = 0
                rstore.net.max-connections = %d
                rstore.net.handshake-timeout = 3s
                rstore.net.frame-timeout = 3s
                """.formatted(MAX_CONNECTIONS));
        // no --bind: protected mode puts a daemon without a secret on loopback
        master = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--port", "0");
        Matcher serving = JavaProcesses.awaitLine(master,
                "serving on 127\\.0\\.0\\.1:(\\d+) .*emulated device at port (\\d+).*at most (\\d+) connections", 60);
        port = Integer.parseInt(serving.group(1));
        rdmaPort = Integer.parseInt(serving.group(2));
        assertEquals(MAX_CONNECTIONS, Integer.parseInt(serving.group(3)));
        Process server = processes.start("io.rstore.cli.RStoreCli", "server", "--conf", conf.toString(), "--master", "127.0.0.1:" + port,
                "--rdma-device", "none");
        JavaProcesses.awaitLine(server, "memory server 0 serving", 60);
    }

    @AfterEach
    void killAll() {
        processes.close();
    }

    @Test
    void shouldRefuseConnectionsOverTheLimitAndDropSilentOnesWhileServingAClient() throws Exception {
        long rssBefore = residentBytes(master);
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 3_000; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                s.setSoTimeout(10_000);
                idle.add(s);
            }
            long descriptors = descriptors(master);
            assertTrue(descriptors <= 3L * MAX_CONNECTIONS + 200, "the master holds " + descriptors + " descriptors with 3,000 idle connections");
            int challenged = 0;
            int refused = 0;
            for (Socket s : idle) {
                ByteBuffer first = readFrame(s);
                if (first.get(7) == Handshake.CHALLENGE) {
                    challenged++;
                } else {
                    assertEquals(Frames.ERROR, first.get(7));
                    assertEquals(ErrorCode.OVERLOADED.code(), first.getInt(Frames.HEADER));
                    refused++;
                }
            }
            assertEquals(3_000, challenged + refused);
            // the memory server's registration connection holds one place
            assertTrue(refused > 0 && challenged >= MAX_CONNECTIONS - 1, challenged + " challenged, " + refused + " refused");
            // the silent ones are dropped at the handshake bound, and a client gets in
            long start = System.nanoTime();
            servedClient(TimeUnit.SECONDS.toNanos(15));
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(waited < 10_000, "a client got in only after " + waited + " ms");
            int dropped = 0;
            for (Socket s : idle) {
                if (endsWithin(s)) {
                    dropped++;
                }
            }
            assertEquals(3_000, dropped, "every idle connection was closed by the master");
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
        long grown = residentBytes(master) - rssBefore;
        assertTrue(grown < 128 * MIB, "3,000 idle connections grew the master by " + grown / MIB + " MiB");
    }

    @Test
    void shouldNotAllocateWhatAFrameHeaderPromisesBeforeItsBytesArrive() throws Exception {
        long rssBefore = residentBytes(master);
        List<Socket> liars = new ArrayList<>();
        try {
            for (int i = 0; i < 300; i++) {
                Socket s = new Socket("127.0.0.1", port);
                s.setSoTimeout(10_000);
                handshake(s);
                ByteBuffer header = ByteBuffer.allocate(Frames.HEADER).order(ByteOrder.LITTLE_ENDIAN);
                header.putInt(Frames.MAX_FRAME).putShort((short) Frames.MAGIC).put((byte) 1).put((byte) 1).putShort((short) 5).putLong(i);
                s.getOutputStream().write(header.array());
                liars.add(s);
            }
            Thread.sleep(500);
            long grown = residentBytes(master) - rssBefore;
            assertTrue(grown < 64 * MIB, "300 headers promising 16 MiB each grew the master by " + grown / MIB + " MiB");
            servedClient(TimeUnit.SECONDS.toNanos(10));
            for (Socket s : liars) { // the frame never completes: each connection is closed at the frame bound
                assertTrue(endsWithin(s), "a connection with an unfinished frame was left open");
            }
        } finally {
            for (Socket s : liars) {
                s.close();
            }
        }
    }

    @Test
    void shouldSpendKilobytesOnEmulatedRdmaConnectionsBeforeTheyAuthenticate() throws Exception {
        long rssBefore = residentBytes(master);
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 150; i++) {
                silent.add(new Socket("127.0.0.1", rdmaPort));
            }
            Thread.sleep(1_000);
            long grown = residentBytes(master) - rssBefore;
            assertTrue(grown < 32 * MIB, "150 silent RDMA connections grew the master by " + grown / MIB + " MiB");
            servedClient(TimeUnit.SECONDS.toNanos(10));
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
    }

    /** A client connects (retrying while the master is at its limit), and writes and reads back a segment. */
    private void servedClient(long withinNanos) throws Exception {
        long deadline = System.nanoTime() + withinNanos;
        while (true) {
            try (RStore client = RStore.connect("rstore+tcp://127.0.0.1:" + port, RStoreSettings.defaults().withOperationTimeoutMs(5_000));
                 Mapping m = client.createNamespace("legit-" + System.nanoTime()).alloc(4096, AllocFlags.GROW).map(MapFlags.NONE)) {
                m.segment().set(ValueLayout.JAVA_LONG, 0, 42);
                m.write(0, 8);
                m.segment().set(ValueLayout.JAVA_LONG, 0, 0);
                m.read(0, 8);
                assertEquals(42, m.segment().get(ValueLayout.JAVA_LONG, 0));
                return;
            } catch (RStoreException e) {
                if (e.code() != ErrorCode.OVERLOADED || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static void handshake(Socket s) throws IOException {
        ByteBuffer challenge = readFrame(s);
        assertEquals(Handshake.CHALLENGE, challenge.get(7));
        ByteBuffer proof = Handshake.proofFrame("", null);
        s.getOutputStream().write(proof.array(), 0, proof.limit());
        assertEquals(Frames.RESPONSE, readFrame(s).get(7));
    }

    private static ByteBuffer readFrame(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] length = new byte[4];
        in.readFully(length);
        int n = ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getInt();
        assertTrue(n >= Frames.HEADER - 4 && n < 4096, "a frame of " + n + " bytes");
        ByteBuffer frame = ByteBuffer.allocate(4 + n).order(ByteOrder.LITTLE_ENDIAN).put(length);
        in.readFully(frame.array(), 4, n);
        return frame;
    }

    /** Whether the peer closes the connection (end of stream or reset) within the socket's read timeout, sending nothing more. */
    private static boolean endsWithin(Socket s) {
        try {
            return s.getInputStream().read() < 0;
        } catch (IOException e) {
            return !(e instanceof java.net.SocketTimeoutException);
        }
    }

    private static long residentBytes(Process p) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new AssertionError("no VmRSS for " + p.pid());
    }

    private static long descriptors(Process p) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(p.pid()), "fd"))) {
            return fds.count();
        }
    }
}
