package io.rstore.config;


import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The daemons' configuration: each {@link Key} from its default, overridden by the file
 * ({@code conf/rstore.conf}: {@code key = value} lines, {@code #} comments), then by the
 * environment ({@code rstore.master.port} is {@code RSTORE_MASTER_PORT}), then by flags.
 * Every value remembers where it came from, so a daemon can log what it runs with.
 */
public final class RStoreConfig {

    /** Every key, with its default and what it means (conf/rstore.conf says the same). */
    public enum Key {
        MASTER_HOST("rstore.master.host", "127.0.0.1", "where memory servers and clients find the master (host name or address)"),
        MASTER_BIND("rstore.master.bind", "", "address the master listens on (empty: 0.0.0.0 with a cluster secret, 127.0.0.1 without)"),
        MASTER_PORT("rstore.master.port", "7400", "port the master listens on"),
        SERVER_BIND("rstore.server.bind", "", "address a memory server listens on (empty: 0.0.0.0 with a cluster secret, 127.0.0.1 without)"),
        SERVER_PORT("rstore.server.port", "0", "port a memory server listens on (0: any free port; it tells the master)"),
        SERVER_ADVERTISE("rstore.server.advertise", "", "host clients reach a memory server at (empty: the bind address, or this host's name when bound to all)"),
        SERVER_CAPACITY("rstore.server.capacity", "8GiB", "DRAM one memory server may hand out (bytes: 4096, 64MiB, 8GiB)"),
        CHUNK_SIZE("rstore.chunk.size", "16MiB", "chunk size, a power of two (bytes); set on the master"),
        TRANSPORT("rstore.transport", "auto", "clients' data path to memory servers: auto, shm, tcp or rdma (auto: shm on the same host, rdma to a real RDMA device, tcp otherwise); the rstore tools' URI scheme"),
        SHM_DIR("rstore.shm.dir", "/dev/shm", "directory of a memory server's chunk files for the shm transport (tmpfs or hugetlbfs)"),
        MASTER_PERSISTENCE_DIR("rstore.master.persistence.dir", "", "directory of the master's journal of metadata changes, replayed when it starts (empty: metadata in memory only, lost with the master)"),
        SERVER_PERSISTENCE_DIR("rstore.server.persistence.dir", "", "directory of a memory server's chunk files, kept across restarts and flushed by persist (empty: chunks in memory only)"),
        RDMA_DEVICE("rstore.rdma.device", "auto", "RDMA device of the master (control calls over SEND/RECV) and of a memory server (its chunks): auto (disni when this host has a device and libdisni), disni, emulated (software, for tests) or none"),
        MASTER_RDMA_PORT("rstore.master.rdma.port", "7401", "port the master's RDMA listener takes for control calls, when it has a device"),
        SERVER_RDMA_PORT("rstore.server.rdma.port", "0", "port a memory server's RDMA listener takes (0: any free port; it tells the master)"),
        SECRET_FILE("rstore.secret.file", "", "file whose first line is the cluster secret (empty: $RSTORE_SECRET, else no secret)"),
        TIMEOUT("rstore.timeout", "30s", "bound on any call or remote operation (durations: 500ms, 30s, 2m)"),
        HEARTBEAT("rstore.heartbeat", "1s", "how often the master pings each memory server, and each server repeats its registration"),
        INSECURE("rstore.insecure", "false", "let a daemon without a cluster secret listen on an address other hosts reach (true or false)"),
        REMOTE_SERVERS("rstore.master.remote-servers", "false", "without a cluster secret, let memory servers on other hosts register (true or false)"),
        MAX_CONNECTIONS("rstore.net.max-connections", "4096", "authenticated connections a daemon serves at once; more are refused (OVERLOADED)"),
        MAX_PENDING_HANDSHAKES("rstore.net.max-pending-handshakes", "1024",
                "connections still to answer the challenge, apart from the authenticated; when full, the longest-waiting is closed"),
        MAX_PENDING_PER_SOURCE("rstore.net.max-pending-per-source", "256",
                "of those, from one source address; when full, that source's longest-waiting is closed"),
        HANDSHAKE_TIMEOUT("rstore.net.handshake-timeout", "5s", "bound on a new connection's answer to the challenge"),
        FRAME_TIMEOUT("rstore.net.frame-timeout", "30s", "bound on the rest of a frame once it has begun, and on a client taking an answer"),
        RDMA_MESSAGE_MEMORY("rstore.rdma.message-memory", "1GiB",
                "the master's RDMA listener: message buffers for all authenticated queue pairs together, 4 MiB each (bytes); when in use, OVERLOADED"),
        METRICS_PORT("rstore.metrics.port", "", "port of a daemon's Prometheus metrics endpoint, http://HOST:PORT/metrics (empty: none; 0: any free port); JMX is always on"),
        LOG_LEVEL("rstore.log.level", "info", "what a daemon logs: trace, debug, info, warn or error"),
        LOG_FILE("rstore.log.file", "", "file a daemon logs to (empty: stdout)");

        public final String name;
        public final String defaultValue;
        public final String meaning;

        Key(String name, String defaultValue, String meaning) {
            this.name = name;
            this.defaultValue = defaultValue;
            this.meaning = meaning;
        }

        /** The environment variable that overrides it. */
        public String environmentName() {
            return name.toUpperCase(Locale.ROOT).replace('.', '_');
        }

        static Key named(String name) {
            for (Key k : values()) {
                if (k.name.equals(name)) {
                    return k;
                }
            }
            return null;
        }
    }

    private record Value(String text, String source) {
    }

    private final Map<Key, Value> values = new EnumMap<>(Key.class);
    private final String fileNote;

    private RStoreConfig(String fileNote) {
        this.fileNote = fileNote;
    }

    /** Where the file is looked for when no --conf is given: $RSTORE_CONF, else conf/rstore.conf under RStore's home. */
    public static Path defaultFile(Map<String, String> environment) {
        String explicit = environment.get("RSTORE_CONF");
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit);
        }
        return Path.of(System.getProperty("rstore.home", "."), "conf", "rstore.conf");
    }

    /**
     * Loads the configuration. {@code file} null: the default file, which may be absent;
     * a file named explicitly must exist. {@code flags} maps keys to values given on the
     * command line (absent flags are not in it).
     */
    public static RStoreConfig load(Path file, Map<String, String> environment, Map<Key, String> flags) {
        boolean explicit = file != null;
        Path path = explicit ? file : defaultFile(environment);
        RStoreConfig config;
        try {
            List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
            config = new RStoreConfig("configuration file " + path);
            config.defaults();
            config.read(path, lines);
        } catch (NoSuchFileException e) {
            if (explicit || environment.containsKey("RSTORE_CONF")) {
                throw new IllegalArgumentException("configuration file " + path + " does not exist; give an existing --conf file or none");
            }
            config = new RStoreConfig("no configuration file (" + path + " does not exist): defaults");
            config.defaults();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read configuration file " + path + ": " + e.getMessage());
        }
        for (Key k : Key.values()) {
            String value = environment.get(k.environmentName());
            if (value != null) {
                config.set(k, value.trim(), "environment " + k.environmentName());
            }
        }
        for (Map.Entry<Key, String> flag : flags.entrySet()) {
            config.set(flag.getKey(), flag.getValue(), "flag");
        }
        return config;
    }

    private void defaults() {
        for (Key k : Key.values()) {
            values.put(k, new Value(k.defaultValue, "default"));
        }
    }

    private void read(Path path, List<String> lines) {
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            String where = path + ":" + (i + 1);
            if (eq < 0) {
                throw new IllegalArgumentException(where + ": expected 'key = value', found '" + line + "'");
            }
            String name = line.substring(0, eq).strip();
            Key key = Key.named(name);
            if (key == null) {
                throw new IllegalArgumentException(where + ": unknown key '" + name + "'; the keys are listed in conf/rstore.conf and docs/rstore.md");
            }
            set(key, line.substring(eq + 1).strip(), where);
        }
    }

    private void set(Key key, String value, String source) {
        values.put(key, new Value(value, source));
        check(key); // a bad value is reported where it was written
    }

    private void check(Key key) {
        switch (key) {
            case MASTER_PORT, SERVER_PORT, MASTER_RDMA_PORT, SERVER_RDMA_PORT -> port(key);
            case SERVER_CAPACITY, CHUNK_SIZE, RDMA_MESSAGE_MEMORY -> bytes(key);
            case TIMEOUT, HEARTBEAT, HANDSHAKE_TIMEOUT, FRAME_TIMEOUT -> millis(key);
            case INSECURE, REMOTE_SERVERS -> bool(key);
            case METRICS_PORT -> {
                if (!get(key).isEmpty()) {
                    port(key);
                }
            }
            case LOG_LEVEL -> {
                if (!Logs.LEVELS.contains(get(key))) {
                    throw bad(key, "is not one of " + String.join(", ", Logs.LEVELS));
                }
            }
            case MAX_CONNECTIONS, MAX_PENDING_HANDSHAKES, MAX_PENDING_PER_SOURCE -> count(key);
            case TRANSPORT -> {
                if (!List.of("auto", "shm", "tcp", "rdma").contains(get(key))) {
                    throw bad(key, "is not one of auto, shm, tcp, rdma (inproc is the embedded cluster, not a daemon)");
                }
            }
            case RDMA_DEVICE -> {
                if (!List.of("auto", "disni", "emulated", "none").contains(get(key))) {
                    throw bad(key, "is not one of auto, disni, emulated, none");
                }
            }
            default -> {
            }
        }
    }

    public String get(Key key) {
        return values.get(key).text();
    }

    public boolean bool(Key key) {
        return switch (get(key)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(key, "is not true or false");
        };
    }

    /** A positive whole number. */
    public int count(Key key) {
        try {
            int n = Integer.parseInt(get(key));
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw bad(key, "is not a positive whole number");
    }

    public int port(Key key) {
        try {
            int port = Integer.parseInt(get(key));
            if (port < 0 || port > 65535) {
                throw bad(key, "is not a port (0..65535)");
            }
            return port;
        } catch (NumberFormatException e) {
            throw bad(key, "is not a port (0..65535)");
        }
    }

    public long bytes(Key key) {
        try {
            return Units.parseBytes(get(key));
        } catch (IllegalArgumentException e) {
            throw bad(key, "is not a size (4096, 64KiB, 16MiB, 8GiB)");
        }
    }

    public long millis(Key key) {
        String t = get(key).toLowerCase(Locale.ROOT).replace(" ", "");
        try {
            long ms;
            if (t.endsWith("ms")) {
                ms = Long.parseLong(t.substring(0, t.length() - 2));
            } else if (t.endsWith("s")) {
                ms = Math.multiplyExact(Long.parseLong(t.substring(0, t.length() - 1)), 1000L);
            } else if (t.endsWith("m")) {
                ms = Math.multiplyExact(Long.parseLong(t.substring(0, t.length() - 1)), 60_000L);
            } else {
                throw new NumberFormatException();
            }
            if (ms <= 0) {
                throw new NumberFormatException();
            }
            return ms;
        } catch (NumberFormatException | ArithmeticException e) {
            throw bad(key, "is not a positive duration (500ms, 30s, 2m)");
        }
    }

    private IllegalArgumentException bad(Key key, String problem) {
        Value v = values.get(key);
        return new IllegalArgumentException(key.name + " = '" + v.text() + "' (from " + v.source() + ") " + problem);
    }

    /** The effective configuration, one line per key with its source; the secret itself is never shown. */
    public List<String> describe(List<Key> keys) {
        List<String> lines = new ArrayList<>();
        lines.add(fileNote);
        for (Key k : keys) {
            Value v = values.get(k);
            lines.add(String.format("  %-28s = %-16s (%s)", k.name, v.text().isEmpty() ? "\"\"" : v.text(), v.source()));
        }
        return lines;
    }
}
