package io.carafe.cli;

import io.rstore.RStoreSettings;
import io.rstore.net.NetworkCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a worker process takes of its parent's JVM options, and a worker started before its job. */
class ProcessWorkersTest {

    @Test
    void shouldForwardTheClassCacheAndTheJitsOptionsOnly() {
        // as bin/carafe starts the command (bin/lib/common.sh), with a user's option from CARAFE_JAVA_OPTS
        List<String> parent = List.of("-XX:MaxDirectMemorySize=16g", "-XX:InlineSmallCode=6000", "--enable-native-access=ALL-UNNAMED",
                "-Drstore.home=/opt/carafe",
                "-Djava.library.path=/opt/carafe/rstore-client/target/native", "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=inline,io.carafe.algorithms.pregel.PageRank::compute", "-XX:AOTCache=/opt/carafe/carafe-cli.aot",
                "-Xlog:aot=off,cds=off", "-Xmx4g");
        assertEquals(List.of("-XX:InlineSmallCode=6000", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,io.carafe.algorithms.pregel.PageRank::compute",
                "-XX:AOTCache=/opt/carafe/carafe-cli.aot", "-Xlog:aot=off,cds=off"), ProcessWorkers.forwarded(parent));
    }

    /**
     * A worker started ahead of its job (--job -) connects, then waits on its standard
     * input: when that ends with no job named, it exits 0 with nothing to say, as a command
     * that ran no job leaves it.
     */
    @Test
    @Timeout(60)
    void shouldEndAWorkerStartedAheadOfItsJobWhenNoJobComes() throws IOException, InterruptedException {
        try (NetworkCluster cluster = NetworkCluster.start(RStoreSettings.defaults(), new InetSocketAddress("127.0.0.1", 0))) {
            Process worker = new ProcessBuilder(ProcessWorkers.javaCommand("rstore://127.0.0.1:" + cluster.port(), "-", 0, 60))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            Thread.sleep(1_000); // connected or connecting: the end of input must reach it either way
            worker.getOutputStream().close();
            assertTrue(worker.waitFor(30, TimeUnit.SECONDS), "the worker did not end when its input did");
            String said = new String(worker.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, worker.exitValue(), said);
            assertEquals("", said.strip());
        }
    }
}
