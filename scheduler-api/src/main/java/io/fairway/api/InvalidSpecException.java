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
     * The longest name accepted anywhere: room for a Kubernetes {@code namespace/name} (63 + 1 + 253 characters)
     * and then some; longer text is refused rather than copied into every event, log line and snapshot.
     */
    public static final int MAX_NAME_LENGTH = 512;

    /** The longest DNS-1123 label (a Kubernetes namespace). */
    public static final int MAX_DNS_LABEL_LENGTH = 63;

    /** The longest DNS-1123 subdomain (most Kubernetes object names). */
    public static final int MAX_DNS_SUBDOMAIN_LENGTH = 253;

    private static final java.util.regex.Pattern DNS_LABEL = java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final java.util.regex.Pattern DNS_SUBDOMAIN = java.util.regex.Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    /**
     * Requires an argument that is not null.
     *
     * @param field the argument named in the error
     * @param value the value checked
     * @param <T> its type
     * @return the value
     * @throws InvalidSpecException "{@code field must not be null}"
     */
    public static <T> T requireNonNull(String field, T value) {
        if (value == null) {
            throw new InvalidSpecException(field, null, field + " must not be null");
        }
        return value;
    }

    /**
     * Requires a name: not null or blank, at most {@link #MAX_NAME_LENGTH} characters, and free of control
     * characters (NUL, newline, …), invisible format characters (right-to-left overrides, zero-width spaces),
     * line separators and unpaired surrogates — characters that would let one name pass for another in logs,
     * events and reports.
     *
     * @param field the field named in the error
     * @param value the value checked
     * @return the value
     */
    public static String requireName(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidSpecException(field, value, field + " must not be empty, was " + (value == null ? "null" : "\"" + value + "\""));
        }
        if (value.length() > MAX_NAME_LENGTH) {
            throw new InvalidSpecException(field, value, field + " is " + value.length() + " characters long (at most " + MAX_NAME_LENGTH + "): "
                    + quote(value));
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!printable(value, i)) {
                throw new InvalidSpecException(field, value, String.format("%s must not contain control or invisible characters: U+%04X at index %d of %s",
                        field, (int) c, i, quote(value)));
            }
        }
        return value;
    }

    /**
     * Requires a DNS-1123 label, as Kubernetes does for namespaces: lower-case letters, digits and '-', starting
     * and ending with a letter or digit, at most {@value #MAX_DNS_LABEL_LENGTH} characters.
     *
     * @param field the field named in the error
     * @param value the value checked
     * @return the value
     */
    public static String requireDnsLabel(String field, String value) {
        requireName(field, value);
        if (value.length() > MAX_DNS_LABEL_LENGTH || !DNS_LABEL.matcher(value).matches()) {
            throw new InvalidSpecException(field, value, field + " must be a DNS-1123 label (lower-case letters, digits and '-', starting and ending "
                    + "with a letter or digit, at most " + MAX_DNS_LABEL_LENGTH + " characters), was " + quote(value));
        }
        return value;
    }

    /**
     * Requires a DNS-1123 subdomain, as Kubernetes does for most object names: DNS-1123 labels joined by '.', at
     * most {@value #MAX_DNS_SUBDOMAIN_LENGTH} characters.
     *
     * @param field the field named in the error
     * @param value the value checked
     * @return the value
     */
    public static String requireDnsSubdomain(String field, String value) {
        requireName(field, value);
        if (value.length() > MAX_DNS_SUBDOMAIN_LENGTH || !DNS_SUBDOMAIN.matcher(value).matches()) {
            throw new InvalidSpecException(field, value, field + " must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', starting "
                    + "and ending with a letter or digit, at most " + MAX_DNS_SUBDOMAIN_LENGTH + " characters), was " + quote(value));
        }
        return value;
    }

    /** @return false at a control, format or separator character or an unpaired surrogate */
    private static boolean printable(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
        }
        int t = Character.getType(c);
        return t != Character.CONTROL && t != Character.FORMAT && t != Character.LINE_SEPARATOR && t != Character.PARAGRAPH_SEPARATOR
                && t != Character.UNASSIGNED && t != Character.PRIVATE_USE;
    }

    /**
     * @param value any text
     * @return it in double quotes, with control and invisible characters escaped as {@code \}{@code uXXXX} and
     *     cut to 64 characters ({@code …} and the full length when longer), safe to print
     */
    public static String quote(String value) {
        if (value == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("\"");
        int n = Math.min(value.length(), 64);
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (printable(value, i) && c != '"' && c != '\\') {
                sb.append(c);
            } else {
                sb.append(String.format("\\u%04X", (int) c));
            }
        }
        sb.append('"');
        if (value.length() > n) {
            sb.append("… (").append(value.length()).append(" characters)");
        }
        return sb.toString();
    }
}
