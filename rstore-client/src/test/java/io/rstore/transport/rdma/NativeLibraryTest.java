package io.rstore.transport.rdma;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our libdisni exports every native method DiSNI 2.1's classes declare, under the JNI
 * name the JVM looks for, and reports the version DiSNI requires. Runs wherever the
 * library was built (the verbs headers are installed); on a real device the device
 * contract (DisniDeviceTest) exercises the methods themselves.
 */
class NativeLibraryTest {
    private static final List<String> CLASSES = List.of("com.ibm.disni.verbs.impl.NativeDispatcher", "com.ibm.disni.util.NativeAffinity");

    @Test
    void shouldExportEveryNativeMethodDisniDeclares() throws Exception {
        Path library = DisniDevice.library();
        Assumptions.assumeTrue(library != null, "libdisni was not built here (no verbs headers: apt-get install libibverbs-dev librdmacm-dev)");
        Set<String> exported = exportedSymbols(library);
        List<String> missing = new ArrayList<>();
        int declared = 0;
        for (String name : CLASSES) {
            // by name, without initializing: the classes load the library in their static initializers
            Class<?> type = Class.forName(name, false, NativeLibraryTest.class.getClassLoader());
            for (Method m : type.getDeclaredMethods()) {
                if (Modifier.isNative(m.getModifiers())) {
                    declared++;
                    String symbol = "Java_" + name.replace('.', '_') + "_" + m.getName().replace("_", "_1");
                    if (!exported.contains(symbol)) {
                        missing.add(symbol);
                    }
                }
            }
        }
        assertEquals(50, declared, "DiSNI 2.1 declares 48 + 2 native methods");
        assertTrue(missing.isEmpty(), "not exported by " + library + ": " + missing);
    }

    @Test
    void shouldReportTheVersionDisniRequires() {
        Assumptions.assumeTrue(DisniDevice.library() != null, "libdisni was not built here");
        assertEquals(32, DisniDevice.version(), "DiSNI 2.1's NativeDispatcher requires JVERBS_VERSION 32");
    }

    private static Set<String> exportedSymbols(Path library) throws IOException, InterruptedException {
        Process nm;
        try {
            nm = new ProcessBuilder("nm", "-D", "--defined-only", library.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("no nm (binutils) to list the library's symbols: " + e.getMessage());
            throw e;
        }
        String out = new String(nm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, nm.waitFor(), out);
        return out.lines().map(line -> line.substring(line.lastIndexOf(' ') + 1)).collect(Collectors.toSet());
    }
}
