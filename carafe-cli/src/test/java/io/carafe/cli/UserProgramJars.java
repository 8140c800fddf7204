package io.carafe.cli;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** User programs for {@code carafe run}: the test resource user-program/NAME.java compiled against the engine's API into a jar. */
final class UserProgramJars {
    private UserProgramJars() {
    }

    /** A jar, under {@code dir}, of the class {@code name} compiled from user-program/NAME.java. */
    static Path jar(Path dir, String name) throws IOException {
        Path src = dir.resolve("src");
        Files.createDirectories(src);
        Path source = src.resolve(name + ".java");
        try (InputStream in = UserProgramJars.class.getResourceAsStream("/user-program/" + name + ".java")) {
            Files.copy(in, source, StandardCopyOption.REPLACE_EXISTING);
        }
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-cp", System.getProperty("java.class.path"), "-d", classes.toString(), source.toString());
        assertEquals(0, rc, "the example program compiles against the engine's API");
        Path jar = dir.resolve(name + ".jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            out.putNextEntry(new JarEntry(name + ".class"));
            out.write(Files.readAllBytes(classes.resolve(name + ".class")));
            out.closeEntry();
        }
        return jar;
    }
}
