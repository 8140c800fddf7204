package io.rstore.cli;

import io.rstore.RStore;
import io.rstore.bench.Units;
import io.rstore.protocol.NamespaceInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
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

    static void print(PrintWriter out, NamespaceInfo ns) {
        out.printf("%-40s %6d %12s %12s %9d %7d%n", ns.name(), ns.id(), Units.bytes(ns.reservedBytes()), Units.bytes(ns.allocatedBytes()),
                ns.segments(), ns.mappedSegments());
    }

    static void header(PrintWriter out) {
        out.printf("%-40s %6s %12s %12s %9s %7s%n", "namespace", "id", "reserved", "allocated", "segments", "mapped");
    }

    @Command(name = "list", mixinStandardHelpOptions = true, header = "Every namespace with its memory and segments.")
    static final class ListNamespaces implements Callable<Integer> {
        @Mixin
        ClusterOption cluster;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (RStore rstore = cluster.connect()) {
                header(out);
                rstore.namespaces().forEach(ns -> print(out, ns));
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "info", mixinStandardHelpOptions = true, header = "One namespace.")
    static final class Info implements Callable<Integer> {
        @Mixin
        ClusterOption cluster;

        @Parameters(paramLabel = "NAME")
        String name;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (RStore rstore = cluster.connect()) {
                header(out);
                print(out, rstore.joinNamespace(name).info());
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, header = "Create a namespace.")
    static final class Create implements Callable<Integer> {
        @Mixin
        ClusterOption cluster;

        @Parameters(paramLabel = "NAME")
        String name;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            try (RStore rstore = cluster.connect()) {
                rstore.createNamespace(name);
            }
            spec.commandLine().getOut().println("created " + name);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, header = "Delete a namespace (refused while anything in it is mapped).")
    static final class Delete implements Callable<Integer> {
        @Mixin
        ClusterOption cluster;

        @Parameters(paramLabel = "NAME")
        String name;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            try (RStore rstore = cluster.connect()) {
                rstore.deleteNamespace(name);
            }
            spec.commandLine().getOut().println("deleted " + name);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}
