package io.carafe.importer;

import java.nio.file.Path;

/** A malformed input: names the file, the line number, the line and the reason. */
public final class GraphImportException extends RuntimeException {
    private final Path file;
    private final long lineNumber;
    private final String line;
    private final String reason;

    /** Characters of an offending line a message shows: enough to recognise it, not a screenful of a binary file. */
    static final int SHOWN_CHARACTERS = 80;

    public GraphImportException(Path file, long lineNumber, String line, String reason) {
        super(file + ":" + lineNumber + ": " + reason + (line == null ? "" : "\n    " + printable(line))
                + "\n  (fix the line, or set ImportOptions.skipBadLines to count and skip such lines)");
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

    /**
     * At most {@link #SHOWN_CHARACTERS} characters of {@code line}, anything that is not
     * printable ASCII escaped ({@code \\x00}), so a binary file cannot write control
     * characters to a terminal.
     */
    static String printable(String line) {
        StringBuilder out = new StringBuilder();
        int shown = 0;
        for (int i = 0; i < line.length() && shown < SHOWN_CHARACTERS; i++, shown++) {
            char c = line.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\x%02x", (int) c & 0xff));
            }
        }
        if (line.length() > SHOWN_CHARACTERS) {
            out.append(" ... (").append(line.length() - SHOWN_CHARACTERS).append(" more characters)");
        }
        return out.toString();
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
