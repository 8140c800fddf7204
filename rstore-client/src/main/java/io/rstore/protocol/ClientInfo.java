package io.rstore.protocol;

/**
 * A client session as the master knows it.
 *
 * @param session  the session id
 * @param name     the name the client gave (or client-ID)
 * @param mappings mapping references the session holds
 */
public record ClientInfo(long session, String name, int mappings) {
}
