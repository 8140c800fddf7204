package io.carafe.datasets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The shared datasets folder is found from the installation (rstore.home, which bin/ sets), wherever the command runs. */
class DatasetLookupTest {

    @Test
    void shouldFindSharedDatasetsAboveTheInstallationFirst(@TempDir Path dir) throws Exception {
        Path shared = Files.createDirectories(dir.resolve("shared").resolve("datasets"));
        Path installation = Files.createDirectories(dir.resolve("checkout"));
        String before = System.getProperty("rstore.home");
        System.setProperty("rstore.home", installation.toString());
        try {
            assertEquals(shared, Datasets.sharedDir().orElseThrow());
        } finally {
            if (before == null) {
                System.clearProperty("rstore.home");
            } else {
                System.setProperty("rstore.home", before);
            }
        }
    }
}
