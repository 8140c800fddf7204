package io.carafe.pregel;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A fixed-size record of primitive fields, packed in the order they are added: what a
 * vertex value or a message looks like. Programs read and write records through a
 * {@link RecordView} flyweight at the offsets the layout gives, so no object exists per vertex
 * or message.
 *
 * <pre>{@code
 * static final RecordLayout VALUE = RecordLayout.builder().addLong("label").addDouble("score").build();
 * static final long LABEL = VALUE.offset("label"), SCORE = VALUE.offset("score");
 * }</pre>
 */
public final class RecordLayout {
    /** The widest record the engine takes: a message or value is copied per send, so it is meant to be small. */
    public static final int MAX_BYTES = 256;

    public static final RecordLayout DOUBLE = builder().addDouble("value").build();
    public static final RecordLayout LONG = builder().addLong("value").build();

    /** A field's primitive type and size in bytes. */
    public enum Type {
        INT(4), LONG(8), DOUBLE(8);

        private final int bytes;

        Type(int bytes) {
            this.bytes = bytes;
        }

        public int bytes() {
            return bytes;
        }
    }

    /** A field: {@code length} consecutive elements of {@code type} (1 for a scalar) from {@code offset}. */
    public record Field(String name, Type type, int length, long offset) {
        public long bytes() {
            return (long) type.bytes() * length;
        }
    }

    private final List<Field> fields;
    private final Map<String, Field> byName;
    private final int bytes;

    private RecordLayout(List<Field> fields) {
        this.fields = List.copyOf(fields);
        this.byName = new LinkedHashMap<>();
        long total = 0;
        for (Field f : fields) {
            byName.put(f.name(), f);
            total += f.bytes();
        }
        this.bytes = (int) total;
    }

    public static Builder builder() {
        return new Builder();
    }

    public int bytes() {
        return bytes;
    }

    public List<Field> fields() {
        return fields;
    }

    /** The offset of field {@code name}; an error naming the fields there are if it is not one of them. */
    public long offset(String name) {
        return field(name).offset();
    }

    public Field field(String name) {
        Field f = byName.get(name);
        if (f == null) {
            throw new IllegalArgumentException("no field '" + name + "' in record " + this);
        }
        return f;
    }

    /** True if this layout is one field of {@code type} (what the built-in combiners work on). */
    public boolean isSingle(Type type) {
        return fields.size() == 1 && fields.getFirst().type() == type && fields.getFirst().length() == 1;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("{");
        for (Field f : fields) {
            s.append(s.length() > 1 ? ", " : "").append(f.type().name().toLowerCase(Locale.ROOT));
            if (f.length() > 1) {
                s.append('[').append(f.length()).append(']');
            }
            s.append(' ').append(f.name());
        }
        return s.append("}, ").append(bytes).append(" bytes").toString();
    }

    /** Adds fields in order; names must be unique. */
    public static final class Builder {
        private final List<Field> fields = new ArrayList<>();
        private long offset;

        private Builder() {
        }

        public Builder addInt(String name) {
            return add(name, Type.INT, 1);
        }

        public Builder addLong(String name) {
            return add(name, Type.LONG, 1);
        }

        public Builder addDouble(String name) {
            return add(name, Type.DOUBLE, 1);
        }

        /** A fixed-length array of {@code length} elements; element i is at {@code offset(name) + i * type.bytes()}. */
        public Builder addArray(String name, Type type, int length) {
            if (length < 1) {
                throw new IllegalArgumentException("array field '" + name + "' needs a length >= 1, was " + length);
            }
            return add(name, type, length);
        }

        private Builder add(String name, Type type, int length) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a field needs a name");
            }
            if (fields.stream().anyMatch(f -> f.name().equals(name))) {
                throw new IllegalArgumentException("field '" + name + "' is already in this record");
            }
            fields.add(new Field(name, type, length, offset));
            offset += (long) type.bytes() * length;
            if (offset > MAX_BYTES) {
                throw new IllegalArgumentException("a record holds at most " + MAX_BYTES + " bytes; with '" + name + "' it would hold " + offset);
            }
            return this;
        }

        public RecordLayout build() {
            if (fields.isEmpty()) {
                throw new IllegalArgumentException("a record needs at least one field");
            }
            return new RecordLayout(fields);
        }
    }
}
