package io.carafe.datasets;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The download path against a local HTTP server serving what SNAP serves: the catalog's
 * entries, their real files from ../shared/datasets, compressed as SNAP compresses them,
 * checked against the catalog's checksums.
 */
class DownloadTest {
    @TempDir
    Path dir;
    private HttpServer server;
    private final PrintStream quiet = new PrintStream(new ByteArrayOutputStream());

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    /** Serves {@code body} at {@code path}; returns its URI. */
    private URI serve(String path, byte[] body) {
        server.createContext(path, exchange -> {
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    private static Path shared(String file) {
        Path root = Datasets.sharedDir().orElse(null);
        Assumptions.assumeTrue(root != null && Files.exists(root.resolve("snap").resolve(file)), "no shared/datasets/snap/" + file + " here");
        return root.resolve("snap").resolve(file);
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        }
        return out.toByteArray();
    }

    /** SNAP serves wiki-Vote.txt.gz; the catalog names and checksums the uncompressed wiki-Vote.txt (it failed "checksum mismatch" always). */
    @Test
    void shouldDownloadACompressedFileTheCatalogKeepsUncompressed() throws Exception {
        for (String name : new String[] {"wiki-vote", "p2p-gnutella05", "ca-condmat"}) {
            Dataset d = DatasetCatalog.load().find(name).orElseThrow();
            byte[] plain = Files.readAllBytes(shared(d.file()));
            assertTrue(d.url().endsWith(".gz") && !d.file().endsWith(".gz"), d.toString());
            URI url = serve("/data/" + d.file() + ".gz", gzip(plain));
            Path target = dir.resolve(d.file());
            Datasets.download(url, target, d.sha256(), quiet);
            assertArrayEquals(plain, Files.readAllBytes(target), name + " is stored uncompressed, as named");
            assertEquals(d.sha256(), Datasets.sha256(target), name);
        }
    }

    @Test
    void shouldDownloadACompressedFileAsItIs() throws Exception {
        Dataset d = DatasetCatalog.load().find("email-eu-core").orElseThrow();
        byte[] gz = Files.readAllBytes(shared(d.file()));
        Path target = dir.resolve(d.file());
        Datasets.download(serve("/data/" + d.file(), gz), target, d.sha256(), quiet);
        assertArrayEquals(gz, Files.readAllBytes(target));
    }

    @Test
    void shouldRefuseABadChecksumAndKeepNothing() throws Exception {
        Dataset d = DatasetCatalog.load().find("wiki-vote").orElseThrow();
        byte[] plain = Files.readAllBytes(shared(d.file()));
        plain[100] ^= 1; // one bit flipped in transit
        Path target = dir.resolve(d.file());
        URI url = serve("/data/" + d.file() + ".gz", gzip(plain));
        IOException e = assertThrows(IOException.class, () -> Datasets.download(url, target, d.sha256(), quiet));
        assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
        assertFalse(Files.exists(target), "no file under the dataset's name");
        try (var left = Files.list(dir)) {
            assertEquals(0, left.count(), "no partial download left");
        }
    }
}
