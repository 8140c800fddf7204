package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RStore across real processes: a serving JVM, client JVMs, and what happens when either is killed. */
@Timeout(120)
class ProcessesTest {
    @RegisterExtension
    final JavaProcesses processes = new JavaProcesses(); // kills what each test started, after it

    @Test
    void shouldServeClientsInOtherProcessesAndSurviveTheirDeath() throws Exception {
        Process server = processes.start("io.rstore.cli.RStoreCli", "serve", "--bind", "127.0.0.1", "--port", "0", "--servers", "2",
                "--chunk-size", "1MiB", "--capacity", "64MiB");
        String banner = JavaProcesses.nextLine(server, 30);
        Matcher m = Pattern.compile(":(\\d+) ").matcher(banner);
        assertTrue(m.find(), banner);
        String uri = "rstore+tcp://127.0.0.1:" + m.group(1);
        RStoreSettings settings = RStoreSettings.defaults().withOperationTimeoutMs(5_000);

        try (RStore client = RStore.connect(uri, settings)) {
            assertEquals("tcp", client.transportName());
            Namespace ns = client.createNamespace("shared");
            RAddress seg = ns.alloc(3 << 20, AllocFlags.GROW); // spans chunks on both servers
            try (Mapping w = seg.map(MapFlags.NONE)) {
                for (long at = 0; at < w.length(); at += 8) {
                    w.segment().set(ValueLayout.JAVA_LONG, at, at * 31);
                }
                w.write();
            }

            // another process maps the segment, then dies without unmapping
            Process holder = processes.start("io.rstore.net.MappingHolder", uri, "shared", Long.toString(seg.address()));
            assertEquals("mapped", JavaProcesses.nextLine(holder, 30));
            assertEquals(ErrorCode.SEGMENT_IN_USE, assertThrows(RStoreException.class, () -> ns.free(seg)).code());
            holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ns.info().mappedSegments() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, ns.info().mappedSegments(), "the killed client's references were dropped");

            // the data is intact for a new mapping
            try (Mapping r = seg.map(MapFlags.PREFETCH)) {
                for (long at = 0; at < r.length(); at += 8) {
                    assertEquals(at * 31, r.segment().get(ValueLayout.JAVA_LONG, at), "long at " + at);
                }

                // now the serving process dies: operations fail with a clear error, within the bound
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                long start = System.nanoTime();
                RStoreException e = assertThrows(RStoreException.class, r::read);
                assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code(), e.getMessage());
                assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(6), "failed within the operation timeout");
                RStoreException master = assertThrows(RStoreException.class, () -> client.createNamespace("after"));
                assertEquals(ErrorCode.MASTER_UNAVAILABLE, master.code(), master.getMessage());
            }
        }
    }
}
