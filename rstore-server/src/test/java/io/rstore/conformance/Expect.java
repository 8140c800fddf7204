package io.rstore.conformance;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

final class Expect {
    private Expect() {
    }

    /** Asserts the call fails with exactly this code; returns the exception for message checks. */
    static RStoreException error(ErrorCode code, Executable call) {
        RStoreException e = assertThrows(RStoreException.class, call);
        assertEquals(code, e.code(), e.getMessage());
        return e;
    }
}
