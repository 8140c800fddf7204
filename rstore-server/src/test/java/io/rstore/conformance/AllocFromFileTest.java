package io.rstore.conformance;

import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStoreException;
import io.rstore.protocol.ChunkLocation;
import io.rstore.protocol.ServerInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static io.rstore.conformance.TestCluster.CHUNK;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link Namespace#allocFromFile}: the file's bytes on every transport; on the embedded
 * cluster its whole chunks are the file's pages (copy-on-write), elsewhere a copy.
 */
class AllocFromFileTest {
    @TempDir
    Path dir;

    private byte[] bytes;
    private Path file;

    /** 3.5 chunks and 8 bytes of noise. */
    @BeforeEach
    void writeFile() throws IOException {
        bytes = new byte[(int) (3 * CHUNK + CHUNK / 2 + 8)];
        new Random(42).nextBytes(bytes);
        file = dir.resolve("data.bin");
        Files.write(file, bytes);
    }

    private static long used(TestCluster c) {
        return c.master().servers().stream().mapToLong(ServerInfo::usedBytes).sum();
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldHoldTheFilesBytesAndNeverChangeTheFile(String transport) throws IOException {
        try (TestCluster c = TestCluster.start(transport, 2)) {
            Namespace ns = c.client().createNamespace("from-file");
            long length = bytes.length - CHUNK; // two whole chunks from offset CHUNK, and a tail of half a chunk and 8 bytes
            long usedBefore = used(c);
            RAddress segment = ns.allocFromFile(file, CHUNK, length);
            assertEquals(length, segment.length());
            try (Mapping m = segment.map(MapFlags.NONE)) {
                m.read();
                assertArrayEquals(Arrays.copyOfRange(bytes, (int) CHUNK, bytes.length), m.segment().toArray(ValueLayout.JAVA_BYTE));
                m.segment().fill((byte) 7);
                m.write();
                m.segment().fill((byte) 0);
                m.read();
                assertEquals(7, m.segment().get(ValueLayout.JAVA_BYTE, 0));
                assertEquals(7, m.segment().get(ValueLayout.JAVA_BYTE, length - 1));
            }
            assertArrayEquals(bytes, Files.readAllBytes(file), "writes to the segment never reach the file");
            if (transport.equals("inproc")) {
                for (ChunkLocation chunk : c.locate(segment).chunks()) {
                    boolean whole = chunk.index() < 2;
                    assertEquals(whole, c.regions(chunk.serverId()).memory(chunk.chunkId()).isMapped(),
                            "chunk " + chunk.index() + " is the file's pages exactly when it is whole");
                }
                assertEquals(usedBefore + 3 * CHUNK, used(c));
                c.client().deleteNamespace("from-file");
                assertEquals(usedBefore + CHUNK, used(c), "the file's chunks are released, the tail chunk goes back to the pool");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldCopyWhatCannotBeMapped(String transport) throws IOException {
        try (TestCluster c = TestCluster.start(transport, 2)) {
            Namespace ns = c.client().createNamespace("copied");
            RAddress unaligned = ns.allocFromFile(file, 100, 2 * CHUNK);
            RAddress small = ns.allocFromFile(file, CHUNK, 1000);
            for (RAddress segment : new RAddress[] {unaligned, small}) {
                try (Mapping m = segment.map(MapFlags.READ_ONLY)) {
                    m.read();
                    long from = segment == unaligned ? 100 : CHUNK;
                    assertArrayEquals(Arrays.copyOfRange(bytes, (int) from, (int) (from + segment.length())), m.segment().toArray(ValueLayout.JAVA_BYTE));
                }
                for (ChunkLocation chunk : c.locate(segment).chunks()) {
                    if (!transport.equals("shm")) { // shm chunks are files of their own
                        assertEquals(false, c.regions(chunk.serverId()).memory(chunk.chunkId()).isMapped(), "copied, not mapped");
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseARangeBeyondTheFile(String transport) throws IOException {
        try (TestCluster c = TestCluster.start(transport, 2)) {
            Namespace ns = c.client().createNamespace("beyond");
            RStoreException e = assertThrows(RStoreException.class, () -> ns.allocFromFile(file, CHUNK, 4 * CHUNK));
            assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
            assertEquals(0, ns.info().segments(), "nothing is left allocated");
            RStoreException missing = assertThrows(RStoreException.class, () -> ns.allocFromFile(dir.resolve("nope"), 0, CHUNK));
            assertEquals(ErrorCode.INVALID_ARGUMENT, missing.code());
        }
    }
}
