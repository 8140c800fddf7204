package io.rstore.net;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * JVMs started by a test on its class path, read line by line with a bound, and all killed
 * at the end: by {@link #close}, or after each test as a registered extension
 * ({@code @RegisterExtension final JavaProcesses processes = new JavaProcesses();}).
 */
final class JavaProcesses implements AutoCloseable, AfterEachCallback {
    private final List<Process> started = new ArrayList<>();

    /**
     * Starts {@code main} in a JVM of its own as bin/ starts one (DiSNI reads buffers' addresses
     * through sun.nio.ch), with this one's class path and native library path (libdisni, where
     * a test runs on a real device) and its JIT tier where one was set (bin/test-rdma's guest
     * keeps to C1 under emulation).
     */
    Process start(String main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED", "-Xmx256m",
                "-Djava.library.path=" + System.getProperty("java.library.path")));
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> a.startsWith("-XX:TieredStopAtLevel=")).forEach(command::add);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        started.add(p);
        return p;
    }

    /** The next line {@code p} prints, within a bound (null at its end). */
    static String nextLine(Process p, long seconds) throws Exception {
        BufferedReader out = reader(p);
        return CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return null;
            }
        }).get(seconds, TimeUnit.SECONDS);
    }

    /** Reads {@code p}'s lines until one matches {@code pattern} and returns the match, within a bound. */
    static Matcher awaitLine(Process p, String pattern, long seconds) throws Exception {
        Pattern wanted = Pattern.compile(pattern);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<String> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            String line = nextLine(p, Math.max(1, TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime())));
            if (line == null) {
                throw new AssertionError("the process ended without printing /" + pattern + "/; it printed " + seen);
            }
            seen.add(line);
            Matcher m = wanted.matcher(line);
            if (m.find()) {
                return m;
            }
        }
        throw new AssertionError("no line matching /" + pattern + "/ within " + seconds + " s; saw " + seen);
    }

    // one reader per process, so lines buffered by an earlier read are not lost
    private static final java.util.Map<Process, BufferedReader> READERS = new java.util.concurrent.ConcurrentHashMap<>();

    private static BufferedReader reader(Process p) {
        return READERS.computeIfAbsent(p, q -> new BufferedReader(new InputStreamReader(q.getInputStream(), StandardCharsets.UTF_8)));
    }

    @Override
    public void close() {
        started.forEach(Process::destroyForcibly);
        started.forEach(READERS::remove);
        started.clear();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }
}
