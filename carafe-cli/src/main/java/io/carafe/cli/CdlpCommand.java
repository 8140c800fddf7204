package io.carafe.cli;

import io.carafe.algorithms.pregel.LabelPropagation;
import io.carafe.algorithms.references.Verdict;
import io.carafe.pregel.VertexProgram;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;

@Command(name = "cdlp",
        mixinStandardHelpOptions = true,
        header = "Community detection by label propagation (LDBC Graphalytics CDLP) on the Pregel engine.",
        description = {"Synchronous: each vertex starts with its original id as label and, for --iterations rounds, takes",
                "the most frequent label among its neighbours (in- and out- on a directed graph; ties to the smallest).",
                "-o writes every vertex's label."})
final class CdlpCommand extends ProgramCommand {
    @Option(names = {"-i", "--iterations"}, defaultValue = "10", description = "rounds, exactly (default: ${DEFAULT-VALUE}; gapbs's -i is a maximum)")
    int iterations;

    @Override
    String algorithm() {
        return "cdlp";
    }

    @Override
    String valueName() {
        return "label";
    }

    @Override
    long vertexIdInValue() {
        return 0; // the label: a vertex's id
    }

    @Override
    long expectedSupersteps() {
        return iterations + 1L; // each iteration a superstep, after the one that sends the first labels
    }

    @Override
    VertexProgram program(ResolvedGraph g) {
        return new LabelPropagation(iterations);
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) {
        LongOpenHashSet labels = new LongOpenHashSet();
        try {
            run.result.forEachValue((v, value) -> labels.add(value.getLong(0)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        run.summary.put("iterations", iterations);
        run.summary.put("communities", labels.size());
        return String.format("%,d communities after %d iterations", labels.size(), iterations);
    }

    @Override
    Verdict verify(PregelRun run, LoadedGraph g) {
        return new LabelPropagation(iterations).verify(g.file(), run.result.longs(0), g::label);
    }
}
