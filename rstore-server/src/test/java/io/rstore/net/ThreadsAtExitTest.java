package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process that ran a cluster over tcp leaves no thread waiting in native code: a JVM
 * waits 300 ms before it exits while one does, as the JDK's poller thread always would once
 * a virtual thread had read from a socket (the master's heartbeat pinged its memory servers
 * on virtual threads, and every {@code carafe --worker-processes} run ended 0.3 s late).
 * In a JVM of its own, so that nothing another test did counts.
 */
class ThreadsAtExitTest {

    @Test
    void shouldLeaveNoPollerWaitingInNativeCode() throws Exception {
        try (JavaProcesses jvms = new JavaProcesses()) {
            Process p = jvms.start(ThreadsAtExitTest.class.getName());
            String threads = JavaProcesses.awaitLine(p, "^threads: (.*)$", 60).group(1);
            assertFalse(threads.contains("Poller"), "a poller thread outlived the cluster: " + threads);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the probe did not exit");
            assertEquals(0, p.exitValue());
        }
    }

    /** The probe: a cluster over tcp, a write and a read through it, three heartbeats, and the threads left once all is closed. */
    public static void main(String[] args) throws Exception {
        try (NetworkCluster cluster = NetworkCluster.start(RStoreSettings.defaults(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             RStore client = RStore.connect("rstore+tcp://127.0.0.1:" + cluster.port(), RStoreSettings.defaults())) {
            Namespace ns = client.createNamespace("threads-at-exit");
            try (Mapping m = ns.alloc(4096, AllocFlags.GROW | AllocFlags.ZERO).map(MapFlags.NONE)) {
                m.write();
                m.read();
            }
            Thread.sleep(3_000); // the master's heartbeat (1 s) pings every memory server
        }
        System.out.println("threads: " + Thread.getAllStackTraces().keySet().stream().map(Thread::getName).sorted()
                .collect(Collectors.joining(", ")));
    }
}
