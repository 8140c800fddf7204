package io.rstore.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

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
        refuseIfOthersCanRead(file);
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

    /** A secret others can read is no secret: refused, as ssh refuses a readable private key. */
    static void refuseIfOthersCanRead(Path file) {
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(file);
        } catch (UnsupportedOperationException e) {
            return; // not a POSIX file system: nothing to check
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read --secret-file " + file + ": " + e.getMessage());
        }
        Set<PosixFilePermission> open = EnumSet.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);
        open.retainAll(permissions);
        if (!open.isEmpty()) {
            throw new IllegalArgumentException("--secret-file " + file + " is open to group or others ("
                    + PosixFilePermissions.toString(permissions) + "); make it private: chmod 600 " + file);
        }
    }
}
