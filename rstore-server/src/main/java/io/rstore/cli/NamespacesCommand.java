package io.rstore.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rstore.NamespaceFlags;
import io.rstore.RStore;
import io.rstore.config.Units;
import io.rstore.protocol.NamespaceInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "ns", mixinStandardHelpOptions = true, header = "List, inspect, create and delete namespaces.",
        subcommands = {NamespacesCommand.ListNamespaces.class, NamespacesCommand.Info.class, NamespacesCommand.Create.class,
                NamespacesCommand.Delete.class})
final class NamespacesCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.err);
    }

    /** What every namespace subcommand shares: the cluster, and doing one thing on it. */
    abstract static class Action implements Callable<Integer> {
        @Mixin
        ClusterOption cluster;

        @Spec
        CommandSpec spec;

        abstract void on(RStore rstore, PrintWriter out);

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (RStore rstore = cluster.connect()) {
                on(rstore, out);
            }
            out.flush();
            return 0;
        }

        @CommandLine.Option(names = "--format", paramLabel = "table|json", defaultValue = "table",
                description = "output format (default: ${DEFAULT-VALUE})")
        String format;

        /** The namespaces as a table, or (--format json) as the report's {@code namespaces} array. */
        void table(PrintWriter out, List<NamespaceInfo> namespaces) {
            if (JsonReport.json(format)) {
                ObjectNode report = JsonReport.header(spec);
                ArrayNode list = report.putArray("namespaces");
                for (NamespaceInfo ns : namespaces) {
                    list.addObject().put("name", ns.name()).put("id", ns.id()).put("reservedBytes", ns.reservedBytes())
                            .put("allocatedBytes", ns.allocatedBytes()).put("segments", ns.segments()).put("mappedSegments", ns.mappedSegments())
                            .put("durable", ns.durable());
                }
                JsonReport.print(report, out);
                return;
            }
            out.printf("%-40s %6s %12s %12s %9s %7s %8s%n", "namespace", "id", "reserved", "allocated", "segments", "mapped", "durable");
            for (NamespaceInfo ns : namespaces) {
                out.printf("%-40s %6d %12s %12s %9d %7d %8s%n", ns.name(), ns.id(), Units.bytes(ns.reservedBytes()),
                        Units.bytes(ns.allocatedBytes()), ns.segments(), ns.mappedSegments(), ns.durable() ? "yes" : "no");
            }
        }
    }

    /** A subcommand about one namespace, named on the command line. */
    abstract static class Named extends Action {
        @Parameters(paramLabel = "NAME")
        String name;
    }

    @Command(name = "list", mixinStandardHelpOptions = true, header = "Every namespace with its memory and segments.")
    static final class ListNamespaces extends Action {
        @Override
        void on(RStore rstore, PrintWriter out) {
            table(out, rstore.namespaces());
        }
    }

    @Command(name = "info", mixinStandardHelpOptions = true, header = "One namespace.")
    static final class Info extends Named {
        @Override
        void on(RStore rstore, PrintWriter out) {
            table(out, List.of(rstore.joinNamespace(name).info()));
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, header = "Create a namespace.")
    static final class Create extends Named {
        @Option(names = "--durable", description = "take chunks only from memory servers with a persistence directory (NamespaceFlags.DURABLE)")
        boolean durable;

        @Override
        void on(RStore rstore, PrintWriter out) {
            rstore.createNamespace(name, durable ? NamespaceFlags.DURABLE : NamespaceFlags.NONE);
            out.println("created " + name + (durable ? " (durable)" : ""));
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, header = "Delete a namespace (refused while anything in it is mapped).")
    static final class Delete extends Named {
        @Override
        void on(RStore rstore, PrintWriter out) {
            rstore.deleteNamespace(name);
            out.println("deleted " + name);
        }
    }
}
