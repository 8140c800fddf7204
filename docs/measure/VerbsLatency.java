package io.rstore.transport.rdma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * 8-byte READ and WRITE latency through one DiSNI queue pair, with no RStore above it: the
 * floor beneath `rstore bench`'s read p50 (notebook, "RStore beside perftest on SoftRoCE,
 * boot by boot"). Not part of the build; in the package of the classes it drives. Run in
 * bin/test-rdma's guest (docs/measure/rdma_guest_verbs.patch adds the step):
 *   JDK=$(bin/classpath --java-home)
 *   mkdir -p rstore-server/target/verbsexp/classes
 *   "$JDK/bin/javac" -d rstore-server/target/verbsexp/classes -cp "$(bin/classpath)" docs/measure/VerbsLatency.java
 *   git apply docs/measure/rdma_guest_verbs.patch && bin/test-rdma bench; git apply -R docs/measure/rdma_guest_verbs.patch
 */
public class VerbsLatency {
    static int done;
    public static void main(String[] a) throws Exception {
        InetAddress address = InetAddress.getByName(a[0]);
        int ops = 2000;
        try (RdmaDevice server = DisniDevice.open(RdmaDevice.Connections.DEFAULT);
             RdmaDevice client = DisniDevice.open(RdmaDevice.Connections.DEFAULT);
             Arena arena = Arena.ofConfined()) {
            RdmaDevice.Listener listener = server.listen(new InetSocketAddress(address, 0), () -> (request, response) -> response.put(request));
            MemorySegment remote = arena.allocate(4096, 4096);
            MemoryRegion region = server.register(remote);
            try (QueuePair qp = client.connect(new InetSocketAddress(address, listener.port()), 10_000, (wrId, status) -> done++)) {
                MemorySegment local = arena.allocate(4096, 4096);
                MemoryRegion mine = client.register(local);
                for (String mode : new String[] {"read-pause", "read-busy", "write-pause", "write-busy", "read-pause", "read-busy"}) {
                    boolean write = mode.startsWith("write");
                    boolean pause = mode.endsWith("pause");
                    long[] t = new long[ops];
                    for (int i = 0; i < ops; i++) {
                        int before = done;
                        long s = System.nanoTime();
                        if (write) {
                            qp.postWrite(i, local.address(), mine.lkey(), region.address(), region.rkey(), 8);
                        } else {
                            qp.postRead(i, local.address(), mine.lkey(), region.address(), region.rkey(), 8);
                        }
                        while (done == before) {
                            qp.poll();
                            if (pause) {
                                Thread.onSpinWait();
                            }
                        }
                        t[i] = System.nanoTime() - s;
                    }
                    Arrays.sort(t);
                    System.out.printf("VERBS %-12s p50 %.2f us p90 %.2f us%n", mode, t[ops / 2] / 1000.0, t[ops * 9 / 10] / 1000.0);
                }
            }
        }
    }
}
