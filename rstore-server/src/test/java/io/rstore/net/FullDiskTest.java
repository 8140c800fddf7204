package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.NamespaceFlags;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Daemons whose disks fill up, on real small file systems (tmpfs mounted for the test, so
 * it needs root; it says so and skips without): a durable memory server refuses the chunk
 * that no longer fits with NO_SPACE and logs it, every chunk it did give can be written
 * whole over tcp and over shm (no store faults on a sparse file), and it goes on serving; a
 * master whose journal's disk fills answers NO_SPACE and logs it.
 */
@Timeout(180)
class FullDiskTest {
    private static final int CHUNK = 1 << 20;
    private final JavaProcesses processes = new JavaProcesses();
    private final List<Path> mounted = new ArrayList<>();
    private int port;
    private Path conf;

    @TempDir
    Path dir;

    @BeforeEach
    void configure() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a small tmpfs needs root");
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        conf = Files.writeString(dir.resolve("rstore.conf"), """
                rstore.chunk.size = 1MiB
                rstore.server.capacity = 64MiB
                rstore.shm.dir =
                rstore.timeout = 5s
                """);
    }

    @AfterEach
    void cleanUp() throws Exception {
        processes.close();
        Thread.sleep(200); // the killed daemons let go of their files
        for (Path p : mounted) {
            new ProcessBuilder("umount", "-l", p.toString()).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A tmpfs of {@code size} at a new directory {@code name}. */
    private Path smallDisk(String name, String size) throws Exception {
        Path at = Files.createDirectories(dir.resolve(name));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700", "tmpfs", at.toString()).inheritIO().start();
        assumeTrue(mount.waitFor(10, TimeUnit.SECONDS) && mount.exitValue() == 0, "cannot mount a tmpfs here");
        mounted.add(at);
        return at;
    }

    private Process master(Path persistence) throws Exception {
        Process master = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--port", Integer.toString(port),
                "--persistence-dir", persistence.toString());
        JavaProcesses.awaitLine(master, "serving on 127\\.0\\.0\\.1:" + port, 60);
        return master;
    }

    private RStore client(String scheme) {
        return RStore.connect(scheme + "://127.0.0.1:" + port, RStoreSettings.defaults().withOperationTimeoutMs(5_000));
    }

    @Test
    void shouldRefuseTheChunkThatNoLongerFitsAndWriteEveryOneItGave() throws Exception {
        master(dir.resolve("master"));
        Path disk = smallDisk("server-0", "6m");
        Process server = processes.start("io.rstore.cli.RStoreCli", "server", "--conf", conf.toString(), "--master", "127.0.0.1:" + port,
                "--persistence-dir", disk.toString());
        JavaProcesses.awaitLine(server, "memory server 0 serving", 60);
        try (RStore rstore = client("rstore+tcp")) {
            Namespace ns = rstore.createNamespace("full", NamespaceFlags.DURABLE);
            List<RAddress> given = new ArrayList<>();
            RStoreException refused = null;
            for (int i = 0; i < 20 && refused == null; i++) {
                try {
                    given.add(ns.alloc(CHUNK, AllocFlags.GROW));
                } catch (RStoreException e) {
                    refused = e;
                }
            }
            assertTrue(refused != null, "a 6 MiB disk took " + given.size() + " chunks of 1 MiB");
            assertEquals(ErrorCode.NO_SPACE, refused.code(), refused.getMessage());
            assertTrue(refused.getMessage().contains(disk.toString()) && refused.getMessage().contains("No space left on device"), refused.getMessage());
            assertTrue(given.size() >= 4, given.size() + " chunks given before the disk was full");
            JavaProcesses.awaitLine(server, "WARN.*NO_SPACE: no room for a chunk file", 10);

            for (String scheme : List.of("rstore+tcp", "rstore")) { // rstore: shm, the chunk files mapped in the client
                try (RStore writer = client(scheme)) {
                    Namespace there = writer.joinNamespace("full");
                    for (int i = 0; i < given.size(); i++) {
                        try (Mapping m = there.raddress(given.get(i).address()).map(MapFlags.NONE)) {
                            for (long at = 0; at < CHUNK; at += 8) {
                                m.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, at, at * 31 + i + scheme.length());
                            }
                            m.write(); // a sparse chunk file would fault here, on the page the disk cannot back
                            m.persist(0, CHUNK);
                        }
                    }
                }
            }
            for (int i = 0; i < given.size(); i++) {
                try (Mapping m = given.get(i).map(MapFlags.NONE)) {
                    m.read();
                    for (long at = 0; at < CHUNK; at += 8) {
                        assertEquals(at * 31 + i + "rstore".length(), m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, at), "chunk " + i + " at " + at);
                    }
                }
            }
            ns.free(given.removeLast()); // its place in the namespace is taken again: the server serves on
            RAddress again = ns.alloc(CHUNK, AllocFlags.GROW);
            assertTrue(again.address() >= 0);
        }
        assertTrue(server.isAlive(), "the memory server is still running");
    }

    @Test
    void shouldAnswerNoSpaceWhenTheJournalsDiskIsFull() throws Exception {
        Process master = master(smallDisk("master", "64k"));
        RStoreException refused;
        try (RStore rstore = client("rstore+tcp")) {
            String longName = "n".repeat(200);
            refused = assertThrows(RStoreException.class, () -> {
                for (int i = 0; i < 100_000; i++) {
                    rstore.createNamespace(longName + i, NamespaceFlags.NONE);
                }
            });
        }
        assertEquals(ErrorCode.NO_SPACE, refused.code(), refused.getMessage());
        assertTrue(refused.getMessage().contains("could not write its journal") && refused.getMessage().contains("No space left on device"),
                refused.getMessage());
        JavaProcesses.awaitLine(master, "ERROR.*NO_SPACE: the master could not write its journal", 10);
    }
}
