package io.carafe.importer;

import io.carafe.datasets.Datasets;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

/** The real graphs in ../shared/datasets; tests that need them are skipped, saying why, where it is absent. */
public final class SharedData {
    private SharedData() {
    }

    public static Path file(String relative) {
        Path shared = Datasets.sharedDir().orElse(null);
        Assumptions.assumeTrue(shared != null, "no shared/datasets folder above " + Path.of("").toAbsolutePath()
                + ": the real-graph tests need ../shared/datasets beside the checkout");
        Path file = shared.resolve(relative);
        Assumptions.assumeTrue(Files.isRegularFile(file), "shared dataset " + file + " is missing");
        return file;
    }
}
