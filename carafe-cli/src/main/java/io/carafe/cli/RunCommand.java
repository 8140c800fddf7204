package io.carafe.cli;

import io.carafe.algorithms.pregel.UserProgram;
import io.carafe.algorithms.references.Verdict;
import io.carafe.pregel.VertexProgram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

@Command(name = "run",
        mixinStandardHelpOptions = true,
        header = "Run your own vertex program from a jar on the Pregel engine.",
        description = {"The class implements io.carafe.pregel.VertexProgram and has a public constructor taking",
                "Map<String, String> (the --param pairs) or none. With --worker-processes every worker loads the",
                "same jar. -o writes every vertex's value as the program formats it (VertexProgram.formatValue).",
                "See docs/carafe.md for an example program and how to build it."})
final class RunCommand extends ProgramCommand {
    @Option(names = "--program", required = true, paramLabel = "JAR:CLASS", description = "the jar and the program's class, e.g. my.jar:com.example.MaxLabel")
    String program;

    @Option(names = "--param", paramLabel = "KEY=VALUE", description = "a parameter for the program's constructor (repeatable)")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = "--max-supersteps", defaultValue = "10000", description = "bound on supersteps (default: ${DEFAULT-VALUE})")
    long maxSupersteps;

    @Override
    String algorithm() {
        return "run";
    }

    @Override
    String valueName() {
        return "value";
    }

    @Override
    long maxSupersteps() {
        return maxSupersteps;
    }

    private UserProgram loaded;

    /** The jar, class and parameters are checked (the class loaded and made) before the graph is imported or loaded. */
    @Override
    void checkBeforeLoading() {
        loaded = load();
    }

    @Override
    VertexProgram program(ResolvedGraph g) {
        return loaded != null ? loaded : load();
    }

    private UserProgram load() {
        if (engine.verify) {
            throw new IllegalArgumentException("--verify: carafe run has no independent reference for a program of yours; check its values from -o");
        }
        int colon = program.lastIndexOf(':');
        if (colon < 1 || colon == program.length() - 1) {
            throw new IllegalArgumentException("--program takes JAR:CLASS, e.g. my.jar:com.example.MaxLabel; was " + program);
        }
        UserProgram made = UserProgram.load(Path.of(program.substring(0, colon)), program.substring(colon + 1), params);
        System.err.println("program " + made.delegate().getClass().getName() + ": " + made.declaration());
        return made;
    }

    @Override
    boolean mayBroadcast() {
        return true; // a user's program says so itself; the engine checks when it runs
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) {
        run.summary.put("program", program);
        run.summary.put("stoppedByMaster", run.result.stoppedByMaster());
        return "program " + program;
    }

    @Override
    Verdict verify(PregelRun run, LoadedGraph g) {
        throw new AssertionError("refused in program()");
    }
}
