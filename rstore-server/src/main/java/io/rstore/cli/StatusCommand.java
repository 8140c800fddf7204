package io.rstore.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rstore.RStore;
import io.rstore.config.Units;
import io.rstore.protocol.ClientInfo;
import io.rstore.protocol.ClusterInfo;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.ServerInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "status", mixinStandardHelpOptions = true, header = "Memory servers (alive or dead, chunks in memory or in files kept across restarts), capacity used and free, namespaces and clients of a cluster.")
final class StatusCommand implements Callable<Integer> {
    @Mixin
    ClusterOption cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--format", paramLabel = "table|json", defaultValue = "table", description = "output format (default: ${DEFAULT-VALUE})")
    String format;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        boolean json = JsonReport.json(format);
        try (RStore rstore = cluster.connect()) {
            List<ServerInfo> servers = rstore.servers();
            List<NamespaceInfo> namespaces = rstore.namespaces();
            ClusterInfo info = rstore.clusterInfo();
            if (json) {
                JsonReport.print(report(rstore, info, servers, namespaces), out);
                return 0;
            }
            long capacity = 0;
            long used = 0;
            out.printf("cluster %s (transport %s); master version %s, up %s%n%n", rstore.uri(), rstore.transportName(), info.version(),
                    Duration.ofMillis(info.uptimeMillis()).toSeconds() + " s");
            out.printf("%4s  %-36s %6s %6s %12s %12s %12s %10s  %s%n", "id", "memory server", "state", "chunks", "capacity", "used", "free",
                    "heartbeat", "reached by");
            for (ServerInfo s : servers) {
                long age = info.heartbeatAgeMillis(s.id());
                out.printf("%4d  %-36s %6s %6s %12s %12s %12s %10s  %s%n", s.id(), s.address(), s.alive() ? "alive" : "DEAD",
                        s.durable() ? "files" : "memory",
                        Units.bytes(s.capacityBytes()), Units.bytes(s.usedBytes()), Units.bytes(s.capacityBytes() - s.usedBytes()),
                        age < 0 ? "-" : String.format("%.1f s ago", age / 1000.0), rstore.transportTo(s));
                if (s.alive()) {
                    capacity += s.capacityBytes();
                    used += s.usedBytes();
                }
            }
            long reserved = namespaces.stream().mapToLong(NamespaceInfo::reservedBytes).sum();
            out.printf("%nlive capacity %s, in chunks %s (reserved by namespaces %s, the rest pooled), free %s; %d namespaces%n",
                    Units.bytes(capacity), Units.bytes(used), Units.bytes(reserved), Units.bytes(capacity - used), namespaces.size());
            List<ClientInfo> clients = rstore.clients();
            out.printf("%n%d clients (this one included)%n", clients.size());
            out.printf("%8s  %-40s %8s%n", "session", "client", "mappings");
            for (ClientInfo c : clients) {
                out.printf("%8d  %-40s %8d%n", c.session(), c.name(), c.mappings());
            }
            out.flush();
        }
        return 0;
    }

    private ObjectNode report(RStore rstore, ClusterInfo info, List<ServerInfo> servers, List<NamespaceInfo> namespaces) {
        ObjectNode report = JsonReport.header(spec);
        report.put("cluster", rstore.uri()).put("transport", rstore.transportName()).put("masterVersion", info.version())
                .put("masterUptimeMillis", info.uptimeMillis());
        ArrayNode list = report.putArray("servers");
        long capacity = 0;
        long used = 0;
        for (ServerInfo s : servers) {
            list.addObject().put("id", s.id()).put("address", s.address()).put("alive", s.alive()).put("durable", s.durable())
                    .put("capacityBytes", s.capacityBytes())
                    .put("usedBytes", s.usedBytes()).put("freeBytes", s.capacityBytes() - s.usedBytes()).put("reachedBy", rstore.transportTo(s))
                    .put("shm", s.shm()).put("rdma", s.rdma())
                    .put("heartbeatAgeMillis", info.heartbeatAgeMillis(s.id()));
            if (s.alive()) {
                capacity += s.capacityBytes();
                used += s.usedBytes();
            }
        }
        report.put("liveCapacityBytes", capacity).put("usedBytes", used)
                .put("reservedBytes", namespaces.stream().mapToLong(NamespaceInfo::reservedBytes).sum()).put("namespaces", namespaces.size());
        ArrayNode clients = report.putArray("clients");
        for (ClientInfo c : rstore.clients()) {
            clients.addObject().put("session", c.session()).put("name", c.name()).put("mappings", c.mappings());
        }
        return report;
    }
}
