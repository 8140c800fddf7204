package io.carafe.cli;

import io.carafe.algorithms.pregel.ConnectedComponents;
import io.rstore.RStore;
import it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

@Command(name = "wcc",
        mixinStandardHelpOptions = true,
        header = "Weakly connected components on the Pregel engine (label propagation, min combiner).",
        description = {"Direction is ignored, so the graph is imported with both directions stored (as -s).",
                "A component's label is its smallest original vertex id. -o writes every vertex's label."})
final class WccCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @Mixin
    ClusterOptions cluster;

    @Mixin
    EngineOptions engine;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        long start = System.nanoTime();
        graph.undirected = true;
        PrintWriter out = spec.commandLine().getOut();
        try {
            try (RStore rstore = cluster.start(engine.workerProcesses); LoadedGraph g = LoadedGraph.load(rstore, graph, System.err)) {
                PregelRun run = PregelRun.run("wcc", rstore, g, new ConnectedComponents(), engine, Long.MAX_VALUE, start);
                double[] labels = run.result.values();
                Int2IntOpenHashMap sizes = new Int2IntOpenHashMap();
                for (double label : labels) {
                    sizes.addTo((int) label, 1);
                }
                int largestLabel = -1;
                int largest = 0;
                for (Int2IntOpenHashMap.Entry e : sizes.int2IntEntrySet()) {
                    if (e.getIntValue() > largest) {
                        largest = e.getIntValue();
                        largestLabel = e.getIntKey();
                    }
                }
                run.summary.put("components", sizes.size());
                run.summary.put("largestComponent", largest);
                run.writeValues(engine, "component", label -> Long.toString(g.originalId((int) label)));
                if (!run.finish(engine, out)) {
                    out.printf("wcc on %s: %,d components; the largest has %,d of %,d vertices (label %d); %d supersteps, compute %.2f s%n",
                            g.name(), sizes.size(), largest, labels.length, largestLabel < 0 ? -1 : g.originalId(largestLabel),
                            run.result.supersteps().size(), run.result.computeSeconds());
                    out.flush();
                }
            }
        } finally {
            cluster.stop();
        }
        return 0;
    }
}
