// What a flood of unauthenticated sockets, a reconnect flood and thousands of idle
// authenticated connections cost a running master (issue 31, items 3 and 4). Start a master
// and a memory server first, with the default limits (docs/measure/admission.sh does):
//
//   java -cp "rstore-server/target/*:rstore-server/target/lib/*" docs/measure/Admission.java PORT MASTER_PID
//
// Prints, quiet and under each flood, the p50 and p99 of a legitimate client's master calls
// (reserve + release) on a persistent connection and of a new client's connect + first call, and the master's CPU
// with 4,000 idle authenticated connections. notebook.md ("Admission") quotes a run.
import io.rstore.Namespace;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.protocol.wire.Handshake;

import java.io.DataInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class Admission {
    static int port;

    public static void main(String[] args) throws Exception {
        port = Integer.parseInt(args[0]);
        long masterPid = Long.parseLong(args[1]);
        String uri = "rstore+tcp://127.0.0.1:" + port;
        try (RStore client = RStore.connect(uri, RStoreSettings.defaults())) {
            Namespace ns = client.createNamespace("admission-" + System.nanoTime());
            report(null, ns, uri); // warm-up
            report("quiet", ns, uri);

            List<Socket> silent = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress("127.0.0." + (2 + i % 4), 0));
                s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                silent.add(s);
            }
            report("5,000 silent sockets open", ns, uri);
            for (Socket s : silent) {
                s.close();
            }

            java.util.concurrent.atomic.AtomicLong flooded = new java.util.concurrent.atomic.AtomicLong();
            Thread flood = Thread.ofPlatform().daemon().start(() -> { // new silent connections, as fast as one thread opens them
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        Socket s = new Socket("127.0.0.1", port);
                        flooded.incrementAndGet();
                        silentFor(s, 2_000);
                    } catch (Exception e) {
                        // refused or reset: go on
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(500_000);
                }
            });
            Thread.sleep(3_000);
            long floodStart = System.nanoTime();
            long floodBefore = flooded.get();
            report("a reconnect flood", ns, uri);
            System.out.printf("  (the flood opened %.0f connections a second meanwhile)%n",
                    (flooded.get() - floodBefore) / ((System.nanoTime() - floodStart) / 1e9));
            flood.interrupt();
            flood.join();

            List<Socket> idle = new ArrayList<>();
            for (int i = 0; i < 4_000; i++) {
                Socket s = new Socket("127.0.0.1", port);
                s.setSoTimeout(10_000);
                authenticate(s);
                idle.add(s);
            }
            Thread.sleep(2_000);
            long before = cpuNanos(masterPid);
            long start = System.nanoTime();
            Thread.sleep(10_000);
            System.out.printf("4,000 idle authenticated connections: the master used %.2f%% of a core over 10 s%n",
                    100.0 * (cpuNanos(masterPid) - before) / (System.nanoTime() - start));
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    private static final List<Socket> held = new ArrayList<>();

    /** Keeps a silent socket open for a while (the flood's own bound), closing the oldest ones it held. */
    private static void silentFor(Socket s, long ms) throws Exception {
        held.add(s);
        while (held.size() > ms * 2) { // ~2,000 a second for `ms`
            held.removeFirst().close();
        }
    }

    static void report(String when, Namespace ns, String uri) throws Exception {
        long[] call = new long[2_000];
        for (int i = 0; i < call.length; i++) {
            long t = System.nanoTime();
            ns.reserve(4096);
            ns.release(4096);
            call[i] = System.nanoTime() - t;
        }
        long[] connect = new long[100];
        int refused = 0;
        for (int i = 0; i < connect.length; i++) {
            long t = System.nanoTime();
            try (RStore c = RStore.connect(uri, RStoreSettings.defaults())) {
                c.joinNamespace(ns.name());
            } catch (io.rstore.RStoreException e) {
                refused++;
            }
            connect[i] = System.nanoTime() - t;
        }
        if (when == null) {
            return;
        }
        System.out.printf("%-28s reserve + release p50 %.3f ms, p99 %.3f ms; connect + first call p50 %.2f ms, p99 %.2f ms, %d of 100 refused%n",
                when, pct(call, 50), pct(call, 99), pct(connect, 50), pct(connect, 99), refused);
    }

    static double pct(long[] nanos, int p) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, s.length * p / 100)] / 1e6;
    }

    static void authenticate(Socket s) throws Exception {
        DataInputStream in = new DataInputStream(s.getInputStream());
        readFrame(in);
        ByteBuffer proof = Handshake.proofFrame("", null);
        s.getOutputStream().write(proof.array(), 0, proof.limit());
        readFrame(in);
    }

    static void readFrame(DataInputStream in) throws Exception {
        byte[] length = new byte[4];
        in.readFully(length);
        in.readFully(new byte[ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getInt()]);
    }

    static long cpuNanos(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
    }
}
