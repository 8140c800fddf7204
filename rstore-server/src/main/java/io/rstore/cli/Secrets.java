package io.rstore.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where command-line tools find the cluster secret: a file given by flag, else RSTORE_SECRET, else none. Never a flag's value (it would show in ps). */
public final class Secrets {
    public static final String ENVIRONMENT = "RSTORE_SECRET";

    private Secrets() {
    }

    public static String fromEnvironment() {
        String secret = System.getenv(ENVIRONMENT);
        return secret == null ? "" : secret.trim();
    }

    /** The first line of {@code file} if given, else {@link #fromEnvironment()}. */
    public static String from(Path file) {
        if (file == null) {
            return fromEnvironment();
        }
        try {
            String content = Files.readString(file, StandardCharsets.UTF_8).lines().findFirst().orElse("").trim();
            if (content.isEmpty()) {
                throw new IllegalArgumentException("--secret-file " + file + " is empty");
            }
            return content;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read --secret-file " + file + ": " + e.getMessage());
        }
    }
}
