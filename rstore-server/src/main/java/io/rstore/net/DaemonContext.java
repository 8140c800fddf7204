package io.rstore.net;

import io.rstore.transport.rdma.RdmaDevice;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a master and a memory server are both started with, set through named setters with
 * defaults and checked once when the daemon starts, as Aeron's components take a Context:
 * where to listen, the cluster secret, the bounds, an RDMA device, what a connection may
 * cost, the log. {@link MasterNode.Context} and {@link ServerNode.Context} add their own.
 */
public abstract class DaemonContext<C extends DaemonContext<C>> {
    InetSocketAddress bind = new InetSocketAddress("127.0.0.1", 0);
    String secret = "";
    long timeoutMs = 30_000;
    long heartbeatMs = 1_000;
    RdmaDevice rdma;
    int rdmaPort;
    NetLimits limits = NetLimits.defaults();
    Consumer<String> log = line -> { };

    DaemonContext() {
    }

    /** Where to listen (port 0: any free port; default 127.0.0.1:0). */
    public C bind(InetSocketAddress at) {
        this.bind = at;
        return self();
    }

    /** The cluster secret (empty, the default: none). */
    public C secret(String secret) {
        this.secret = secret;
        return self();
    }

    /** The bound on a call to another daemon (default 30 s). */
    public C timeoutMs(long ms) {
        this.timeoutMs = ms;
        return self();
    }

    /** The heartbeat: how often a master looks whether its memory servers answer, and a memory server registers again (default 1 s). */
    public C heartbeatMs(long ms) {
        this.heartbeatMs = ms;
        return self();
    }

    /**
     * An RDMA device: a master takes control calls over it too, a memory server registers its
     * chunks on it; its listener takes {@code port} (0: any free port). Null, the default: none.
     */
    public C rdma(RdmaDevice device, int port) {
        this.rdma = device;
        this.rdmaPort = port;
        return self();
    }

    /** What a connection may cost the daemon (default {@link NetLimits#defaults()}). */
    public C limits(NetLimits limits) {
        this.limits = limits;
        return self();
    }

    /** Where the daemon says what happened (default: nowhere). */
    public C log(Consumer<String> log) {
        this.log = log;
        return self();
    }

    /** Refuses what no daemon can start with, naming it; {@code who} is "a master" or "a memory server". */
    void conclude(String who) {
        if (bind == null || rdmaPort < 0 || rdmaPort > 65_535 || timeoutMs < 1 || heartbeatMs < 1) {
            throw new IllegalArgumentException(who + " needs an address to listen on, an RDMA port 0..65535 and positive bounds (Context):"
                    + " bind " + bind + ", rdma port " + rdmaPort + ", timeout " + timeoutMs + " ms, heartbeat " + heartbeatMs + " ms");
        }
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(log, "log");
    }

    @SuppressWarnings("unchecked") // C is the subclass itself
    private C self() {
        return (C) this;
    }
}
