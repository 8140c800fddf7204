package io.carafe.datasets;

/** A dataset is not on this machine and cannot be fetched; the message says where to put it. */
public final class DatasetUnavailableException extends RuntimeException {
    public DatasetUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
