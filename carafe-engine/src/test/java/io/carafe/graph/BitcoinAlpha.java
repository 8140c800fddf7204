package io.carafe.graph;

import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.carafe.importer.SharedData;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

/** SNAP's soc-sign-bitcoinalpha (source, target, weight), read line by line: the graph store tests' independent reference. */
final class BitcoinAlpha {
    static final Path CSV = SharedData.file("snap/soc-sign-bitcoinalpha.csv.gz");

    private BitcoinAlpha() {
    }

    /** The graph imported (weights from the third column) into a cache under {@code dir}. */
    static GraphFile importInto(Path dir) throws IOException {
        return GraphImporter.importEdgeList(CSV, ImportOptions.defaults().withWeightColumn(3), dir, null).file();
    }

    /**
     * Its edges keyed by one end ({@code bySource}: source -> target -> weight; else target ->
     * source -> weight), parallel edges keeping the smallest weight as the import does.
     */
    static Map<Long, TreeMap<Long, Double>> edges(boolean bySource) throws IOException {
        Map<Long, TreeMap<Long, Double>> edges = new TreeMap<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(CSV)), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.split(",");
                long source = Long.parseLong(f[0]);
                long target = Long.parseLong(f[1]);
                edges.computeIfAbsent(bySource ? source : target, k -> new TreeMap<>()).merge(bySource ? target : source, Double.parseDouble(f[2]), Math::min);
            }
        }
        return edges;
    }
}
