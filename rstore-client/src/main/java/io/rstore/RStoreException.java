package io.rstore;

/** The one exception of the RStore API: an {@link ErrorCode} and a message saying what to do. */
public final class RStoreException extends RuntimeException {
    private final ErrorCode code;
    private final String detail;

    public RStoreException(ErrorCode code, String message) {
        super(code.name() + ": " + message + " (" + code.defaultMessage() + ")");
        this.code = code;
        this.detail = message;
    }

    public RStoreException(ErrorCode code, String message, Throwable cause) {
        this(code, message);
        initCause(cause);
    }

    public ErrorCode code() {
        return code;
    }

    /** The specific message, without the code and the default advice (what travels on the wire). */
    public String detail() {
        return detail;
    }

    /** Throws unless {@code status} (an {@link ErrorCode} number) is {@link ErrorCode#NONE}. */
    static void check(int status, String what) {
        if (status != 0) {
            throw new RStoreException(ErrorCode.of(status), what);
        }
    }
}
