import java.io.IOException;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Rewrites the classes that predate Java 6 (class file major version &lt; 50, such as
 * picocli's, built for Java 5) in the jars of a directory as Java 8 class files with stack
 * maps, instruction for instruction the same. JDK 25's AOT cache leaves such old classes out
 * ("Skipping ...: Old class has been linked"), so every {@code bin/carafe} command loaded and
 * verified picocli's classes from its jar at start (docs/measure/notebook.md, "picocli in the
 * class cache"). The build runs it on carafe-cli's target/lib, which only bin/ puts on a
 * class path; a jar with no old class, or a signed one, is left as it is, and a class whose
 * stack maps cannot be made stays as it was, and says so on stderr; otherwise it prints nothing.
 *
 * <p>Usage (a JDK 25 source launch): {@code java UpgradeOldClassFiles.java DIRECTORY}
 */
public final class UpgradeOldClassFiles {
    private static final int JAVA_6 = 50;
    private static final int JAVA_8 = 52;

    private UpgradeOldClassFiles() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1 || !Files.isDirectory(Path.of(args[0]))) {
            System.err.println("usage: java UpgradeOldClassFiles.java DIRECTORY (a directory of jars)");
            System.exit(2);
        }
        List<Path> jars;
        try (Stream<Path> files = Files.list(Path.of(args[0]))) {
            jars = files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
        // every jar's classes, then the JDK's, so that stack maps can name the common supertypes of classes across jars
        URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++) {
            urls[i] = jars.get(i).toUri().toURL();
        }
        try (URLClassLoader jarLoader = new URLClassLoader(urls, null)) {
            ClassHierarchyResolver resolver = ClassHierarchyResolver.ofResourceParsing(jarLoader).orElse(ClassHierarchyResolver.defaultResolver()).cached();
            ClassFile classFile = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS, ClassFile.ClassHierarchyResolverOption.of(resolver));
            for (Path jar : jars) {
                upgrade(jar, classFile);
            }
        }
    }

    private static void upgrade(Path jar, ClassFile classFile) throws IOException {
        List<JarEntry> entries = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        int old = 0;
        try (JarFile in = new JarFile(jar.toFile(), false)) {
            for (JarEntry e : in.stream().toList()) {
                if (e.getName().startsWith("META-INF/") && e.getName().endsWith(".SF")) {
                    return; // signed: a rewritten class would break its signature
                }
                byte[] bytes = in.getInputStream(e).readAllBytes();
                if (isClass(e) && majorVersion(bytes) < JAVA_6) {
                    old++;
                }
                entries.add(e);
                contents.add(bytes);
            }
        }
        if (old == 0) {
            return;
        }
        // rebuilding every method body is what makes the stack maps; the version goes up once they are there
        ClassTransform toJava8 = ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                .andThen(ClassTransform.endHandler(b -> b.withVersion(JAVA_8, 0)));
        boolean changed = false;
        for (int i = 0; i < entries.size(); i++) {
            byte[] bytes = contents.get(i);
            if (isClass(entries.get(i)) && majorVersion(bytes) < JAVA_6) {
                String name = entries.get(i).getName();
                try {
                    byte[] java8 = classFile.transformClass(classFile.parse(bytes), toJava8);
                    List<VerifyError> errors = classFile.verify(java8); // the JVM's type-checking verifier, as it will run at load
                    if (errors.isEmpty()) {
                        contents.set(i, java8);
                        changed = true;
                    } else {
                        System.err.println("UpgradeOldClassFiles: " + name + " in " + jar.getFileName() + " stays as it was: " + errors.getFirst().getMessage());
                    }
                } catch (IllegalArgumentException | IllegalStateException e) { // jsr/ret, say, which stack maps cannot describe
                    System.err.println("UpgradeOldClassFiles: " + name + " in " + jar.getFileName() + " stays as it was: " + e.getMessage());
                }
            }
        }
        if (!changed) {
            return;
        }
        Path tmp = jar.resolveSibling(jar.getFileName() + ".tmp");
        try (OutputStream file = Files.newOutputStream(tmp); JarOutputStream out = new JarOutputStream(file)) {
            for (int i = 0; i < entries.size(); i++) {
                JarEntry copy = new JarEntry(entries.get(i).getName());
                copy.setTime(entries.get(i).getTime());
                out.putNextEntry(copy);
                out.write(contents.get(i));
                out.closeEntry();
            }
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static boolean isClass(JarEntry e) {
        return e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/");
    }

    private static int majorVersion(byte[] classFile) {
        return classFile.length < 8 ? Integer.MAX_VALUE : (classFile[6] & 0xff) << 8 | (classFile[7] & 0xff);
    }
}
