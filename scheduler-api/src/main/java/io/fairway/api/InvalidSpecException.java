package io.fairway.api;

/**
 * Thrown when a value handed to Fairway is invalid. The message always names the field and the value,
 * for example {@code pod set "workers": minCount 5 > count 4}.
 *
 * <p>Whatever call throws it leaves the scheduler's state unchanged.
 */
public class InvalidSpecException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String field;
    private final transient Object value;

    /**
     * @param field the field at fault, as a dotted path ({@code podSets[workers].minCount})
     * @param value the offending value
     * @param message what is wrong, in words a user understands
     */
    public InvalidSpecException(String field, Object value, String message) {
        super(message);
        this.field = field;
        this.value = value;
    }

    /** @return the field at fault */
    public String field() {
        return field;
    }

    /** @return the offending value (may be {@code null}) */
    public Object value() {
        return value;
    }

    /**
     * Checks a condition and throws with a formatted message if it does not hold.
     *
     * @param condition what must hold
     * @param field the field named in the error
     * @param value the value named in the error
     * @param message the message (may use {@link String#format} arguments)
     * @param args format arguments
     */
    public static void check(boolean condition, String field, Object value, String message, Object... args) {
        if (!condition) {
            throw new InvalidSpecException(field, value, String.format(message, args));
        }
    }

    /**
     * Requires a non-blank name-like string.
     *
     * @param field the field named in the error
     * @param value the value checked
     * @return the value
     */
    public static String requireName(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidSpecException(field, value, field + " must not be empty, was " + (value == null ? "null" : "\"" + value + "\""));
        }
        return value;
    }
}
