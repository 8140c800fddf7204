package io.carafe.pregel;

/** A Pregel job failed: the message names the worker and its cause. */
public class PregelException extends RuntimeException {
    public PregelException(String message, Throwable cause) {
        super(message, cause);
    }
}
