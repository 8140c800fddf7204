package io.carafe.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build's rewrite of pre-Java 6 classes (src/build/UpgradeOldClassFiles.java), on
 * picocli's own jar: every class comes out a Java 8 class file, and picocli, run from the
 * rewritten jar with the JVM verifying every class it loads, does what the original jar does.
 */
class UpgradeOldClassFilesTest {
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    @Test
    void rewritesPicocliIntoClassesThatBehaveAlike(@TempDir Path dir) throws Exception {
        Path original = Path.of(CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path jars = Files.createDirectory(dir.resolve("lib"));
        Path upgraded = Files.copy(original, jars.resolve(original.getFileName()));
        int old = majorVersions(original).stream().mapToInt(v -> v < 50 ? 1 : 0).sum();
        assertTrue(old > 100, "picocli 4.7 is built for Java 5: " + old + " old classes");

        String out = run(dir, JAVA.toString(), Path.of("src/build/UpgradeOldClassFiles.java").toAbsolutePath().toString(), jars.toString());
        assertEquals("", out.strip(), "every class rewritten, none left as it was");
        assertTrue(majorVersions(upgraded).stream().allMatch(v -> v == 52), "every class a Java 8 class file");
        assertEquals(entryNames(original), entryNames(upgraded));

        // picocli's own command: a completion script for its annotated command class, made by reflection over it
        for (Path jar : List.of(original, upgraded)) {
            run(dir, JAVA.toString(), "-Xshare:off", "-cp", jar.toString(), "picocli.AutoComplete", "-f", "-n", "demo",
                    "-o", dir.resolve(jar == original ? "original.sh" : "upgraded.sh").toString(), "picocli.AutoComplete$App");
        }
        byte[] script = Files.readAllBytes(dir.resolve("original.sh"));
        assertTrue(script.length > 1000, "a completion script");
        assertArrayEquals(script, Files.readAllBytes(dir.resolve("upgraded.sh")));

        byte[] once = Files.readAllBytes(upgraded);
        run(dir, JAVA.toString(), Path.of("src/build/UpgradeOldClassFiles.java").toAbsolutePath().toString(), jars.toString());
        assertArrayEquals(once, Files.readAllBytes(upgraded), "nothing left to rewrite the second time");
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "finished within a minute: " + String.join(" ", command));
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
        return out;
    }

    private static List<Integer> majorVersions(Path jar) throws IOException {
        List<Integer> versions = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile(), false)) {
            for (JarEntry e : file.stream().toList()) {
                if (e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/")) {
                    byte[] b = file.getInputStream(e).readAllBytes();
                    versions.add((b[6] & 0xff) << 8 | (b[7] & 0xff));
                }
            }
        }
        return versions;
    }

    private static List<String> entryNames(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile(), false)) {
            return file.stream().map(JarEntry::getName).toList();
        }
    }
}
