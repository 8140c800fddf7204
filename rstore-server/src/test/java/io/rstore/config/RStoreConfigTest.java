package io.rstore.config;

import io.rstore.config.RStoreConfig.Key;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RStoreConfigTest {
    @TempDir
    Path dir;

    private Path conf(String text) throws IOException {
        Path file = dir.resolve("rstore.conf");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void shouldLayerFileThenEnvironmentThenFlags() throws IOException {
        Path file = conf("""
                # comment
                rstore.master.port = 7500
                rstore.server.capacity = 2GiB

                rstore.timeout = 500ms
                rstore.chunk.size = 4MiB
                """);
        RStoreConfig config = RStoreConfig.load(file, Map.of("RSTORE_MASTER_PORT", "7600", "RSTORE_CHUNK_SIZE", "8MiB"),
                Map.of(Key.MASTER_PORT, "7700"));
        assertEquals(7700, config.port(Key.MASTER_PORT), "a flag beats the environment and the file");
        assertEquals(8L << 20, config.bytes(Key.CHUNK_SIZE), "the environment beats the file");
        assertEquals(2L << 30, config.bytes(Key.SERVER_CAPACITY), "the file beats the default");
        assertEquals(500, config.millis(Key.TIMEOUT));
        assertEquals(1000, config.millis(Key.HEARTBEAT), "default");
        List<String> described = config.describe(List.of(Key.MASTER_PORT, Key.CHUNK_SIZE, Key.SERVER_CAPACITY, Key.HEARTBEAT));
        assertEquals("configuration file " + file, described.get(0));
        assertTrue(described.get(1).contains("7700") && described.get(1).endsWith("(flag)"), described.get(1));
        assertTrue(described.get(2).endsWith("(environment RSTORE_CHUNK_SIZE)"), described.get(2));
        assertTrue(described.get(3).endsWith("(" + file + ":3)"), described.get(3));
        assertTrue(described.get(4).endsWith("(default)"), described.get(4));
    }

    @Test
    void shouldNameTheLineOfAnUnknownKeyOrBadValue() throws IOException {
        Path typo = conf("rstore.master.port = 7400\nrstore.sever.port = 1\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RStoreConfig.load(typo, Map.of(), Map.of()));
        assertTrue(e.getMessage().startsWith(typo + ":2: unknown key 'rstore.sever.port'"), e.getMessage());

        Path bad = conf("rstore.chunk.size = lots\n");
        e = assertThrows(IllegalArgumentException.class, () -> RStoreConfig.load(bad, Map.of(), Map.of()));
        assertTrue(e.getMessage().contains("rstore.chunk.size = 'lots' (from " + bad + ":1) is not a size"), e.getMessage());

        Path noEquals = conf("rstore.transport tcp\n");
        e = assertThrows(IllegalArgumentException.class, () -> RStoreConfig.load(noEquals, Map.of(), Map.of()));
        assertTrue(e.getMessage().contains(":1: expected 'key = value'"), e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> RStoreConfig.load(null, Map.of("RSTORE_CONF", dir.resolve("none").toString(),
                "RSTORE_MASTER_PORT", "70000"), Map.of()));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());

        Path fine = conf("");
        e = assertThrows(IllegalArgumentException.class, () -> RStoreConfig.load(fine, Map.of("RSTORE_MASTER_PORT", "70000"), Map.of()));
        assertTrue(e.getMessage().contains("(from environment RSTORE_MASTER_PORT) is not a port"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RStoreConfig.load(fine, Map.of(), Map.of(Key.TRANSPORT, "carrier-pigeon")));
        assertTrue(e.getMessage().contains("(from flag) is not one of auto, shm, tcp, rdma"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RStoreConfig.load(fine, Map.of(), Map.of(Key.HEARTBEAT, "0s")));
        assertTrue(e.getMessage().contains("is not a positive duration"), e.getMessage());
    }

    @Test
    void shouldRequireAFileNamedExplicitlyButNotTheDefaultOne() {
        Path missing = dir.resolve("missing.conf");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RStoreConfig.load(missing, Map.of(), Map.of()));
        assertTrue(e.getMessage().contains(missing + " does not exist"), e.getMessage());
        String home = System.getProperty("rstore.home");
        System.setProperty("rstore.home", dir.toString());
        try {
            RStoreConfig defaults = RStoreConfig.load(null, Map.of(), Map.of());
            assertEquals(7400, defaults.port(Key.MASTER_PORT));
            assertTrue(defaults.describe(List.of()).get(0).startsWith("no configuration file"), defaults.describe(List.of()).get(0));
        } finally {
            if (home == null) {
                System.clearProperty("rstore.home");
            } else {
                System.setProperty("rstore.home", home);
            }
        }
    }

    @Test
    void shouldDocumentEveryKeyInTheShippedFile() throws IOException {
        Path shipped = Path.of(System.getProperty("user.dir")).getParent().resolve("conf/rstore.conf");
        String text = Files.readString(shipped);
        for (Key k : Key.values()) {
            assertTrue(text.contains("\n" + k.name + " ="), "conf/rstore.conf sets " + k.name);
        }
        RStoreConfig.load(shipped, Map.of(), Map.of()); // and it loads
    }
}
