package io.carafe.graph;

/** A graph is missing, incomplete, named badly or already there; the message says what to do. */
public final class GraphStoreException extends RuntimeException {
    public GraphStoreException(String message) {
        super(message);
    }

    public GraphStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
