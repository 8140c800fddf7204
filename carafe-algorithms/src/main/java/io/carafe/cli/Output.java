package io.carafe.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.GZIPOutputStream;

/**
 * A result file, written to a temporary name and renamed when complete, so a failed run
 * leaves no half-written file; gzip when the name ends in .gz.
 */
final class Output implements AutoCloseable {
    private final Path target;
    private final Path partial;
    private final Writer writer;
    private boolean done;

    Output(Path target) throws IOException {
        this.target = target;
        Path parent = target.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        this.partial = target.resolveSibling(target.getFileName() + ".partial");
        OutputStream out = Files.newOutputStream(partial);
        if (target.getFileName().toString().endsWith(".gz")) {
            out = new GZIPOutputStream(out, 1 << 16);
        }
        this.writer = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
    }

    Writer writer() {
        return writer;
    }

    /** Marks the output complete: close() then renames it into place. */
    void commit() {
        done = true;
    }

    @Override
    public void close() throws IOException {
        writer.close();
        if (done) {
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } else {
            Files.deleteIfExists(partial);
        }
    }

    /** A distance as TSV: shortest round-trip decimal, {@code inf} when unreachable. */
    static String distance(double d) {
        return Double.isInfinite(d) ? "inf" : Double.toString(d);
    }
}
