package io.carafe.datasets;

import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Turns what a user passes as {@code --graph} into an imported graph file: a path to an
 * edge list, or a catalog name (found locally, downloaded, or generated).
 */
public final class GraphResolver {

    /** The imported graph and the name it is known by (catalog name, or the file's name). */
    public record Resolved(String name, GraphImporter.Imported imported) {
    }

    private GraphResolver() {
    }

    /** Catalog entries marked undirected import with both directions whatever the options say. */
    public static Resolved resolve(String graph, ImportOptions options, Path cacheDir, PrintStream progress) {
        Path asPath = Path.of(graph);
        if (Files.exists(asPath)) {
            return new Resolved(baseName(asPath), GraphImporter.importEdgeList(asPath, options, cacheDir, progress));
        }
        DatasetCatalog catalog = DatasetCatalog.load();
        if (catalog.find(graph).isEmpty()) {
            Optional<NamedGraphs.Spec> named = NamedGraphs.find(cacheDir, graph);
            if (named.isPresent()) {
                NamedGraphs.Spec g = named.get();
                return new Resolved(graph, GraphImporter.generate(g.kind(), g.vertices(), g.edges(), g.seed(), options, cacheDir, progress));
            }
        }
        // missing input (exit 4), not bad usage: the option was well formed
        Dataset dataset = catalog.find(graph).orElseThrow(() -> new DatasetUnavailableException(
                "graph '" + graph + "' is neither a file nor a dataset name (nor the name of a generated graph); names: "
                        + catalog.entries().stream().map(Dataset::name).collect(Collectors.joining(", ")), null));
        ImportOptions effective = dataset.undirected() ? options.withUndirected(true) : options;
        if (dataset.generated()) {
            String kind = dataset.url().substring("generate:".length());
            return new Resolved(dataset.name(), GraphImporter.generate(kind, dataset.vertices(), dataset.edgeLines(), 1, effective, cacheDir, progress));
        }
        Path file = Datasets.fetch(dataset, progress);
        return new Resolved(dataset.name(), GraphImporter.importEdgeList(file, effective, cacheDir, progress));
    }

    /** A graph name from a file name: {@code soc-Slashdot0902.txt.gz} gives {@code soc-Slashdot0902}. */
    public static String baseName(Path file) {
        String name = file.getFileName().toString();
        for (String suffix : new String[] {".gz", ".txt", ".csv", ".tsv", ".e", ".el"}) {
            if (name.endsWith(suffix) && name.length() > suffix.length()) {
                name = name.substring(0, name.length() - suffix.length());
            }
        }
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
