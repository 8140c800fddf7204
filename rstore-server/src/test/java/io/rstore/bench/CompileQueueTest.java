package io.rstore.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompileQueueTest {
    /** Reports as {@code jcmd PID Compiler.queue} printed them on Temurin 25. */
    private static final String IDLE = """
        Current compiles:\s

        C1 compile queue:
        Empty

        C2 compile queue:
        Empty

        """;
    private static final String COMPILING_ONLY = """
        Current compiles:\s
        C2 CompilerThread0  1777       4       jdk.internal.util.xml.impl.Parser::step (891 bytes)

        C1 compile queue:
        Empty

        C2 compile queue:
        Empty
        """;
    private static final String QUEUED_ONLY = """
        Current compiles:\s

        C1 compile queue:
        1824  s!   2       com.sun.jmx.mbeanserver.DefaultMXBeanMappingFactory::mappingForType (110 bytes)

        C2 compile queue:
        Empty
        """;

    @Test
    void readsTheJvmsReports() {
        assertTrue(CompileQueue.idle(IDLE));
        assertFalse(CompileQueue.idle(COMPILING_ONLY), "a compile running is work in hand");
        assertFalse(CompileQueue.idle(QUEUED_ONLY), "a compile queued is work in hand");
    }

    @Test
    void thisJvmAnswersTheCommand() {
        String report = CompileQueue.report();
        assertNotNull(report, "the JDK the bench runs on has the Compiler.queue diagnostic command");
        assertTrue(report.startsWith("Current compiles:"), report);
        assertTrue(report.contains("C2 compile queue:"), report);
    }
}
