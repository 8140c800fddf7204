package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RStore across hosts, as far as one machine can show it: the master, two memory servers
 * and two clients each in a network namespace of its own, joined by veth pairs on a
 * bridge, so every byte crosses a network interface. Needs root and iproute2 (CI has
 * both: .ci/run installs iproute2); elsewhere it is skipped, saying why.
 */
@Timeout(240)
class MultiHostTest {
    private final String tag = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
    private final String bridge = "rsbr" + tag;
    private final List<String> namespaces = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() {
        processes.forEach(Process::destroyForcibly);
        for (String ns : namespaces) {
            run(false, "ip", "netns", "delete", ns);
        }
        run(false, "ip", "link", "delete", bridge);
    }

    /** What a command did: whether it ran and exited 0, and its output (or why it could not run). */
    private record Ran(boolean ok, String output) {
    }

    private static Ran exec(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return new Ran(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, output);
        } catch (IOException e) {
            return new Ran(false, "cannot run " + command[0] + ": " + e.getMessage() + " (install iproute2)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Ran(false, "interrupted");
        }
    }

    /** Runs a command; with {@code required}, a failure skips the test (the machine does not allow it). */
    private boolean run(boolean required, String... command) {
        Ran ran = exec(command);
        if (!ran.ok() && required) {
            Assumptions.abort("this machine does not allow network namespaces (" + String.join(" ", command) + ": " + ran.output() + ")");
        }
        return ran.ok();
    }

    /** A command's output lines, none if it failed. */
    private static List<String> lines(String... command) {
        Ran ran = exec(command);
        return ran.ok() ? ran.output().lines().toList() : List.of();
    }

    /**
     * A run killed before its teardown leaves its namespaces and bridge behind, and that
     * bridge's 10.77.0.254 would take this run's traffic (the master "refuses" every
     * connection): remove what this test's names say it made.
     */
    private void removeLeftovers() {
        for (String line : lines("ip", "netns", "list")) {
            String name = line.split(" ")[0];
            if (name.matches("rs[0-9a-f]{4}h\\d+")) {
                run(false, "ip", "netns", "delete", name);
            }
        }
        for (String line : lines("ip", "-o", "link", "show", "type", "bridge")) { // "12: rsbrf229: <BROADCAST,...> ..."
            String[] fields = line.split(":\\s*");
            if (fields.length > 1 && fields[1].matches("rsbr[0-9a-f]{4}")) {
                run(false, "ip", "link", "delete", fields[1]);
            }
        }
    }

    /** A host: a network namespace with address 10.77.0.{@code host} on the bridge. */
    private String host(int host) {
        String ns = "rs" + tag + "h" + host;
        String veth = "rs" + tag + "v" + host;
        run(true, "ip", "netns", "add", ns);
        namespaces.add(ns);
        run(true, "ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns);
        run(true, "ip", "link", "set", veth, "master", bridge, "up");
        run(true, "ip", "netns", "exec", ns, "ip", "addr", "add", "10.77.0." + host + "/24", "dev", "eth0");
        run(true, "ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up");
        run(true, "ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
        run(true, Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-version"); // java runs here at all
        run(true, "ip", "netns", "exec", ns, Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-version"); // and in the namespace
        return ns;
    }

    private Process java(String ns, String main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", ns,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), main));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        processes.add(p);
        return p;
    }

    @Test
    void shouldServeClientsOnOtherHostsThroughTheBarrier() throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux"), "network namespaces are Linux's");
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "network namespaces need root; run as root (CI does)");
        removeLeftovers();
        run(true, "ip", "link", "add", bridge, "type", "bridge");
        run(true, "ip", "link", "set", bridge, "up");
        run(true, "ip", "addr", "add", "10.77.0.254/24", "dev", bridge); // this JVM is a host on that network too
        String master = host(1);
        String[] servers = {host(2), host(3)};
        String[] clients = {host(4), host(5)};

        Path conf = dir.resolve("rstore.conf");
        Files.writeString(conf, """
                rstore.chunk.size = 1MiB
                rstore.server.capacity = 64MiB
                rstore.shm.dir =
                rstore.timeout = 10s
                """);
        // a private test network without a cluster secret: protected mode wants that said (--insecure), and servers on other hosts allowed
        Process m = java(master, "io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--bind", "10.77.0.1", "--port", "7400",
                "--insecure", "--allow-remote-servers");
        JavaProcesses.awaitLine(m, "serving on 10\\.77\\.0\\.1:7400", 60);
        for (int i = 0; i < 2; i++) {
            String address = "10.77.0." + (2 + i);
            Process s = java(servers[i], "io.rstore.cli.RStoreCli", "server", "--conf", conf.toString(), "--master", "10.77.0.1:7400",
                    "--bind", address, "--port", "7401", "--insecure");
            JavaProcesses.awaitLine(s, "serving 64 MiB at rstore\\+tcp://" + address.replace(".", "\\.") + ":7401", 60);
        }
        List<Process> running = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            running.add(java(clients[i], "io.rstore.net.MultiHostClient", "rstore://10.77.0.1:7400", Integer.toString(i)));
        }
        for (int i = 0; i < 2; i++) {
            Matcher ok = JavaProcesses.awaitLine(running.get(i), "client " + i + " ok: .*", 120);
            assertTrue(ok.group().contains("rstore+tcp://10.77.0.2:7401/0=tcp") && ok.group().contains("rstore+tcp://10.77.0.3:7401/1=tcp"),
                    "auto chose tcp for servers on other hosts: " + ok.group());
            assertTrue(running.get(i).waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, running.get(i).exitValue());
        }

        // a client host that vanishes without closing its connection (no FIN, no RST): TCP
        // keepalive ends the connection (10 s idle, then 3 probes 2 s apart) and with it the
        // client's references
        try (RStore here = RStore.connect("rstore+tcp://10.77.0.1:7400", RStoreSettings.defaults().withOperationTimeoutMs(10_000))) {
            Namespace held = here.createNamespace("held");
            RAddress segment = held.alloc(1 << 20, AllocFlags.GROW);
            Process holder = java(clients[0], "io.rstore.net.MappingHolder", "rstore+tcp://10.77.0.1:7400", "held", Long.toString(segment.address()));
            assertEquals("mapped", JavaProcesses.nextLine(holder, 60));
            assertEquals(1, held.info().mappedSegments());
            run(true, "ip", "netns", "exec", clients[0], "ip", "link", "set", "eth0", "down");
            long start = System.nanoTime();
            while (held.info().mappedSegments() > 0 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(45)) {
                Thread.sleep(250);
            }
            assertEquals(0, held.info().mappedSegments(), "the vanished client's reference was dropped");
            assertTrue(holder.isAlive(), "the client process still runs: only its network is gone");
            held.free(segment);
        }
    }
}
