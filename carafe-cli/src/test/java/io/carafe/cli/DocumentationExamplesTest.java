package io.carafe.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every Java example of README.md and docs/ compiled as it is written, against the
 * libraries a user's program gets (bin/classpath), so none can rot; those that need
 * nothing from outside run too. A block that declares a class is compiled as a file (with
 * the libraries' packages imported where it imports nothing); any other block becomes the
 * body of a method, whose parameters a first line {@code // given: Type a; Type b, c} names.
 */
class DocumentationExamplesTest {
    private static final String IMPORTS = """
            import io.rstore.*;
            import io.rstore.barrier.*;
            import io.carafe.graph.*;
            import io.carafe.importer.*;
            import io.carafe.datasets.*;
            import io.carafe.pregel.*;
            import io.carafe.algorithms.online.*;
            import io.carafe.algorithms.pregel.*;
            import io.carafe.algorithms.references.*;
            import java.lang.foreign.*;
            import java.nio.file.*;
            import java.util.*;
            """;
    private static final Pattern CLASS = Pattern.compile("(?m)^(public )?(final )?(class|record|interface) (\\w+)");

    @TempDir
    Path dir;

    private record Example(String where, String code) {
    }

    private static List<Example> examples() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<Example> found = new ArrayList<>();
        for (Path file : files) {
            Matcher m = Pattern.compile("(?ms)^```java\\n(.*?)^```").matcher(Files.readString(file));
            for (int n = 1; m.find(); n++) {
                found.add(new Example(root.relativize(file) + " example " + n, m.group(1)));
            }
        }
        return found;
    }

    @Test
    void shouldCompileEveryJavaExampleOfTheDocsAndRunThoseThatNeedNothing() throws Exception {
        List<Example> examples = examples();
        assertTrue(examples.size() >= 5, "found " + examples.size() + " examples");
        List<Path> sources = new ArrayList<>();
        List<String> runnable = new ArrayList<>();
        for (int i = 0; i < examples.size(); i++) {
            Example e = examples.get(i);
            Matcher declared = CLASS.matcher(e.code());
            String name;
            String source;
            if (declared.find()) {
                name = declared.group(4);
                source = (e.code().contains("import ") ? "" : IMPORTS) + e.code();
            } else {
                name = "Example" + i;
                String body = e.code();
                String parameters = "";
                Matcher given = Pattern.compile("^// given: (.*)\\n").matcher(body);
                if (given.find()) {
                    parameters = parameters(given.group(1));
                } else {
                    runnable.add(name);
                }
                source = IMPORTS + "/** " + e.where() + " */\npublic class " + name + " {\n    public static void example(" + parameters
                        + ") throws Exception {\n" + body + "    }\n}\n";
            }
            Path file = dir.resolve("src").resolve(name + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source);
            sources.add(file);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> problems = new DiagnosticCollector<>();
        Path classes = Files.createDirectories(dir.resolve("classes"));
        try (var files = javac.getStandardFileManager(problems, null, null)) {
            boolean ok = javac.getTask(null, files, problems, List.of("-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                    "-proc:none"), null, files.getJavaFileObjectsFromPaths(sources)).call();
            assertTrue(ok, "the docs' examples do not compile: " + problems.getDiagnostics());
        }
        assertTrue(runnable.size() >= 1, "at least the README's example runs");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
            for (String name : runnable) {
                if (readsFiles(examples, name)) {
                    continue; // needs a file of the reader's (wiki-Vote.txt): compiled, not run
                }
                Method example = loader.loadClass(name).getMethod("example");
                example.invoke(null); // an example that throws fails the test
            }
        }
    }

    /** "Namespace ns; int workers, rounds" as a parameter list. */
    private static String parameters(String given) {
        List<String> out = new ArrayList<>();
        for (String declaration : given.split(";")) {
            String[] words = declaration.strip().split("\\s+", 2);
            if (words.length == 2) {
                for (String variable : words[1].split(",")) {
                    out.add(words[0] + " " + variable.strip());
                }
            }
        }
        return String.join(", ", out);
    }

    private static boolean readsFiles(List<Example> examples, String name) {
        int i = Integer.parseInt(name.substring("Example".length()));
        return examples.get(i).code().contains("Path.of(");
    }
}
