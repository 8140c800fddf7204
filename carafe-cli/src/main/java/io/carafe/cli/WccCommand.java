package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.references.Verdict;
import io.carafe.algorithms.resident.Afforest;
import io.carafe.algorithms.resident.Parallel;
import io.carafe.algorithms.resident.ResidentGraph;
import io.carafe.algorithms.pregel.AfforestComponents;
import io.carafe.algorithms.pregel.ConnectedComponents;
import io.carafe.pregel.VertexProgram;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;

@Command(name = "wcc",
        mixinStandardHelpOptions = true,
        header = "Weakly connected components: Afforest in this process, or on the Pregel engine, which scales past one machine.",
        description = {"Direction is ignored, so the graph is imported with both directions stored (as -s).",
                "A component's label is its smallest original vertex id. -o writes every vertex's label.",
                "afforest (default): a concurrent union-find over the graph read whole into this process, -w threads (GAP's cc).",
                "pregel: Afforest's schedule on the engine: hooking and pointer jumping through the parents in RStore, two"
                        + " neighbours a vertex first, then the rest of the edges outside the big component; supersteps grow with"
                        + " the log of the graph's size, not with its diameter.",
                "pregel-lp: min-label propagation on the engine, every changed label to every neighbour each superstep (as many"
                        + " supersteps as the diameter; --messaging gather and hybrid apply).",
                "Both run on the partition workers, which may be processes (--worker-processes)."})
final class WccCommand extends ProgramCommand {
    @Option(names = "--algorithm", paramLabel = "afforest|pregel|pregel-lp", defaultValue = "afforest",
            description = "afforest: union-find in this process with -w threads; pregel: hooking and pointer jumping on the engine;"
                    + " pregel-lp: label propagation on the engine (default: ${DEFAULT-VALUE})")
    String method;

    @Override
    public Integer call() throws IOException {
        graph.undirected = true;
        return super.call();
    }

    @Override
    boolean mayBroadcast() {
        return method.equals("pregel-lp"); // one label a superstep to every neighbour; pregel sends to parents
    }

    @Override
    String broadcastRefusal() {
        return "--messaging " + engine.messaging + " is for label propagation, which sends one label along every edge: add --algorithm"
                + " pregel-lp; --algorithm pregel hooks parents with messages it pushes";
    }

    @Override
    String threadMethod() {
        return switch (method) {
            case "afforest" -> "afforest";
            case "pregel", "pregel-lp" -> null;
            default -> throw new IllegalArgumentException("--algorithm must be afforest, pregel or pregel-lp, was " + method);
        };
    }

    @Override
    ThreadKernel threadKernel(LoadedGraph g, ResidentGraph resident, Parallel threads) {
        return new ThreadKernel() {
            private Afforest.Result last;

            @Override
            public double run() {
                last = Afforest.run(resident, threads);
                return last.seconds();
            }

            @Override
            public String summarize(ObjectNode report) {
                report.put("components", last.components()).put("largestComponent", last.largest());
                return String.format("%s; the largest has %,d of %,d vertices (label %s)", Output.count(last.components(), "component"),
                        last.largest(), last.labels().length, g.labelOf(last.largestLabel()));
            }

            @Override
            public void format(int v, StringBuilder out) {
                out.append(g.labelOf(last.labels()[v]));
            }

            @Override
            public Verdict verify(LoadedGraph graph) {
                return ConnectedComponents.verify(graph.file(), last.labels(), graph::label);
            }
        };
    }

    @Override
    String algorithm() {
        return "wcc";
    }

    @Override
    String valueName() {
        return "component";
    }

    @Override
    long vertexIdInValue() {
        return 0; // the component: a vertex's id
    }

    @Override
    VertexProgram program(ResolvedGraph g) {
        return method.equals("pregel") ? new AfforestComponents() : new ConnectedComponents();
    }

    /**
     * Component sizes by label, a label counted in an array where it is below the vertex count
     * (a graph numbered 0..n-1, as generated graphs and many files are, has only such labels)
     * and hashed where not: hashing every vertex's label took 0.15-0.2 s on livejournal-synthetic.
     */
    @Override
    String summarize(PregelRun run, LoadedGraph g) throws IOException {
        long n = run.result.vertexCount();
        int[] counted = new int[(int) n];
        Long2IntOpenHashMap hashed = new Long2IntOpenHashMap();
        run.result.forEachValue((v, value) -> {
            long label = value.getLong(0);
            if (label >= 0 && label < n) {
                counted[(int) label]++;
            } else {
                hashed.addTo(label, 1);
            }
        });
        long components = hashed.size();
        long largestLabel = -1;
        int largest = 0;
        for (int label = 0; label < counted.length; label++) {
            int size = counted[label];
            components += size > 0 ? 1 : 0;
            if (size > largest) {
                largest = size;
                largestLabel = label;
            }
        }
        for (Long2IntOpenHashMap.Entry e : hashed.long2IntEntrySet()) {
            if (e.getIntValue() > largest) {
                largest = e.getIntValue();
                largestLabel = e.getLongKey();
            }
        }
        run.summary.put("components", components);
        run.summary.put("largestComponent", largest);
        return String.format("%s; the largest has %,d of %,d vertices (label %s)", Output.count(components, "component"), largest,
                n, g.labelOf(largestLabel));
    }

    @Override
    Verdict verify(PregelRun run, LoadedGraph g) {
        return ConnectedComponents.verify(g.file(), run.result.longs(0), g::label);
    }
}
