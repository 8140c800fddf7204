package io.rstore.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.config.Units;
import io.rstore.protocol.ServerInfo;
import io.rstore.server.ShmChunkFiles;
import io.rstore.transport.rdma.RdmaEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "doctor", mixinStandardHelpOptions = true,
        header = "What this host offers RStore: RDMA devices, libdisni, locked memory, huge pages, shared memory, and the transport auto picks.",
        description = "With --cluster, also which transport reaches each memory server of that cluster, and why.")
final class DoctorCommand implements Callable<Integer> {
    @Option(names = {"-c", "--cluster"}, paramLabel = "URI", description = "a running cluster to check the route to each server of")
    String cluster;

    @Option(names = "--persistence-dir", paramLabel = "DIR", description = "a memory server's persistence directory: is it DAX (persistent memory, MAP_SYNC), and how much room")
    Path persistenceDir;

    @Spec
    CommandSpec spec;

    @Option(names = "--format", paramLabel = "table|json", defaultValue = "table", description = "output format (default: ${DEFAULT-VALUE})")
    String format;

    /** The findings in order: label, then what was found. */
    private final LinkedHashMap<String, String> findings = new LinkedHashMap<>();

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        boolean json = JsonReport.json(format);
        List<String> devices = RdmaEnvironment.devices();
        line("RDMA devices", devices.isEmpty() ? "none (/sys/class/infiniband is empty or missing)" : String.join(", ", devices));
        Path library = RdmaEnvironment.library();
        int version = library == null ? -1 : RdmaEnvironment.libraryVersion();
        line("libdisni", library == null ? "not on java.library.path (" + System.getProperty("java.library.path") + ")"
                : version < 0 ? library + " is there but does not load (built for another libibverbs?)" : library + ", version " + version);
        line("locked memory", lockedMemory());
        line("huge pages", hugePages());
        Path shm = Path.of("/dev/shm");
        line("shared memory", Files.isDirectory(shm) ? shm + ", " + free(shm) + " free" : "no /dev/shm: the shm transport is off");
        if (persistenceDir != null) {
            line("persistence", persistence(persistenceDir));
        }
        String probe = RdmaEnvironment.probe(); // tried, not guessed from files
        line("device check", probe);
        String rdma = probe.startsWith("opened ") && !probe.contains(", but ") ? null
                : probe.startsWith("not tried: ") ? probe.substring("not tried: ".length()) : probe;
        line("auto picks", "shm for memory servers on this host; " + (rdma == null ? "rdma (disni) for servers with an RDMA device; " : "")
                + "tcp for the others" + (rdma == null ? "" : "; not rdma: " + rdma));
        if (cluster != null) {
            try (RStore rstore = RStore.connect(cluster, RStoreSettings.defaults().withClusterSecret(Secrets.fromEnvironment()))) {
                for (ServerInfo s : rstore.servers()) {
                    line("server " + s.id(), s.address() + " -> " + rstore.transportTo(s)
                            + (s.rdma().isEmpty() ? "" : " (it offers rdma at " + s.rdma() + ")"));
                }
            }
        }
        if (json) { // keys a program can name (rdmaDevices, lockedMemory, server0, ...), the facts as lists and numbers where there are some
            ObjectNode report = JsonReport.header(spec);
            ArrayNode deviceList = report.putArray("rdmaDevices");
            devices.forEach(deviceList::add);
            report.put("libdisni", library == null ? null : library.toString()).put("libdisniVersion", version < 0 ? null : version);
            report.put("rdmaUsable", rdma == null);
            ObjectNode found = report.putObject("findings");
            findings.forEach((what, finding) -> found.put(key(what), finding));
            JsonReport.print(report, out);
        } else {
            findings.forEach((what, finding) -> out.printf("%-16s %s%n", what + ":", finding));
        }
        out.flush();
        return 0;
    }

    /** Whether a server's chunk files in {@code dir} would be DAX-mapped (MAP_SYNC tried, not guessed), its file system and room. */
    private static String persistence(Path dir) {
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            return dir + " is not a writable directory (a memory server creates it if its parent is writable)";
        }
        String type;
        try {
            type = Files.getFileStore(dir).type();
        } catch (IOException e) {
            type = "unknown file system";
        }
        return dir + " on " + type + ", " + free(dir) + " free; " + (ShmChunkFiles.dax(dir)
                ? "DAX: chunks mapped with MAP_SYNC, so persist has no page cache to write back"
                : "not DAX (MAP_SYNC refused): persist is an msync to the disk");
    }

    /** "RDMA devices" as a JSON key: rdmaDevices; "server 3": server3. */
    static String key(String label) {
        StringBuilder key = new StringBuilder();
        boolean upper = false;
        for (String word : label.split(" ")) {
            if (key.isEmpty()) {
                key.append(word.equals(word.toUpperCase(Locale.ROOT)) ? word.toLowerCase(Locale.ROOT) : word);
            } else if (!word.isEmpty()) {
                key.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
            }
        }
        return key.toString();
    }

    private void line(String what, String finding) {
        findings.put(what, finding);
    }

    /** The soft limit on locked memory: RDMA registration pins chunks, so servers need it unlimited (or above their capacity). */
    private static String lockedMemory() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (l.startsWith("Max locked memory")) {
                    String soft = l.substring("Max locked memory".length()).trim().split("\\s+")[0];
                    String shown = soft.equals("unlimited") ? "unlimited" : Units.bytes(Long.parseLong(soft));
                    return shown + (soft.equals("unlimited") ? "" : " (RDMA pins registered memory: raise it for memory servers, ulimit -l unlimited)");
                }
            }
        } catch (IOException | RuntimeException e) {
            // below
        }
        return "unknown (no /proc/self/limits)";
    }

    private static String hugePages() {
        String thp = "?";
        try {
            String mode = Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled")).trim();
            int open = mode.indexOf('[');
            thp = open >= 0 ? mode.substring(open + 1, mode.indexOf(']')) : mode;
        } catch (IOException | RuntimeException e) {
            // not Linux, or not exposed
        }
        String reserved = "?";
        try {
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("HugePages_Total:")) {
                    reserved = l.substring(16).trim();
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return "transparent: " + thp + " (RStore asks for them with madvise); reserved 2 MiB pages: " + reserved;
    }

    private static String free(Path dir) {
        try {
            return Units.bytes(Files.getFileStore(dir).getUsableSpace() / (1 << 20) * (1 << 20));
        } catch (IOException e) {
            return "?";
        }
    }
}
