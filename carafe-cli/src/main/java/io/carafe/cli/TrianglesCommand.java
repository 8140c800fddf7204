package io.carafe.cli;

import io.carafe.algorithms.pregel.Triangles;
import io.carafe.algorithms.references.Verdict;
import io.carafe.pregel.VertexProgram;
import picocli.CommandLine.Command;

import java.io.IOException;

@Command(name = "tc",
        mixinStandardHelpOptions = true,
        header = "Triangle count on the undirected view of a graph, on the Pregel engine.",
        description = {"Direction is ignored: u and w are joined if either edge exists. Prints the total;",
                "-o writes the triangles through each vertex."})
final class TrianglesCommand extends ProgramCommand {

    @Override
    String algorithm() {
        return "tc";
    }

    @Override
    String valueName() {
        return "triangles";
    }

    @Override
    VertexProgram program(ResolvedGraph g) {
        return new Triangles(false);
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) throws IOException {
        long[] sum = new long[1];
        run.result.forEachValue((v, value) -> sum[0] += value.getLong(Triangles.COUNT));
        run.summary.put("triangles", sum[0] / 3);
        return String.format("%,d triangles", sum[0] / 3);
    }

    @Override
    Verdict verify(PregelRun run, LoadedGraph g) {
        return Triangles.verifyCounts(g.file(), run.result.longs(Triangles.COUNT), g::label);
    }
}
