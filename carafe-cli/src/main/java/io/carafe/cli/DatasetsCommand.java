package io.carafe.cli;

import io.carafe.datasets.Dataset;
import io.carafe.datasets.DatasetCatalog;
import io.carafe.datasets.Datasets;
import io.carafe.datasets.Generator;
import io.carafe.datasets.NamedGraphs;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.rstore.cli.JsonReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "datasets",
        mixinStandardHelpOptions = true,
        header = "List, fetch and generate datasets.",
        subcommands = {DatasetsCommand.ListDatasets.class, DatasetsCommand.Fetch.class, DatasetsCommand.Generate.class})
final class DatasetsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.err);
    }

    @Command(name = "list", mixinStandardHelpOptions = true, header = "The catalog, and where each dataset is on this machine.")
    static final class ListDatasets implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @CommandLine.Option(names = "--format", paramLabel = "table|json", defaultValue = "table", description = "table (for people) or json (default: ${DEFAULT-VALUE})")
        String format;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            if (JsonReport.json(format)) {
                var report = JsonReport.header(spec);
                var list = report.putArray("datasets");
                for (Dataset d : DatasetCatalog.load().entries()) {
                    var entry = list.addObject().put("name", d.name()).put("kind", d.generated() ? "generated" : (d.undirected() ? "undirected" : "directed"))
                            .put("vertices", d.vertices()).put("edgeLines", d.edgeLines()).put("url", d.url());
                    Datasets.findLocal(d).ifPresentOrElse(p -> entry.put("localFile", p.toString()), () -> entry.putNull("localFile"));
                }
                report.put("downloadDir", Datasets.dataDir().toString()).put("cacheDir", Datasets.cacheDir().toString());
                JsonReport.print(report, out);
                return 0;
            }
            out.printf("%-22s %-10s %12s %14s  %s%n", "name", "kind", "vertices", "edge lines", "here");
            for (Dataset d : DatasetCatalog.load().entries()) {
                String here = d.generated() ? "generated on first use"
                        : Datasets.findLocal(d).map(Path::toString).orElse("downloads from " + d.url());
                out.printf("%-22s %-10s %,12d %,14d  %s%n", d.name(), d.generated() ? "generated" : (d.undirected() ? "undirected" : "directed"),
                        d.vertices(), d.edgeLines(), here);
            }
            out.printf("%ndownloads go to %s; imported graphs are cached in %s%n", Datasets.dataDir(), Datasets.cacheDir());
            out.flush();
            return 0;
        }
    }

    @Command(name = "fetch", mixinStandardHelpOptions = true, header = "Find or download a dataset's file; prints its path.")
    static final class Fetch implements Callable<Integer> {
        @Parameters(paramLabel = "NAME")
        String name;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            Dataset d = DatasetCatalog.load().find(name)
                    .orElseThrow(() -> new IllegalArgumentException("no dataset named '" + name + "' (carafe datasets list)"));
            spec.commandLine().getOut().println(Datasets.fetch(d, System.err));
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    @Command(name = "generate", mixinStandardHelpOptions = true,
            header = "Generate a synthetic graph (deterministic R-MAT, uniform or grid) into the graph cache.",
            description = {"Either a generated catalog entry (carafe datasets generate livejournal-synthetic) or",
                    "--kind with --vertices and --edges (a grid: a square number of vertices, --edges may be left out).",
                    "--text also writes it as a SNAP edge list, e.g. to time parsing."})
    static final class Generate implements Callable<Integer> {
        @Parameters(paramLabel = "NAME", arity = "0..1", description = "a generated dataset of the catalog; or, with --kind, the name to give"
                + " the graph generated, which --graph NAME then finds")
        String name;

        @Option(names = "--kind", description = "rmat (Graph500 parameters), uniform, or grid (s x s vertices, each joined to the next in"
                + " its row and column, both ways: a road network's long diameter)")
        String kind;

        @Option(names = {"-n", "--vertices"}, description = "vertex count")
        Long vertices;

        @Option(names = {"-m", "--edges"}, description = "edge count")
        Long edges;

        @Option(names = "--seed", defaultValue = "1", description = "seed (default: ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--text", paramLabel = "FILE", description = "also write the graph as a tab-separated edge list")
        Path text;

        @Option(names = "--cache-dir", paramLabel = "DIR", description = "graph cache (default: $CARAFE_CACHE_DIR or ~/.cache/carafe/graphs)")
        Path cacheDir;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            boolean naming = name != null && kind != null; // a graph of the user's, to be named
            if (name != null && !naming) {
                Dataset d = DatasetCatalog.load().find(name).filter(Dataset::generated)
                        .orElseThrow(() -> new IllegalArgumentException("'" + name + "' is not a generated dataset of the catalog (carafe datasets"
                                + " list); to name a graph you generate, give --kind, --vertices and --edges with the name"));
                kind = d.url().substring("generate:".length());
                vertices = d.vertices();
                edges = d.edgeLines();
            } else if ("grid".equals(kind) && vertices != null && edges == null) {
                edges = Generator.gridEdges(vertices);
            } else if (kind == null || vertices == null || edges == null) {
                throw new IllegalArgumentException("give a generated dataset's NAME, or --kind, --vertices and --edges (and a NAME to use it by)");
            }
            if (text != null) {
                Output.check(text, "--text");
            }
            Path cache = cacheDir != null ? cacheDir : Datasets.cacheDir();
            GraphImporter.Imported imported = GraphImporter.generate(kind, vertices, edges, seed, ImportOptions.defaults(), cache, System.err);
            if (naming) {
                NamedGraphs.name(cache, name, new NamedGraphs.Spec(kind, vertices, edges, seed));
            }
            PrintWriter out = spec.commandLine().getOut();
            try (GraphFile g = imported.file()) {
                out.printf("%s graph: %,d vertices, %,d edges (%s)%ncached at %s%n", kind, g.header().vertexCount(), g.header().edgeCount(),
                        imported.report().fromCache ? "from cache" : String.format("generated in %.1f s", imported.report().parseSeconds + imported.report().buildSeconds),
                        g.path());
                if (naming) {
                    out.printf("named %s: use it as --graph %s%n", name, name);
                }
                if (text != null) {
                    Path vertexFile = writeText(g, text);
                    out.println("wrote " + text + (vertexFile == null ? "" : " and, for its isolated vertices, " + vertexFile
                            + " (import with --vertices " + vertexFile + ")"));
                }
            }
            out.flush();
            return 0;
        }

        /**
         * The graph as an edge list; an edge list cannot show isolated vertices, so when there
         * are some every vertex id goes to a vertex file beside it (returned; null if none is
         * needed), which --vertices reads back.
         */
        private static Path writeText(GraphFile g, Path text) throws IOException {
            long n = g.header().vertexCount();
            boolean isolated = EdgeLists.verticesWithEdges(g) < n;
            String base = text.getFileName().toString();
            Path vertexFile = isolated ? text.resolveSibling((base.contains(".") ? base.substring(0, base.indexOf('.')) : base) + ".v") : null;
            try (Output file = new Output(text)) {
                Writer w = file.writer();
                w.write("# Generated by carafe\n# Nodes: " + n + " Edges: " + g.header().edgeCount() + "\n");
                if (vertexFile != null) {
                    w.write("# every vertex, isolated ones too, is listed in " + vertexFile.getFileName() + ": import with --vertices\n");
                }
                EdgeLists.write(g, w, false);
                file.commit();
            }
            if (vertexFile != null) {
                try (Output file = new Output(vertexFile)) {
                    Writer w = file.writer();
                    for (long v = 0; v < n; v++) {
                        w.write(Long.toString(VertexLayout.originalId(g.vertices(), v)));
                        w.write('\n');
                    }
                    file.commit();
                }
            }
            return vertexFile;
        }
    }
}
