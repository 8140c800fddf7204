package io.rstore.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.Collection;
import java.util.Locale;

/**
 * What every {@code --format json} output of the rstore and carafe commands starts with:
 * the command, the tool's version, when it ran, and every parameter it ran with (each
 * option by its long name, defaults included), so a result file says how it was made.
 */
public final class JsonReport {
    private JsonReport() {
    }

    /**
     * The mapper that prints reports, made at the first print: every command builds its
     * report, but only {@code --format json} prints it, and an {@code ObjectMapper}'s first
     * construction costs a starting JVM about 20 ms (it reads the JDK's time-zone data).
     */
    private static final class Printer {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    /** {@code command, version, timestamp, parameters{...}} of the command being run. */
    public static ObjectNode header(CommandSpec spec) {
        ObjectNode report = JsonNodeFactory.instance.objectNode();
        report.put("command", spec.qualifiedName());
        String[] version = spec.root().version();
        report.put("version", version.length == 0 ? "" : version[0]);
        report.put("timestamp", Instant.now().toString());
        ObjectNode parameters = report.putObject("parameters");
        for (OptionSpec option : spec.options()) {
            if (!option.usageHelp() && !option.versionHelp() && !option.hidden()) {
                put(parameters, option.longestName().replaceFirst("^-+", ""), option.getValue());
            }
        }
        for (PositionalParamSpec positional : spec.positionalParameters()) {
            put(parameters, positional.paramLabel().toLowerCase(Locale.ROOT), positional.getValue());
        }
        return report;
    }

    private static void put(ObjectNode into, String name, Object value) {
        switch (value) {
            case null -> into.putNull(name);
            case Boolean b -> into.put(name, b);
            case Integer i -> into.put(name, i);
            case Long l -> into.put(name, l);
            case Double d -> into.put(name, d);
            case double[] ds -> {
                ArrayNode a = into.putArray(name);
                for (double d : ds) {
                    a.add(d);
                }
            }
            case Collection<?> c -> {
                ArrayNode a = into.putArray(name);
                c.forEach(item -> a.add(String.valueOf(item)));
            }
            default -> into.put(name, value.toString());
        }
    }

    /** Prints {@code report}, indented, and flushes. */
    public static void print(JsonNode report, PrintWriter out) {
        try {
            out.println(Printer.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(report));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a report that cannot be written as JSON: " + e.getMessage(), e);
        }
        out.flush();
    }

    /** Checks a --format value: table or json. */
    public static boolean json(String format) {
        return switch (format) {
            case "table" -> false;
            case "json" -> true;
            default -> throw new IllegalArgumentException("--format must be table or json, was '" + format + "'");
        };
    }
}
