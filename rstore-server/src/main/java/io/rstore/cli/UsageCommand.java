package io.rstore.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rstore.RStore;
import io.rstore.config.Units;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.ServerInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "usage", mixinStandardHelpOptions = true,
        header = "Who holds the cluster's memory: namespaces by reserved bytes, with what they allocated and keep mapped.")
final class UsageCommand implements Callable<Integer> {
    @Mixin
    ClusterOption cluster;

    @Spec
    CommandSpec spec;

    @CommandLine.Option(names = "--format", paramLabel = "table|json", defaultValue = "table", description = "output format (default: ${DEFAULT-VALUE})")
    String format;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        boolean json = JsonReport.json(format);
        try (RStore rstore = cluster.connect()) {
            List<NamespaceInfo> namespaces = rstore.namespaces().stream()
                    .sorted(Comparator.comparingLong(NamespaceInfo::reservedBytes).reversed().thenComparing(NamespaceInfo::name)).toList();
            long capacity = rstore.servers().stream().filter(ServerInfo::alive).mapToLong(ServerInfo::capacityBytes).sum();
            if (json) {
                ObjectNode report = JsonReport.header(spec);
                ArrayNode list = report.putArray("namespaces");
                for (NamespaceInfo ns : namespaces) {
                    list.addObject().put("name", ns.name()).put("reservedBytes", ns.reservedBytes()).put("allocatedBytes", ns.allocatedBytes())
                            .put("segments", ns.segments()).put("mappedSegments", ns.mappedSegments());
                }
                long reserved = namespaces.stream().mapToLong(NamespaceInfo::reservedBytes).sum();
                report.put("liveCapacityBytes", capacity).put("reservedBytes", reserved).put("unreservedBytes", capacity - reserved);
                JsonReport.print(report, out);
                return 0;
            }
            out.printf("%-40s %12s %7s %12s %6s %9s %7s%n", "namespace", "reserved", "of cap", "allocated", "used", "segments", "mapped");
            long reserved = 0;
            long allocated = 0;
            for (NamespaceInfo ns : namespaces) {
                out.printf("%-40s %12s %6.1f%% %12s %5.0f%% %9d %7d%n", ns.name(), Units.bytes(ns.reservedBytes()),
                        percent(ns.reservedBytes(), capacity), Units.bytes(ns.allocatedBytes()), percent(ns.allocatedBytes(), ns.reservedBytes()),
                        ns.segments(), ns.mappedSegments());
                reserved += ns.reservedBytes();
                allocated += ns.allocatedBytes();
            }
            out.printf("%-40s %12s %6.1f%% %12s %5.0f%%%n", namespaces.size() + " namespaces", Units.bytes(reserved), percent(reserved, capacity),
                    Units.bytes(allocated), percent(allocated, reserved));
            out.printf("live capacity %s; unreserved %s%n", Units.bytes(capacity), Units.bytes(capacity - reserved));
            out.flush();
        }
        return 0;
    }

    private static double percent(long part, long whole) {
        return whole == 0 ? 0 : 100.0 * part / whole;
    }
}
