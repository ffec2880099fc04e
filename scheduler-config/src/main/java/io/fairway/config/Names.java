package io.fairway.config;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.Quantities;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Small conversions shared by the config records (here and in the simulator's scenario files): Kueue's CamelCase enum values, quantities, required fields, lists without empty entries. */
public final class Names {
    private Names() {
    }

    /**
     * Reads a Kueue-style value ({@code StrictFIFO}, {@code LowerOrNewerEqualPriority}) as a Java enum constant
     * ({@code STRICT_FIFO}, {@code LOWER_OR_NEWER_EQUAL_PRIORITY}); case and separators are ignored.
     */
    public static <E extends Enum<E>> E enumValue(Class<E> type, String field, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String key = value.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
        List<String> known = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            if (e.name().replace("_", "").toLowerCase(Locale.ROOT).equals(key)) {
                return e;
            }
            known.add(kueueName(e));
        }
        throw new InvalidSpecException(field, value, field + ": unknown value \"" + value + "\"; known: " + String.join(", ", known));
    }

    /** STRICT_FIFO → StrictFIFO, LOWER_PRIORITY → LowerPriority. */
    public static String kueueName(Enum<?> e) {
        StringBuilder sb = new StringBuilder();
        for (String part : e.name().split("_")) {
            if (part.equals("FIFO")) {
                sb.append(part);
            } else {
                sb.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
            }
        }
        return sb.toString();
    }

    public static String require(String field, String value) {
        return InvalidSpecException.requireName(field, value);
    }

    public static long quantity(String resource, String field, String value) {
        InvalidSpecException.check(value != null && !value.isBlank(), field, value, "%s: a quantity is required", field);
        return Quantities.parse(resource, value);
    }

    public static <T> List<T> list(String field, List<T> l) {
        if (l == null) {
            return List.of();
        }
        for (int i = 0; i < l.size(); i++) {
            InvalidSpecException.check(l.get(i) != null, field + "[" + i + "]", null, "%s[%d] is empty", field, i);
        }
        return List.copyOf(l);
    }
}
