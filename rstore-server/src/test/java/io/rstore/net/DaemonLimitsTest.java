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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

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
 * A master daemon flooded as an attacker would flood it, on loopback: thousands of silent
 * connections, authenticated ones past the limit, hundreds of frame headers that promise 16 MiB, silent connections to its
 * emulated RDMA listener. Its descriptors and resident memory stay within the bounds
 * docs/rstore.md states, and a legitimate client is served.
 */
@Timeout(240)
class DaemonLimitsTest {
    private static final int MAX_CONNECTIONS = 500;
    private static final int MAX_PENDING = 300;
    private static final long MIB = 1 << 20;
    @RegisterExtension
    final JavaProcesses processes = new JavaProcesses(); // kills what each test started, after it
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
                rstore.net.max-pending-handshakes = %d
                rstore.net.max-pending-per-source = 200
                rstore.net.handshake-timeout = 3s
                rstore.net.frame-timeout = 3s
                """.formatted(MAX_CONNECTIONS, MAX_PENDING));
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

    /**
     * 3,000 connections that never answer the challenge, from two source addresses: they
     * wait apart from the authenticated (at most 300 at once, 200 per source, the oldest
     * closed for the next), so a client gets in at its first try while they flood, and the
     * master's descriptors and memory stay within that budget.
     */
    @Test
    void shouldKeepSilentConnectionsApartSoAClientGetsInAtItsFirstTry() throws Exception {
        long rssBefore = residentBytes(master);
        long descriptorsBefore = descriptors(master);
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 3_000; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(i % 2 == 0 ? "127.0.0.1" : "127.0.0.2", 0));
                s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                s.setSoTimeout(10_000);
                silent.add(s);
            }
            long grown = descriptors(master) - descriptorsBefore;
            // waiting, still to be challenged, and closed ones the gate's selector has yet to let go
            assertTrue(grown <= MAX_PENDING + 2 * HandshakeGate.ARRIVING + 20,
                    "3,000 silent connections hold " + grown + " more descriptors in the master, over the budget of " + MAX_PENDING);
            servedClient(0); // at the first try: no OVERLOADED while the flood waits
            int challengedThenClosed = 0;
            for (Socket s : silent) {
                if (readFrame(s).get(7) == Handshake.CHALLENGE && endsWithin(s)) {
                    challengedThenClosed++;
                }
            }
            assertEquals(3_000, challengedThenClosed, "every silent connection was challenged, then closed by the master");
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
        long grown = residentBytes(master) - rssBefore;
        assertTrue(grown < 128 * MIB, "3,000 silent connections grew the master by " + grown / MIB + " MiB");
    }

    /** Authenticated connections are what max-connections counts: the one over it hears OVERLOADED; when one leaves, a client gets in. */
    @Test
    void shouldRefuseAuthenticatedConnectionsOverTheLimit() throws Exception {
        List<Socket> admitted = new ArrayList<>();
        try {
            int refused = 0;
            for (int i = 0; i < MAX_CONNECTIONS + 5; i++) {
                Socket s = new Socket("127.0.0.1", port);
                s.setSoTimeout(10_000);
                if (authenticates(s)) {
                    admitted.add(s);
                } else {
                    refused++;
                    s.close();
                }
            }
            // the memory server's registration connection holds one place
            assertEquals(MAX_CONNECTIONS - 1, admitted.size(), admitted.size() + " admitted");
            assertEquals(6, refused);
            admitted.removeFirst().close();
            servedClient(TimeUnit.SECONDS.toNanos(10)); // its place frees when the master sees the close
        } finally {
            for (Socket s : admitted) {
                s.close();
            }
        }
    }

    /** Idle authenticated connections cost the master no CPU: their threads sleep in the selector until a frame comes. */
    @Test
    void shouldSpendNoCpuOnIdleAuthenticatedConnections() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_CONNECTIONS - 2; i++) { // beside the memory server's and the client's below
                Socket s = new Socket("127.0.0.1", port);
                s.setSoTimeout(10_000);
                handshake(s);
                idle.add(s);
            }
            Thread.sleep(1_000); // past the spin that follows each connection's last frame
            long cpuBefore = cpuNanos(master);
            long start = System.nanoTime();
            Thread.sleep(3_000);
            double cores = (double) (cpuNanos(master) - cpuBefore) / (System.nanoTime() - start);
            assertTrue(cores < 0.05, idle.size() + " idle connections cost the master " + Math.round(cores * 100) + "% of a core");
            servedClient(0);
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
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

    /** Answers the challenge: true if the master lets the connection on, false if it refused it as OVERLOADED (in place of the challenge or of the verdict). */
    private static boolean authenticates(Socket s) throws IOException {
        ByteBuffer challenge = readFrame(s);
        if (challenge.get(7) == Frames.ERROR) {
            assertEquals(ErrorCode.OVERLOADED.code(), challenge.getInt(Frames.HEADER));
            return false;
        }
        assertEquals(Handshake.CHALLENGE, challenge.get(7));
        ByteBuffer proof = Handshake.proofFrame("", null);
        s.getOutputStream().write(proof.array(), 0, proof.limit());
        ByteBuffer verdict = readFrame(s);
        if (verdict.get(7) == Frames.ERROR) {
            assertEquals(ErrorCode.OVERLOADED.code(), verdict.getInt(Frames.HEADER));
            return false;
        }
        assertEquals(Frames.RESPONSE, verdict.get(7));
        return true;
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

    /** User and system CPU time of a process, from /proc/PID/stat (in clock ticks of 10 ms). */
    private static long cpuNanos(Process p) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L; // utime, stime
    }

    private static long descriptors(Process p) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(p.pid()), "fd"))) {
            return fds.count();
        }
    }
}
