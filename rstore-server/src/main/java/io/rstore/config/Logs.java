package io.rstore.config;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * RStore's logging: SLF4J, and for the daemons and command lines its simple binding, set
 * up here before the first logger exists: one timestamp format with the zone
 * ({@code 2026-11-24T00:52:07.123+00:00 INFO rstore master - serving on ...}), to stdout
 * unless {@code rstore.log.file} names a file, at {@code rstore.log.level}. System
 * properties given on the command line ({@code -Dorg.slf4j.simpleLogger.*}) win.
 */
public final class Logs {
    private static final String PREFIX = "org.slf4j.simpleLogger.";
    public static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error");

    static {
        setIfAbsent("showDateTime", "true");
        setIfAbsent("dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        setIfAbsent("showThreadName", "false");
        setIfAbsent("logFile", "System.out");
        setIfAbsent("defaultLogLevel", "info");
        setIfAbsent("log.com.ibm.disni", "warn"); // DiSNI tells of every endpoint it makes at info
    }

    private Logs() {
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(PREFIX + key) == null) {
            System.setProperty(PREFIX + key, value);
        }
    }

    /**
     * Sets the level and the file (empty: stdout) before the first logger is made (a daemon
     * calls this once it has read its configuration); later it changes nothing.
     */
    public static void configure(String level, String file) {
        if (!LEVELS.contains(level)) {
            throw new IllegalArgumentException("log level '" + level + "' is not one of " + String.join(", ", LEVELS));
        }
        System.setProperty(PREFIX + "defaultLogLevel", level);
        System.setProperty(PREFIX + "logFile", "System.out"); // a daemon's log is its output
        if (!file.isEmpty()) {
            Path parent = Path.of(file).toAbsolutePath().getParent();
            if (parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent)) {
                throw new IllegalArgumentException("cannot write the log file " + file + ": its directory is missing or not writable");
            }
            System.setProperty(PREFIX + "logFile", file);
        }
    }

    /**
     * For a command whose stdout carries its results: what the libraries log (warnings and
     * worse, unless -D says otherwise) goes to stderr. Called before the first logger.
     */
    public static void toStderr() {
        setIfAbsent("logFile", "System.err");
        setIfAbsent("defaultLogLevel", "warn");
    }

    /**
     * For a run that only prints (bin/rstore asks a daemon command for its JVM bounds and
     * reads its stdout): stdout carries nothing else, and warnings wait for the real run.
     */
    public static void quiet() {
        System.setProperty(PREFIX + "logFile", "System.err");
        System.setProperty(PREFIX + "defaultLogLevel", "error");
    }

    /** The logger of {@code who} (e.g. "rstore master"). */
    public static Logger get(String who) {
        return LoggerFactory.getLogger(who);
    }
}
