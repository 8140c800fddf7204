package io.carafe.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

@Command(name = "resume",
        mixinStandardHelpOptions = true,
        header = "Go on with a Pregel job whose command died, from its latest checkpoint.",
        description = {"A command run with --checkpoint-every records itself in its job's checkpoint directory and says the job's",
                "name when it starts. If the command dies (killed, its host restarted) before the job ends, this runs the same",
                "command again, starting from the job's latest complete checkpoint instead of superstep 0: same graph, program",
                "and options, same output (-o, --format). The graph is loaded again, into the same --cluster or a new embedded one."})
final class ResumeCommand implements Callable<Integer> {
    @Option(names = "--job", required = true, paramLabel = "NAME", description = "the job, as the command named it (a directory under --checkpoint-dir)")
    String job;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR",
            description = "where the command kept its checkpoints (default: $CARAFE_CHECKPOINT_DIR, else $XDG_CACHE_HOME/carafe/checkpoints or ~/.cache/carafe/checkpoints)")
    Path checkpointDir;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        Path root = checkpointDir != null ? checkpointDir.toAbsolutePath() : EngineOptions.defaultCheckpointDir();
        Path directory = root.resolve(job);
        Path recorded = directory.resolve(EngineOptions.COMMAND_FILE);
        if (job.isBlank() || job.contains("/") || !Files.isRegularFile(recorded)) {
            throw new IllegalArgumentException("no job '" + job + "' with checkpoints in " + root + "; jobs there: " + jobs(root));
        }
        List<String> command = new ArrayList<>(List.of(new ObjectMapper().readValue(recorded.toFile(), String[].class)));
        if (command.contains("--resume-checkpoints")) {
            throw new IllegalArgumentException(recorded + " records a resumed command; it cannot be resumed again from it");
        }
        command.addAll(List.of("--resume-checkpoints", directory.toString()));
        System.err.println("resuming: carafe " + String.join(" ", command.subList(0, command.size() - 2)));
        CommandLine again = CarafeCli.commandLine();
        again.setOut(spec.commandLine().getOut());
        again.setErr(spec.commandLine().getErr());
        return again.execute(command.toArray(String[]::new));
    }

    /** The jobs with a recorded command under {@code root}. */
    private static String jobs(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return "none (no such directory)";
        }
        try (Stream<Path> all = Files.list(root)) {
            List<String> names = all.filter(p -> Files.isRegularFile(p.resolve(EngineOptions.COMMAND_FILE))).map(p -> p.getFileName().toString())
                    .sorted().toList();
            return names.isEmpty() ? "none" : String.join(", ", names);
        }
    }
}
