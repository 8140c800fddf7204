package io.carafe.cli;

import io.carafe.algorithms.pregel.Triangles;
import io.carafe.algorithms.references.Verdict;
import io.carafe.pregel.VertexProgram;
import picocli.CommandLine.Command;

import java.io.IOException;

@Command(name = "lcc",
        mixinStandardHelpOptions = true,
        header = "Local clustering coefficient (LDBC Graphalytics LCC) on the Pregel engine.",
        description = {"For each vertex v with neighbourhood N (in- and out-neighbours), the directed edges between",
                "members of N over |N|·(|N|-1); 0 with fewer than two neighbours. -o writes every coefficient."})
final class LccCommand extends ProgramCommand {

    @Override
    String algorithm() {
        return "lcc";
    }

    @Override
    String valueName() {
        return "lcc";
    }

    @Override
    VertexProgram program(ResolvedGraph g) {
        return new Triangles(true);
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) throws IOException {
        double[] sum = new double[1];
        run.result.forEachValue((v, value) -> sum[0] += value.getDouble(Triangles.LCC));
        double average = sum[0] / Math.max(1, run.result.vertexCount());
        run.summary.put("averageLcc", average);
        return String.format("average clustering coefficient %.6f", average);
    }

    @Override
    Verdict verify(PregelRun run, LoadedGraph g) {
        return Triangles.verifyCoefficients(g.file(), run.result.doubles(Triangles.LCC), g::label);
    }
}
