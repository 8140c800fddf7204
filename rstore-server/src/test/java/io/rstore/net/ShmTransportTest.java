package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.protocol.ServerInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shm transport's own promises: chunk files private to the user, bytes straight in them, removed on release, auto's choice. */
class ShmTransportTest {
    private static final long CHUNK = 1 << 16;
    private Path shm;

    @BeforeEach
    void directory() throws IOException {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        shm = Files.createTempDirectory(base, "rstore-test-");
    }

    @AfterEach
    void cleanUp() throws IOException {
        try (Stream<Path> left = Files.walk(shm)) {
            left.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static RStoreSettings settings() {
        return RStoreSettings.defaults().withMemoryServers(2).withChunkSizeBytes(CHUNK).withServerCapacityBytes(64 * CHUNK)
                .withOperationTimeoutMs(5_000);
    }

    private List<Path> serverDirectories() throws IOException {
        try (Stream<Path> dirs = Files.list(shm)) {
            return dirs.filter(p -> p.getFileName().toString().startsWith("rstore-server-")).sorted().toList();
        }
    }

    private static List<Path> chunkFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("chunk-")).sorted().toList();
        }
    }

    @Test
    void shouldKeepChunksInPrivateFilesThatClientsWriteDirectlyAndRemoveThemOnRelease() throws IOException {
        Path stale = Files.createDirectory(shm.resolve("rstore-server-" + Integer.MAX_VALUE + "-dead"));
        Files.writeString(stale.resolve("chunk-0-1"), "left by a killed server");
        try (NetworkCluster cluster = NetworkCluster.start(settings(), new InetSocketAddress("127.0.0.1", 0), shm);
             RStore client = RStore.connect("rstore+shm://127.0.0.1:" + cluster.port(), settings())) {
            assertFalse(Files.exists(stale), "a dead server's directory is removed");
            List<Path> dirs = serverDirectories();
            assertEquals(2, dirs.size());
            for (Path dir : dirs) {
                assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
            }
            assertEquals("shm", client.transportName());

            Namespace ns = client.createNamespace("shm");
            RAddress segment = ns.alloc(2 * CHUNK, AllocFlags.GROW); // a chunk on each server
            try (Mapping m = segment.map(MapFlags.NONE)) {
                m.segment().set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
                m.segment().set(ValueLayout.JAVA_LONG, CHUNK, 0x0A0B0C0D0E0F0102L);
                m.write();
            }
            List<Path> files = Stream.concat(chunkFiles(dirs.get(0)).stream(), chunkFiles(dirs.get(1)).stream()).toList();
            assertEquals(2, files.size(), "one file per chunk: " + files);
            long found = 0;
            for (Path file : files) {
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
                assertEquals(CHUNK, Files.size(file));
                ByteBuffer first = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
                try (FileChannel channel = FileChannel.open(file)) {
                    channel.read(first, 0);
                }
                found |= first.getLong(0);
            }
            assertEquals(0x1122334455667788L | 0x0A0B0C0D0E0F0102L, found, "the bytes went straight into the chunk files");

            ns.free(segment);
            client.deleteNamespace("shm"); // the chunks go back to the pool under new keys
            List<Path> after = Stream.concat(chunkFiles(dirs.get(0)).stream(), chunkFiles(dirs.get(1)).stream()).toList();
            for (Path file : files) {
                assertFalse(after.contains(file), "the released chunk's file is gone: " + file);
            }
            for (Path file : after) {
                assertEquals(CHUNK, Files.size(file), "a pooled chunk keeps its size");
                assertEquals(0, firstLong(file), "a pooled chunk is a fresh, zeroed file");
            }
        }
        assertEquals(List.of(), serverDirectories(), "servers remove their directories when they stop");
    }

    private static long firstLong(Path file) throws IOException {
        ByteBuffer first = ByteBuffer.allocate(8);
        try (FileChannel channel = FileChannel.open(file)) {
            channel.read(first, 0);
        }
        return first.getLong(0);
    }

    @Test
    void shouldPickShmForServersOnThisHostAndTcpForTheOthers() {
        try (NetworkCluster withFiles = NetworkCluster.start(settings(), new InetSocketAddress("127.0.0.1", 0), shm);
             NetworkCluster tcpOnly = NetworkCluster.start(settings(), new InetSocketAddress("127.0.0.1", 0));
             RStore auto = RStore.connect("rstore://127.0.0.1:" + withFiles.port(), settings());
             RStore autoTcp = RStore.connect("rstore://127.0.0.1:" + tcpOnly.port(), settings());
             RStore forced = RStore.connect("rstore+shm://127.0.0.1:" + tcpOnly.port(), settings())) {
            assertEquals("auto", auto.transportName());
            for (ServerInfo s : auto.servers()) {
                assertEquals("shm", auto.transportTo(s), s.toString());
            }
            for (ServerInfo s : autoTcp.servers()) {
                assertEquals("tcp", autoTcp.transportTo(s), s.toString());
            }
            // both work end to end
            for (RStore client : List.of(auto, autoTcp)) {
                RAddress seg = client.createNamespace("auto").alloc(3 * CHUNK, AllocFlags.GROW);
                try (Mapping m = seg.map(MapFlags.NONE)) {
                    m.segment().set(ValueLayout.JAVA_LONG, 2 * CHUNK + 8, 42);
                    m.write();
                    m.segment().set(ValueLayout.JAVA_LONG, 2 * CHUNK + 8, 0);
                    m.read();
                    assertEquals(42, m.segment().get(ValueLayout.JAVA_LONG, 2 * CHUNK + 8));
                }
            }
            RAddress seg = forced.createNamespace("forced").alloc(CHUNK, AllocFlags.GROW);
            RStoreException e = assertThrows(RStoreException.class, () -> seg.map(MapFlags.NONE).close());
            assertEquals(ErrorCode.UNSUPPORTED, e.code());
            assertTrue(e.getMessage().contains("cannot be reached over shm") && e.getMessage().contains("rstore://"), e.getMessage());
        }
    }

    /**
     * A file written into a segment over shm is copied by the kernel into the chunks' files:
     * the endpoint's copy lands the bytes at the offset asked, refuses a wrong key and a range
     * past the chunk, and says so when the file ends first; allocFromFile over shm, which
     * takes that way, holds the file's bytes across chunks and servers.
     */
    @Test
    void shouldHaveTheKernelCopyAFileIntoChunkFiles() throws IOException {
        byte[] data = new byte[(int) (2 * CHUNK + CHUNK / 2)];
        new java.util.Random(3).nextBytes(data);
        Path file = shm.resolve("data.bin");
        Files.write(file, data);
        try (NetworkCluster cluster = NetworkCluster.start(settings(), new InetSocketAddress("127.0.0.1", 0), shm);
             RStore client = RStore.connect("rstore+shm://127.0.0.1:" + cluster.port(), settings());
             FileChannel channel = FileChannel.open(file)) {
            Namespace ns = client.createNamespace("from-file");
            RAddress copied = ns.allocFromFile(file, 0, data.length);
            try (Mapping m = copied.map(MapFlags.PREFETCH)) {
                org.junit.jupiter.api.Assertions.assertArrayEquals(data, m.segment().toArray(ValueLayout.JAVA_BYTE));
            }

            Namespace fresh = client.createNamespace("written");
            RAddress segment = fresh.alloc(CHUNK, AllocFlags.GROW); // the namespace's chunk 0, whole
            long session = cluster.master().openSession("test inspector");
            io.rstore.protocol.ChunkLocation chunk = cluster.master().lookup(session, fresh.id(), segment.address()).chunks().get(0);
            assertEquals(0, segment.address());
            assertEquals(0, chunk.index());
            ServerInfo server = client.servers().stream().filter(s -> s.id() == chunk.serverId()).findFirst().orElseThrow();
            try (io.rstore.transport.Endpoint endpoint = new io.rstore.transport.shm.ShmTransport().connect(server, id -> server)) {
                assertEquals(ErrorCode.NONE.code(), endpoint.writeFromFile(chunk.chunkId(), chunk.key(), 100, channel, CHUNK, 1000));
                assertEquals(ErrorCode.UNAUTHORIZED.code(), endpoint.writeFromFile(chunk.chunkId(), chunk.key() ^ 1, 0, channel, 0, 8));
                assertEquals(ErrorCode.OUT_OF_BOUNDS.code(), endpoint.writeFromFile(chunk.chunkId(), chunk.key(), CHUNK - 4, channel, 0, 8));
                assertEquals(ErrorCode.OUT_OF_BOUNDS.code(), endpoint.writeFromFile(chunk.chunkId(), chunk.key(), 0, channel, data.length - 4, 8),
                        "the file ends first");
            }
            try (Mapping m = segment.map(100, 1000, MapFlags.PREFETCH)) {
                org.junit.jupiter.api.Assertions.assertArrayEquals(java.util.Arrays.copyOfRange(data, (int) CHUNK, (int) CHUNK + 1000),
                        m.segment().toArray(ValueLayout.JAVA_BYTE));
            }
        }
    }
}
