package io.carafe.cli;

import io.carafe.algorithms.pregel.ConnectedComponents;
import io.rstore.RStore;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
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
                try (PregelRun run = PregelRun.run("wcc", rstore, g, new ConnectedComponents(), engine, Long.MAX_VALUE, start)) {
                Long2IntOpenHashMap sizes = new Long2IntOpenHashMap();
                run.result.forEachValue((v, label) -> sizes.addTo(label.getLong(0), 1));
                long largestLabel = -1;
                int largest = 0;
                for (Long2IntOpenHashMap.Entry e : sizes.long2IntEntrySet()) {
                    if (e.getIntValue() > largest) {
                        largest = e.getIntValue();
                        largestLabel = e.getLongKey();
                    }
                }
                run.summary.put("components", sizes.size());
                run.summary.put("largestComponent", largest);
                run.writeValues(engine, "component", (v, label, line) -> line.append(label.getLong(0)));
                if (!run.finish(engine, out)) {
                    out.printf("wcc on %s: %,d components; the largest has %,d of %,d vertices (label %d); %d supersteps, compute %.2f s%n",
                            g.name(), sizes.size(), largest, run.result.vertexCount(), largestLabel,
                            run.result.supersteps().size(), run.result.computeSeconds());
                    out.flush();
                }
                }
            }
        } finally {
            cluster.stop();
        }
        return 0;
    }
}
