package io.rstore.cli;

import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;

/**
 * A command line mistake in one line and a pointer to --help, rather than the error
 * followed by the whole usage: shared by the rstore and carafe commands.
 */
public final class ShortUsageErrors implements IParameterExceptionHandler {
    private final String tool;

    public ShortUsageErrors(String tool) {
        this.tool = tool;
    }

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cli = ex.getCommandLine();
        PrintWriter err = cli.getErr();
        err.println(tool + ": " + ex.getMessage());
        UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Try '" + cli.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return cli.getCommandSpec().exitCodeOnInvalidInput();
    }
}
