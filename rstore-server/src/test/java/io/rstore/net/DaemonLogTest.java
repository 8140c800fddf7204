package io.rstore.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A daemon's log: SLF4J lines with an ISO timestamp and zone, to a file when asked, at the asked level. */
@Timeout(120)
class DaemonLogTest {
    @RegisterExtension
    final JavaProcesses processes = new JavaProcesses(); // kills what each test started, after it

    @TempDir
    Path dir;

    @Test
    void shouldLogToTheFileItIsGivenWithTimestampsThatCarryTheZone() throws Exception {
        Path log = dir.resolve("master.log");
        Process master = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", "/dev/null", "--port", "0", "--rdma-device", "none",
                "--log-file", log.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(log) && Files.readString(log).contains("serving on")) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        String text = Files.readString(log);
        assertTrue(text.lines().anyMatch(l -> l.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO rstore master - serving on 127\\.0\\.0\\.1:\\d+ .*")),
                text);
        assertEquals(0, master.getInputStream().available(), "the log went to the file, not stdout");
        master.destroy();
        assertTrue(master.waitFor(20, TimeUnit.SECONDS));

        Process wrong = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", "/dev/null", "--port", "0", "--log-level", "loud");
        assertTrue(wrong.waitFor(30, TimeUnit.SECONDS));
        assertEquals(2, wrong.exitValue(), "a log level that does not exist is a usage error");
    }
}
