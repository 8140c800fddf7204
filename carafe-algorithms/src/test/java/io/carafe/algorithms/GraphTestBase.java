package io.carafe.algorithms;

import io.carafe.datasets.Datasets;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What algorithm tests share: an embedded cluster with small chunks per test, a
 * temporary directory (graph cache included), and the real graphs of ../shared/datasets,
 * which are skipped, saying why, where that folder is absent.
 */
public abstract class GraphTestBase {
    @TempDir
    protected Path dir;
    protected RStore rstore;

    @BeforeEach
    void startCluster() {
        rstore = RStore.embedded(RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withLocalArenaBytes(1 << 22));
    }

    @AfterEach
    void stopCluster() {
        rstore.close();
    }

    protected Path cacheDir() {
        return dir.resolve("cache");
    }

    protected static Path shared(String relative) {
        Path root = Datasets.sharedDir().orElse(null);
        Assumptions.assumeTrue(root != null, "no shared/datasets beside the checkout: the real-graph tests need it");
        Path file = root.resolve(relative);
        Assumptions.assumeTrue(Files.exists(file), file + " is missing");
        return file;
    }
}
