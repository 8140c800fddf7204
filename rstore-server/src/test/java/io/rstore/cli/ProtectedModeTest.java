package io.rstore.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Without a cluster secret, daemons listen on loopback, and elsewhere only when told --insecure, with a warning. */
class ProtectedModeTest {

    @Test
    void shouldListenOnLoopbackWithoutASecretAndEverywhereWithOne() {
        assertEquals("127.0.0.1", Daemon.bindAddress("", "", false, "test"));
        assertEquals("0.0.0.0", Daemon.bindAddress("", "s3cret", false, "test"));
        assertEquals("0.0.0.0", Daemon.bindAddress("0.0.0.0", "s3cret", false, "test"));
        assertEquals("127.0.0.1", Daemon.bindAddress("127.0.0.1", "", false, "test"));
        assertEquals("localhost", Daemon.bindAddress("localhost", "", false, "test"));
    }

    @Test
    void shouldRefuseAnOpenAddressWithoutASecretUnlessInsecureAndThenWarn() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Daemon.bindAddress("0.0.0.0", "", false, "test"));
        assertTrue(e.getMessage().contains("without a cluster secret") && e.getMessage().contains("--insecure")
                && e.getMessage().contains("chmod 600"), e.getMessage());
        // the log goes to stdout in a daemon, to stderr under the other commands: either is caught here
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(log, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        try {
            assertEquals("0.0.0.0", Daemon.bindAddress("0.0.0.0", "", true, "test"));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        assertTrue(log.toString(StandardCharsets.UTF_8).matches("(?s)\\d{4}-\\d\\d-\\d\\dT[0-9:.]+(Z|[+-]\\d\\d:\\d\\d) WARN test - listening on 0.0.0.0 without a cluster secret.*"),
                log.toString());
    }

    @Test
    void shouldExitWithAUsageErrorWhenAMasterWouldListenOpenlyWithoutASecret(@TempDir Path dir) throws Exception {
        Path conf = Files.writeString(dir.resolve("rstore.conf"), "rstore.rdma.device = none\n");
        for (String[] args : new String[][] {
                {"master", "--conf", conf.toString(), "--bind", "0.0.0.0", "--port", "0"},
                {"server", "--conf", conf.toString(), "--bind", "0.0.0.0", "--port", "0"},
                {"serve", "--bind", "0.0.0.0", "--port", "0"}}) {
            CommandLine cli = RStoreCli.commandLine();
            StringWriter err = new StringWriter();
            cli.setErr(new PrintWriter(err));
            PrintStream stdout = System.out;
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)); // the daemons' configuration log
            int exit;
            try {
                exit = cli.execute(args);
            } finally {
                System.setOut(stdout);
            }
            assertEquals(CommandLine.ExitCode.USAGE, exit, String.join(" ", args) + ": " + err);
            assertTrue(err.toString().contains("refusing to listen on 0.0.0.0 without a cluster secret"), err.toString());
        }
    }
}
