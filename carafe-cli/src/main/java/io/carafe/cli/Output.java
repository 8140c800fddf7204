package io.carafe.cli;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

/**
 * A result file, written to a temporary name and renamed when complete, so a failed run
 * leaves no half-written file; gzip when the name ends in .gz. Tables are written by
 * Apache Commons CSV: comma-separated for {@code .csv} (quoting where a field needs it),
 * tab-separated otherwise, each with a plain header line.
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

    /**
     * Checks an output option before anything is imported, loaded or run: a name ending in
     * .tsv, .csv or .txt (each optionally .gz), not a directory, in a directory that exists
     * and can be written, or can be made. Throws IllegalArgumentException naming the flag.
     */
    static void check(Path target, String flag) {
        if (target == null) {
            return;
        }
        String name = target.getFileName() == null ? "" : target.getFileName().toString().toLowerCase(Locale.ROOT);
        String plain = name.endsWith(".gz") ? name.substring(0, name.length() - 3) : name;
        if (!plain.endsWith(".tsv") && !plain.endsWith(".csv") && !plain.endsWith(".txt")) {
            throw new IllegalArgumentException(flag + " " + target + ": results are written as .tsv, .csv or .txt (tab-separated), each optionally"
                    + " .gz; name the file so");
        }
        if (Files.isDirectory(target)) {
            throw new IllegalArgumentException(flag + " " + target + " is a directory; name a file in it");
        }
        Path parent = target.toAbsolutePath().getParent();
        Path existing = parent; // the directories still to make are made when the file is written; the nearest that exists must take them
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null || !Files.isDirectory(existing)) {
            throw new IllegalArgumentException(flag + " " + target + ": " + existing + " is not a directory, so " + parent + " cannot be made");
        }
        if (!Files.isWritable(existing)) {
            throw new IllegalArgumentException(flag + " " + target + ": cannot write in " + existing
                    + (existing.equals(parent) ? "" : " (to make " + parent + ")"));
        }
    }

    Writer writer() {
        return writer;
    }

    /** A table with these columns: CSV for a {@code .csv[.gz]} file, TSV for anything else; the header is written. */
    CSVPrinter table(String... columns) throws IOException {
        String name = target.getFileName().toString().toLowerCase(Locale.ROOT);
        CSVFormat format = name.endsWith(".csv") || name.endsWith(".csv.gz") ? CSVFormat.DEFAULT : CSVFormat.TDF;
        return format.builder().setRecordSeparator('\n').setHeader(columns).get().print(writer);
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

    /** "1 worker", "2 workers", "1,024 workers": a count with its noun in the right number. */
    static String count(long n, String singular) {
        return String.format("%,d %s", n, n == 1 ? singular : singular + "s");
    }

    /** A distance: an integer as an integer, else the shortest round-trip decimal; {@code inf} when unreachable. */
    static String distance(double d) {
        if (Double.isInfinite(d)) {
            return "inf";
        }
        return d == Math.rint(d) && Math.abs(d) < 0x1p53 ? Long.toString((long) d) : Double.toString(d);
    }
}
