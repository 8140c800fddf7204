package io.rstore;

/**
 * Every way an RStore call can fail. The number travels on the wire and never changes;
 * the name may. Each code carries a default message that says what to do about it.
 */
public enum ErrorCode {
    UNKNOWN(-1, false, "an unexpected error; see the message and the server log"),
    NONE(0, false, "success"),
    NAMESPACE_EXISTS(1, false, "a namespace of that name exists; join it or pick another name"),
    NO_SUCH_NAMESPACE(2, false, "no namespace of that name (or it was deleted); create it first"),
    INVALID_ADDRESS(3, false, "no segment starts at that address; allocate it first"),
    ADDRESS_IN_USE(4, false, "that address range overlaps an allocated segment; map the existing segment or pick a free range"),
    INSUFFICIENT_RESERVATION(5, false, "the namespace has not reserved enough memory; reserve more or allocate with AllocFlags.GROW"),
    OUT_OF_MEMORY(6, true, "the memory servers have no free memory left; release memory or add servers"),
    SEGMENT_IN_USE(7, true, "the segment is mapped by a client; unmap it everywhere first"),
    SERVER_UNAVAILABLE(8, true, "a memory server does not answer; check it is running"),
    UNAUTHORIZED(9, false, "the credentials do not match: the memory's access key (released, or wrong) or the cluster secret"),
    OUT_OF_BOUNDS(10, false, "the offset and length fall outside the mapping or segment"),
    INVALID_ARGUMENT(11, false, "an argument is out of its allowed range"),
    TIMED_OUT(12, true, "the operation did not complete within its bound"),
    CLOSED(13, false, "the client, namespace handle or mapping was closed; open a new one"),
    READ_ONLY(14, false, "the mapping is read-only one way: writes need a mapping without MapFlags.READ_ONLY, reads need writable local memory"),
    MASTER_UNAVAILABLE(15, true, "the master does not answer; check it is running"),
    UNSUPPORTED(16, false, "the cluster or transport does not support this call"),
    ABORTED(17, false, "the coordinator aborted the job after a failure elsewhere; that failure is the cause"),
    INVALID_FRAME(18, false, "a frame on the wire is malformed, truncated or oversized; the peer speaks another protocol or version"),
    OVERLOADED(19, true, "the daemon is at its connection limit (rstore.net.max-connections); retry later, or raise the limit"),
    DATA_LOST(20, false, "a memory server came back without a chunk this data lived in (its file missing or the wrong size); free the segment or delete the namespace"),
    NO_SPACE(21, false, "a disk is full: a memory server's chunk files or the master's journal cannot grow; free space there or give it a larger file system"),
    CANNOT_LISTEN(22, false, "a daemon cannot listen there: the port is taken, or the address is not one of this host's; pick another");

    private static final ErrorCode[] BY_CODE = new ErrorCode[32];

    static {
        for (ErrorCode e : values()) {
            if (e.code >= 0) {
                BY_CODE[e.code] = e;
            }
        }
    }

    private final int code;
    private final boolean retriable;
    private final String defaultMessage;

    ErrorCode(int code, boolean retriable, String defaultMessage) {
        this.code = code;
        this.retriable = retriable;
        this.defaultMessage = defaultMessage;
    }

    /** The stable number carried on the wire. */
    public int code() {
        return code;
    }

    /** Whether the same call may succeed later without the caller changing anything. */
    public boolean isRetriable() {
        return retriable;
    }

    public String defaultMessage() {
        return defaultMessage;
    }

    /** The code for a wire number; numbers this version does not know map to {@link #UNKNOWN}. */
    public static ErrorCode of(int code) {
        return code >= 0 && code < BY_CODE.length && BY_CODE[code] != null ? BY_CODE[code] : UNKNOWN;
    }

    /** The exception for this code with a specific message; the default advice is appended. */
    public RStoreException exception(String message) {
        return new RStoreException(this, message);
    }
}
