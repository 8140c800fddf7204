package io.carafe.algorithms.pregel;

import io.carafe.pregel.ForwardingVertexProgram;
import io.carafe.pregel.VertexProgram;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * A user's vertex program loaded from a jar (carafe run --program JAR:CLASS). The class
 * needs a public constructor taking {@code Map<String, String>} (the --param pairs) or
 * none. Its spec names the jar, the class and the parameters, so workers in other
 * processes load the same program.
 */
public final class UserProgram extends ForwardingVertexProgram {
    private final String spec;

    private UserProgram(VertexProgram program, String spec) {
        super(program);
        this.spec = spec;
    }

    /** Loads {@code className} from {@code jar} and builds it with {@code params}. */
    public static UserProgram load(Path jar, String className, Map<String, String> params) {
        Path file = jar.toAbsolutePath().normalize();
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no jar at " + file + ", where the program's classes were to be");
        }
        Class<?> type;
        try {
            // a loader per job: the jar is the user's, and another run may bring a newer one
            URLClassLoader loader = new URLClassLoader(new URL[] {file.toUri().toURL()}, UserProgram.class.getClassLoader());
            type = Class.forName(className, true, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("no class " + className + " in the program jar " + file, e);
        } catch (IOException | LinkageError e) {
            throw new IllegalArgumentException("cannot load " + className + " from the program jar " + file + ": " + e, e);
        }
        if (!VertexProgram.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("the program's class " + className + " does not implement " + VertexProgram.class.getName());
        }
        VertexProgram program = instantiate(type, params);
        StringBuilder spec = new StringBuilder("jar path=").append(encode(file.toString())).append(" class=").append(encode(className));
        for (Map.Entry<String, String> p : new TreeMap<>(params).entrySet()) {
            spec.append(" param.").append(encode(p.getKey())).append('=').append(encode(p.getValue()));
        }
        return new UserProgram(program, spec.toString());
    }

    /** The inverse of {@link #spec()}: {@code args} are the spec's key=value pairs after "jar". */
    static UserProgram fromSpec(Map<String, String> args) {
        Map<String, String> params = new TreeMap<>();
        args.forEach((k, v) -> {
            if (k.startsWith("param.")) {
                params.put(decode(k.substring(6)), decode(v));
            }
        });
        String path = args.get("path");
        String type = args.get("class");
        if (path == null || type == null) {
            throw new IllegalArgumentException("a jar program's spec needs path= and class=");
        }
        return load(Path.of(decode(path)), decode(type), params);
    }

    private static VertexProgram instantiate(Class<?> type, Map<String, String> params) {
        try {
            try {
                Constructor<?> withParams = type.getConstructor(Map.class);
                return (VertexProgram) withParams.newInstance(Map.copyOf(params));
            } catch (NoSuchMethodException e) {
                if (!params.isEmpty()) {
                    throw new IllegalArgumentException("parameters given, but " + type.getName() + " has no public constructor taking a Map<String, String>");
                }
                return (VertexProgram) type.getConstructor().newInstance();
            }
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(type.getName() + " needs a public constructor taking Map<String, String> or nothing", e);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException(type.getName() + " refused its parameters: " + e.getCause().getMessage(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot build " + type.getName() + ": " + e, e);
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    @Override
    public String spec() {
        return spec;
    }
}
