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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RStore across real processes: a serving JVM, client JVMs, and what happens when either is killed. */
@Timeout(120)
class ProcessesTest {
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        processes.forEach(Process::destroyForcibly);
    }

    private Process java(String main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path"), main));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        processes.add(p);
        return p;
    }

    /** The first line a process prints, within a bound. */
    private static String firstLine(Process p, long seconds) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        var line = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return null;
            }
        });
        return line.get(seconds, TimeUnit.SECONDS);
    }

    @Test
    void shouldServeClientsInOtherProcessesAndSurviveTheirDeath() throws Exception {
        Process server = java("io.rstore.cli.RStoreCli", "serve", "--bind", "127.0.0.1", "--port", "0", "--servers", "2",
                "--chunk-size", "1MiB", "--capacity", "64MiB");
        String banner = firstLine(server, 30);
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
            Process holder = java("io.rstore.net.MappingHolder", uri, "shared", Long.toString(seg.address()));
            assertEquals("mapped", firstLine(holder, 30));
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
