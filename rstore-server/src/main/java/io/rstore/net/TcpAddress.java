package io.rstore.net;

import io.rstore.ErrorCode;

/** A memory server's data address, {@code rstore+tcp://HOST:PORT[/ID]}. */
record TcpAddress(String host, int port) {
    static final String SCHEME = "rstore+tcp://";

    static TcpAddress parse(String address) {
        if (address == null || !address.startsWith(SCHEME)) {
            throw ErrorCode.INVALID_ARGUMENT.exception("'" + address + "' is not a tcp address (" + SCHEME + "HOST:PORT)");
        }
        String rest = address.substring(SCHEME.length());
        int slash = rest.indexOf('/');
        String hostPort = slash < 0 ? rest : rest.substring(0, slash);
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("'" + address + "' names no host and port (" + SCHEME + "HOST:PORT)");
        }
        try {
            return new TcpAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("'" + address + "' has no valid port (" + SCHEME + "HOST:PORT)");
        }
    }

    @Override
    public String toString() {
        return SCHEME + host + ":" + port;
    }
}
