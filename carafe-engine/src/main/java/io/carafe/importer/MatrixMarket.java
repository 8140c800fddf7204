package io.carafe.importer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A Matrix Market file's banner, {@code %%MatrixMarket matrix coordinate FIELD SYMMETRY}:
 * a graph's adjacency matrix as one entry per edge. Taken: coordinate files whose field is
 * {@code pattern}, {@code integer} or {@code real} (a value is the edge's weight with
 * {@code --weight-column 3}), {@code general} (directed) or {@code symmetric} (undirected:
 * each stored entry stands for both directions). Refused with a reason: dense
 * {@code array} files, {@code complex} values, {@code hermitian} and
 * {@code skew-symmetric} matrices. After the banner and {@code %} comments comes the size
 * line, {@code ROWS COLUMNS ENTRIES}: the matrix must be square; its vertices are 1..ROWS
 * (isolated ones too), and exactly ENTRIES entry lines must follow.
 *
 * @param field    pattern, integer or real
 * @param symmetric whether each entry stands for both directions
 */
record MatrixMarket(String field, boolean symmetric) {
    static final String BANNER = "%%MatrixMarket";

    /** The banner of {@code file} (plain or gzip), or null if its first line is not one. */
    static MatrixMarket of(Path file) {
        try (InputStream in = EdgeListParser.open(Files.newInputStream(file));
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String first = lines.readLine();
            return first != null && first.regionMatches(true, 0, BANNER, 0, BANNER.length()) ? parse(file, first) : null;
        } catch (IOException e) {
            throw new GraphImportException(file, "cannot read the file: " + e.getMessage(), e);
        }
    }

    /** Whether the file's name says Matrix Market: {@code .mtx}, or {@code .mtx.gz}. */
    static boolean named(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".mtx") || name.endsWith(".mtx.gz");
    }

    static MatrixMarket parse(Path file, String banner) {
        String[] words = banner.trim().toLowerCase(Locale.ROOT).split("\\s+");
        if (words.length != 5 || !words[1].equals("matrix")) {
            throw new GraphImportException(file, 1, banner, "a Matrix Market banner reads '%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
        }
        if (!words[2].equals("coordinate")) {
            throw new GraphImportException(file, 1, banner, "a dense '" + words[2] + "' Matrix Market file lists every cell, not edges;"
                    + " a graph needs the 'coordinate' format");
        }
        String field = words[3];
        if (!field.equals("pattern") && !field.equals("integer") && !field.equals("real")) {
            throw new GraphImportException(file, 1, banner, "Matrix Market field '" + field + "' cannot be edge weights; pattern, integer"
                    + " and real can");
        }
        return switch (words[4]) {
            case "general" -> new MatrixMarket(field, false);
            case "symmetric" -> new MatrixMarket(field, true);
            default -> throw new GraphImportException(file, 1, banner, "a '" + words[4] + "' matrix is not a graph's adjacency matrix;"
                    + " general (directed) and symmetric (undirected) are");
        };
    }

    /** The options an import of this file runs with: symmetric means undirected; a pattern has no values to weigh by. */
    ImportOptions adjust(Path file, ImportOptions options) {
        if (field.equals("pattern") && options.weightColumn() > 0) {
            throw new GraphImportException(file, "is a Matrix Market pattern file: its entries have no values, so ImportOptions.weightColumn "
                    + options.weightColumn() + " has nothing to read", null);
        }
        if (!field.equals("pattern") && options.weightColumn() > 3) {
            throw new GraphImportException(file, "is a Matrix Market file: an entry's value is column 3, not ImportOptions.weightColumn "
                    + options.weightColumn(), null);
        }
        return symmetric ? options.withUndirected(true) : options;
    }
}
