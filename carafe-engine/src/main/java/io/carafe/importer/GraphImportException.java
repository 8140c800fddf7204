package io.carafe.importer;

import java.nio.file.Path;

/** A malformed input: names the file, the line number, the line and the reason. */
public final class GraphImportException extends RuntimeException {
    private final Path file;
    private final long lineNumber;
    private final String line;
    private final String reason;

    public GraphImportException(Path file, long lineNumber, String line, String reason) {
        super(file + ":" + lineNumber + ": " + reason + (line == null ? "" : "\n    " + line)
                + "\n  (fix the line, or pass --skip-bad-lines to count and skip such lines)");
        this.file = file;
        this.lineNumber = lineNumber;
        this.line = line;
        this.reason = reason;
    }

    /** A problem with the file as a whole (unreadable, empty). */
    public GraphImportException(Path file, String reason, Throwable cause) {
        super(file + ": " + reason, cause);
        this.file = file;
        this.lineNumber = 0;
        this.line = null;
        this.reason = reason;
    }

    public Path file() {
        return file;
    }

    public long lineNumber() {
        return lineNumber;
    }

    public String line() {
        return line;
    }

    public String reason() {
        return reason;
    }
}
