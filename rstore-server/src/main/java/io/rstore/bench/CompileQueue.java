package io.rstore.bench;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Whether the JIT has work in hand, read from HotSpot's {@code Compiler.queue} diagnostic
 * command (what {@code jcmd PID Compiler.queue} prints): the compiles running and those
 * queued. The compilation time counter only moves when a compile finishes, so a long one
 * still running looks quiet there.
 */
final class CompileQueue {
    private static final String[] NO_ARGUMENTS = {};
    private static final String[] SIGNATURE = {String[].class.getName()};

    private CompileQueue() {
    }

    /**
     * True when nothing is compiling or queued, or when this JVM cannot say (no diagnostic
     * command bean): then the caller's other signals decide.
     */
    static boolean idle() {
        String report = report();
        return report == null || idle(report);
    }

    /** The {@code Compiler.queue} report, or null when this JVM has no such command. */
    static String report() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            return String.valueOf(server.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerQueue",
                new Object[] {NO_ARGUMENTS}, SIGNATURE));
        } catch (JMException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The report lists section headers ("Current compiles:", "C1 compile queue:") and under
     * each either "Empty" or one line per compile, such as
     * {@code 1777  4  java.lang.String::hashCode (49 bytes)}.
     */
    static boolean idle(String report) {
        return report.lines().map(String::strip).allMatch(line -> line.isEmpty() || line.endsWith(":") || line.equals("Empty"));
    }
}
