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
import java.util.Arrays;
import java.util.List;

/** The {@code carafe} command: routes to one class per subcommand. */
@Command(name = "carafe",
        mixinStandardHelpOptions = true,
        version = "carafe 0.1.0",
        description = "Carafe: graph processing on RStore.")
public final class CarafeCli implements Runnable {
    /** The subcommands, in the order the usage lists them ({@code help} after them). */
    static final List<Class<?>> SUBCOMMANDS = List.of(PageRankCommand.class, SsspCommand.class, WccCommand.class, CdlpCommand.class,
            LccCommand.class, TrianglesCommand.class, SccCommand.class, RunCommand.class, DijkstraCommand.class, BfsCommand.class,
            ImportCommand.class, StatsCommand.class, DatasetsCommand.class, GraphsCommand.class, BenchCommand.class, WorkerCommand.class,
            ResumeCommand.class);

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
        System.exit(commandLine(args).execute(args));
    }

    /** The command line with every subcommand. */
    public static CommandLine commandLine() {
        return commandLine(SUBCOMMANDS, true);
    }

    /**
     * The command line that runs {@code args}: with the one subcommand they name alone when
     * they name one (help, usage and errors need every one). Picocli builds the model of
     * every subcommand it is given from its annotations, and its own classes, compiled for
     * Java 5, are too old for the class cache, so they load from the jar on every run:
     * building seventeen models took most of a command's start-up (docs/measure/notebook.md).
     */
    static CommandLine commandLine(String[] args) {
        String named = Arrays.stream(args).filter(a -> !a.startsWith("-")).findFirst().orElse("");
        for (Class<?> command : SUBCOMMANDS) {
            if (command.getAnnotation(Command.class).name().equals(named)) {
                return commandLine(List.of(command), false);
            }
        }
        return commandLine();
    }

    private static CommandLine commandLine(List<Class<?>> subcommands, boolean withHelp) {
        CommandLine cli = new CommandLine(new CarafeCli());
        for (Class<?> command : subcommands) {
            cli.addSubcommand(command);
        }
        if (withHelp) {
            cli.addSubcommand(new CommandLine.HelpCommand());
        }
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
