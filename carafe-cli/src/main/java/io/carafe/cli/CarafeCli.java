package io.carafe.cli;

import io.carafe.datasets.DatasetUnavailableException;
import io.carafe.graph.GraphStoreException;
import io.carafe.importer.GraphImportException;
import io.carafe.pregel.MemoryLimitException;
import io.carafe.pregel.PregelException;
import io.rstore.RStoreException;
import io.rstore.cli.ShortUsageErrors;
import io.rstore.config.Logs;
import picocli.CommandLine.Command;
import picocli.CommandLine;

import java.io.IOException;
import java.io.UncheckedIOException;

/** The {@code carafe} command: routes to one class per subcommand. */
@Command(name = "carafe",
        mixinStandardHelpOptions = true,
        version = "carafe 0.1.0",
        description = "Carafe: graph processing on RStore.",
        subcommands = {PageRankCommand.class, SsspCommand.class, WccCommand.class, CdlpCommand.class, LccCommand.class,
                TrianglesCommand.class, SccCommand.class, RunCommand.class, DijkstraCommand.class, BfsCommand.class,
                ImportCommand.class, StatsCommand.class, DatasetsCommand.class, GraphsCommand.class, BenchCommand.class, WorkerCommand.class, ResumeCommand.class, CommandLine.HelpCommand.class})
public final class CarafeCli implements Runnable {
    /**
     * Exit codes: 1 a failed --verify, 2 usage (picocli's), 3 a cluster or engine failure, 4 bad or missing input, 5 an I/O error,
     * 6 a job stopped at its memory bound (--max-memory).
     */
    public static final int EXIT_RSTORE = 3;
    public static final int EXIT_INPUT = 4;
    public static final int EXIT_IO = 5;
    public static final int EXIT_MEMORY = 6;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = "--debug", scope = CommandLine.ScopeType.INHERIT,
            description = "on a failure, print its stack trace as well as the one-line error")
    boolean debug;

    @Override
    public void run() {
        spec.commandLine().usage(System.err);
    }

    static {
        Logs.toStderr(); // stdout carries the results
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new CarafeCli());
        cli.setExecutionExceptionHandler(CarafeCli::handle);
        cli.setParameterExceptionHandler(new ShortUsageErrors("carafe"));
        return cli;
    }

    private static int handle(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        int code;
        if (e instanceof IllegalArgumentException) {
            code = CommandLine.ExitCode.USAGE;
        } else if (e instanceof MemoryLimitException) {
            code = EXIT_MEMORY;
        } else if (e instanceof RStoreException || e instanceof PregelException) {
            code = EXIT_RSTORE;
        } else if (e instanceof GraphImportException || e instanceof GraphStoreException || e instanceof DatasetUnavailableException) {
            code = EXIT_INPUT;
        } else if (e instanceof IOException || e instanceof UncheckedIOException) {
            code = EXIT_IO;
        } else {
            throw new RuntimeException(e);
        }
        cli.getErr().println("carafe: " + FlagNames.inFlags(e.getMessage()));
        if (((CarafeCli) cli.getCommandSpec().root().userObject()).debug) {
            e.printStackTrace(cli.getErr());
        }
        cli.getErr().flush();
        return code;
    }
}
