package io.carafe.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a worker process takes of its parent's JVM options. */
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
}
