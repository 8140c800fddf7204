package io.carafe.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The library's messages name what a caller can change as its API spells it
 * ({@code ImportOptions.weightColumn}, {@code PregelJob.Options.workers}); a command line user
 * changes it by a flag. Every error the CLI prints passes through {@link #inFlags}, which
 * puts the flag (and, where the library advises a call, the command) in the API's place.
 */
final class FlagNames {
    /** What the library says, and what the CLI says instead: phrases first, then names, longer before their prefixes. */
    private static final String[][] NAMES = {
            {"load it first (CarafeGraph.create)", "load it first (a carafe command with --graph)"},
            {"or give the graph as a path, /path/to/", "or pass --graph /path/to/"},
            {"(DatasetCatalog.load() lists them)", "(carafe datasets list)"},
            {"use the Pregel engine (PregelJob)", "use --algorithm pregel"},
            {"pick another cache directory", "pick another --cache-dir"},
            {"set ImportOptions.header", "pass --header"},
            {"set ImportOptions.skipBadLines", "pass --skip-bad-lines"},
            {"set ImportOptions.format", "pass --input-format"},
            {"ImportOptions.weightColumn", "--weight-column"},
            {"ImportOptions.weightMap", "--weight-map"},
            {"ImportOptions.weights", "--weights"},
            {"ImportOptions.columns", "--columns"},
            {"ImportOptions.header", "--header"},
            {"ImportOptions.ids", "--ids"},
            {"ImportOptions.format", "--input-format"},
            {"ImportOptions.skipBadLines", "--skip-bad-lines"},
            {"PregelJob.Options.workers", "--workers"},
            {"PregelJob.Options.neighbourhoodCacheBytes", "--neighbourhood-cache"},
            {"PregelJob.Options.maxMemoryBytes", "--max-memory"},
            {"PregelJob.Options.messaging", "--messaging"},
            {"PregelJob.Recovery.every", "--checkpoint-every"},
            {"PregelJob.Recovery.maxRestarts", "--max-restarts"},
            {"PregelJob.Recovery.directory", "--checkpoint-dir"},
            {"PageRank.damping", "--damping"},
            {"PageRank.tolerance", "--tolerance"},
    };

    /** Advice naming a graph: the name kept. */
    private static final Pattern LOAD_AGAIN = Pattern.compile("load it again \\(CarafeGraph\\.delete\\(\"([^\"]*)\"\\), then CarafeGraph\\.load\\)");

    private FlagNames() {
    }

    /** {@code message} in the command line's words (null stays null). */
    static String inFlags(String message) {
        if (message == null) {
            return null;
        }
        String out = LOAD_AGAIN.matcher(message).replaceAll(m -> Matcher.quoteReplacement("load it again (--replace, or carafe graphs drop "
                + m.group(1) + " first)"));
        for (String[] name : NAMES) {
            out = out.replace(name[0], name[1]);
        }
        return out;
    }
}
