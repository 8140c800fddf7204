package io.carafe.cli;

import io.carafe.algorithms.pregel.StronglyConnectedComponents;
import io.carafe.algorithms.references.Verdict;
import io.carafe.pregel.VertexProgram;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import picocli.CommandLine.Command;

import java.io.IOException;

@Command(name = "scc",
        mixinStandardHelpOptions = true,
        header = "Strongly connected components on the Pregel engine (forward colouring, backward sweep).",
        description = {"A component's label is its smallest original vertex id. -o writes every vertex's label."})
final class SccCommand extends ProgramCommand {

    @Override
    String algorithm() {
        return "scc";
    }

    @Override
    String valueName() {
        return "component";
    }

    @Override
    long vertexIdInValue() {
        return StronglyConnectedComponents.COMPONENT; // the component's smallest id
    }

    @Override
    VertexProgram program(ResolvedGraph g) {
        return new StronglyConnectedComponents();
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) throws IOException {
        Long2IntOpenHashMap sizes = new Long2IntOpenHashMap();
        run.result.forEachValue((v, value) -> sizes.addTo(value.getLong(StronglyConnectedComponents.COMPONENT), 1));
        int largest = sizes.values().intStream().max().orElse(0);
        run.summary.put("components", sizes.size());
        run.summary.put("largestComponent", largest);
        return String.format("%s; the largest has %,d vertices", Output.count(sizes.size(), "component"), largest);
    }

    @Override
    Verdict verify(PregelRun run, LoadedGraph g) {
        return StronglyConnectedComponents.verify(g.file(), run.result.longs(StronglyConnectedComponents.COMPONENT), g::label);
    }
}
