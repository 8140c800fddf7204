package io.rstore.cli;

import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.config.Logs;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The {@code rstore} command: routes to one class per subcommand. */
@Command(name = "rstore",
        mixinStandardHelpOptions = true,
        version = "rstore " + RStore.VERSION,
        description = "RStore: a distributed in-memory store with one-sided reads and writes.",
        subcommands = {MasterCommand.class, ServerCommand.class, ServeCommand.class, StatusCommand.class, UsageCommand.class, DoctorCommand.class, NamespacesCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class RStoreCli implements Runnable {

    /** Exit code for failures reported by RStore (usage errors exit 2, like picocli). */
    public static final int EXIT_RSTORE_ERROR = 3;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.err);
    }

    static {
        Logs.toStderr(); // the daemons log to stdout once they have read their configuration
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with RStore's exception-to-exit-code mapping; shared with tests. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new RStoreCli());
        cli.setExecutionExceptionHandler(RStoreCli::handle);
        cli.setParameterExceptionHandler(new ShortUsageErrors("rstore"));
        return cli;
    }

    static int handle(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        if (e instanceof RStoreException rse) {
            cli.getErr().println("rstore: " + rse.getMessage());
            return EXIT_RSTORE_ERROR;
        }
        if (e instanceof IllegalArgumentException) {
            cli.getErr().println("rstore: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        throw new RuntimeException(e);
    }
}
