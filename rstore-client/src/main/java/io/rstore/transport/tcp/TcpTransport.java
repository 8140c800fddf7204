package io.rstore.transport.tcp;

import io.rstore.ErrorCode;
import io.rstore.protocol.ServerInfo;
import io.rstore.transport.Endpoint;
import io.rstore.transport.Transport;

/**
 * One-sided operations over TCP: a connection per memory server, served by the process
 * hosting it. Server addresses look like {@code rstore+tcp://HOST:PORT/ID}.
 */
public final class TcpTransport implements Transport {
    private final long timeoutMs;
    private final String secret;

    public TcpTransport(long timeoutMs, String secret) {
        this.timeoutMs = timeoutMs;
        this.secret = secret;
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public Endpoint connect(ServerInfo server, Locator locator) {
        Transport.checkReachable(server, name(), null);
        return new TcpEndpoint(Address.of(server), locator, timeoutMs, secret);
    }

    /** Where a memory server serves over tcp: its address {@code rstore+tcp://HOST:PORT/ID}, parsed. */
    record Address(String host, int port, int id) {
        static Address of(ServerInfo server) {
            String prefix = "rstore+tcp://";
            String address = server.address();
            int slash = address.indexOf('/', prefix.length());
            int colon = address.lastIndexOf(':', slash);
            if (!address.startsWith(prefix) || slash < 0 || colon <= prefix.length()) {
                throw ErrorCode.UNSUPPORTED.exception("memory server " + server.id() + " has address '" + address
                        + "', not rstore+tcp://HOST:PORT/ID; is it served by another transport?");
            }
            try {
                return new Address(address.substring(prefix.length(), colon), Integer.parseInt(address.substring(colon + 1, slash)),
                        Integer.parseInt(address.substring(slash + 1)));
            } catch (NumberFormatException e) {
                throw ErrorCode.INVALID_ARGUMENT.exception("memory server address '" + address + "' has no valid port and id");
            }
        }

        /** How messages name the server: {@code HOST:PORT (memory server ID)}. */
        String peer() {
            return host + ":" + port + " (memory server " + id + ")";
        }
    }

    @Override
    public void close() {
    }
}
