package io.carafe.graph;

import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.net.MasterNode;
import io.rstore.net.ServerNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any vertex's lists through the reader, against the graph file the cluster was loaded
 * from (out-lists as written, in-lists transposed here): with the smallest cache there is
 * (three blocks per edge array for a graph of a dozen), so blocks are evicted and read
 * again, and lists that cross a block boundary are stitched together; and with one that
 * holds the arrays whole.
 */
class NeighbourhoodReaderTest {
    private static final Path DEV_SHM = Path.of("/dev/shm"); // where a server's chunk files go for clients on its host, where there is one

    @TempDir
    Path dir;
    private RStore rstore;

    @BeforeEach
    void start() {
        rstore = RStore.embedded(RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withLocalArenaBytes(1 << 24));
    }

    @AfterEach
    void stop() {
        rstore.close();
    }

    /**
     * Undirected, both flyweights share one array's blocks: reading one list must not evict
     * the block the other points into. A cache of 64 MiB holds the arrays whole. Direct, in
     * process, the lists are the chunks' own bytes (12 MB of edges over 1 MiB chunks, so
     * lists that cross chunks are stitched together) and nothing is read through RStore; the
     * cache, which tcp and RDMA clients use, is tested here with direct reading turned off.
     */
    @ParameterizedTest
    @CsvSource({"false, 6, false", "true, 6, false", "false, 64, false", "true, 64, false", "false, 6, true", "true, 6, true"})
    void shouldReadEveryVertexsListsThroughACache(boolean undirected, int cacheMiB, boolean direct) {
        int n = 1 << 16;
        GraphImporter.Imported imported = GraphImporter.generate("uniform", n, 3_000_000, 11, ImportOptions.defaults().withUndirected(undirected),
                dir.resolve("cache"), null);
        try (GraphFile file = imported.file(); CarafeGraph g = CarafeGraph.create(rstore, "g", file)) {
            assertTrue(file.header().edgesBytes() > 8 * NeighbourhoodReader.BLOCK_BYTES, "more blocks than the cache holds");
            Lists lists = Lists.of(file, n);
            EdgeOffsets offsets = EdgeOffsets.read(rstore, "g");
            try (NeighbourhoodReader reader = new NeighbourhoodReader(rstore, "g", offsets, cacheMiB * (1L << 20), direct)) {
                long readBefore = bytesRead(rstore); // the graph's header, read as the reader starts, not counted
                lists.readAtRandom(reader);
                if (direct) {
                    assertEquals(readBefore, bytesRead(rstore), "bytes read through RStore by a reader of the chunks' own bytes");
                } else {
                    assertTrue(bytesRead(rstore) - readBefore >= NeighbourhoodReader.BLOCK_BYTES, "the cache read its blocks");
                }
            }
        }
    }

    /**
     * A client on the host of one memory server, whose chunks it maps itself (shm), and
     * reaching the other's only over tcp, as a worker on one host of several: the graph's
     * edges lie on both, and the reader serves them all through its cache, keeping its bound,
     * rather than part from the chunks' own bytes. (A cache that holds the arrays whole: the
     * smallest, evicting, was tested above, and over tcp it reads a block for most lists.)
     */
    @Test
    void shouldReadThroughTheCacheWhereSomeChunksAreReachedOnlyOverTheNetwork() {
        int n = 1 << 16;
        RStoreSettings settings = RStoreSettings.defaults();
        GraphImporter.Imported imported = GraphImporter.generate("uniform", n, 3_000_000, 11, ImportOptions.defaults(), dir.resolve("cache"), null);
        try (MasterNode master = MasterNode.start(new MasterNode.Context().chunkSizeBytes(1 << 20).secret(settings.clusterSecret()));
             ServerNode local = ServerNode.start(server(master, settings).shmDirectory(Files.isDirectory(DEV_SHM) ? DEV_SHM : dir));
             ServerNode remote = ServerNode.start(server(master, settings));
             RStore client = RStore.connect("rstore://127.0.0.1:" + master.port(), settings);
             GraphFile file = imported.file(); CarafeGraph g = CarafeGraph.create(client, "g", file)) {
            assertEquals("shm", client.transportTo(client.servers().get(0)));
            assertEquals("tcp", client.transportTo(client.servers().get(1)));
            GraphHeader header = CarafeGraph.readHeader(client, "g");
            int reached = 0;
            int notReached = 0;
            try (DirectChunks edges = new DirectChunks(client.joinNamespace(CarafeGraph.namespace("g", "edges")).raddress(header.edgesAt()))) {
                for (int c = 0; c <= edges.chunkOf(header.edgesBytes() - 1); c++) {
                    if (edges.direct(c) != null) {
                        reached++;
                    } else {
                        notReached++;
                    }
                }
            }
            assertTrue(reached > 0 && notReached > 0, "the edges' chunks on both servers: " + reached + " mapped directly, " + notReached + " not");
            Lists lists = Lists.of(file, n);
            try (NeighbourhoodReader reader = new NeighbourhoodReader(client, "g", EdgeOffsets.read(client, "g"), 64L << 20)) {
                long readBefore = bytesRead(client);
                lists.readAtRandom(reader);
                assertTrue(bytesRead(client) - readBefore >= NeighbourhoodReader.BLOCK_BYTES, "the cache read its blocks");
            }
        }
    }

    private static ServerNode.Context server(MasterNode master, RStoreSettings settings) {
        return new ServerNode.Context().master("127.0.0.1", master.port()).capacityBytes(64L << 20).secret(settings.clusterSecret());
    }

    /** Every vertex's out-list as the graph file has it, and its in-list transposed from them (sources ascending, as the graph keeps them). */
    private record Lists(int[][] out, int[][] in) {
        static Lists of(GraphFile file, int n) {
            int[][] out = new int[n][];
            int[] inDegree = new int[n];
            for (int v = 0; v < n; v++) {
                long first = VertexLayout.firstEdge(file.vertices(), v);
                out[v] = new int[VertexLayout.degree(file.vertices(), v)];
                for (int i = 0; i < out[v].length; i++) {
                    out[v][i] = EdgeLayout.target(file.edges(), first + i);
                    inDegree[out[v][i]]++;
                }
            }
            int[][] in = new int[n][];
            for (int v = 0; v < n; v++) {
                in[v] = new int[inDegree[v]];
                inDegree[v] = 0;
            }
            for (int v = 0; v < n; v++) {
                for (int t : out[v]) {
                    in[t][inDegree[t]++] = v;
                }
            }
            return new Lists(out, in);
        }

        /** Lists of vertices drawn at random, an out-list and an in-list at once (one must not move the other away), checked. */
        void readAtRandom(NeighbourhoodReader reader) {
            int n = out.length;
            Random random = new Random(5);
            for (int k = 0; k < 3 * n; k++) {
                int v = random.nextInt(n);
                int w = random.nextInt(n);
                Neighbours o = reader.out(v);
                Neighbours i = reader.in(w);
                assertList(in[w], i, "in-list of " + w);
                assertList(out[v], o, "out-list of " + v + " after the in-list of " + w);
                assertEquals(out[v].length, reader.outDegree(v));
                assertEquals(in[w].length, reader.inDegree(w));
            }
        }
    }

    private static long bytesRead(RStore client) {
        return client.metrics().meter(io.rstore.MetricNames.READ_BYTES).getCount();
    }

    @Test
    void shouldRefuseACacheTooSmallToPinTwoLists() {
        GraphImporter.Imported imported = GraphImporter.generate("uniform", 1 << 10, 10_000, 3, ImportOptions.defaults(), dir.resolve("cache"), null);
        try (GraphFile file = imported.file(); CarafeGraph g = CarafeGraph.create(rstore, "small", file)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new NeighbourhoodReader(rstore, "small",
                    EdgeOffsets.read(rstore, "small"), NeighbourhoodReader.BLOCK_BYTES));
            assertTrue(e.getMessage().contains("at least " + NeighbourhoodReader.MIN_CACHE_BYTES), e.getMessage());
        }
    }

    private static void assertList(int[] want, Neighbours got, String what) {
        assertEquals(want.length, got.size(), what);
        for (int k = 0; k < want.length; k++) {
            if (want[k] != got.get(k)) {
                assertEquals(want[k], got.get(k), what + ", neighbour " + k);
            }
            assertEquals(k, got.search(0, want[k]), what + ": search finds neighbour " + k);
        }
        assertTrue(got.search(0, Integer.MAX_VALUE) < 0);
    }
}
