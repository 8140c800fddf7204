package io.carafe.cli;

import io.carafe.algorithms.pregel.ConnectedComponents;
import io.carafe.algorithms.pregel.References;
import io.carafe.pregel.VertexProgram;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import picocli.CommandLine.Command;

import java.io.IOException;

@Command(name = "wcc",
        mixinStandardHelpOptions = true,
        header = "Weakly connected components on the Pregel engine (label propagation, min combiner).",
        description = {"Direction is ignored, so the graph is imported with both directions stored (as -s).",
                "A component's label is its smallest original vertex id. -o writes every vertex's label."})
final class WccCommand extends ProgramCommand {

    @Override
    public Integer call() throws IOException {
        graph.undirected = true;
        return super.call();
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
    VertexProgram program(LoadedGraph g) {
        return new ConnectedComponents();
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) throws IOException {
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
        return String.format("%s; the largest has %,d of %,d vertices (label %d)", Output.count(sizes.size(), "component"), largest,
                run.result.vertexCount(), largestLabel);
    }

    @Override
    String verify(PregelRun run, LoadedGraph g) {
        return firstDifference(g, References.weakComponents(g.file()), run.result.longs(0));
    }
}
