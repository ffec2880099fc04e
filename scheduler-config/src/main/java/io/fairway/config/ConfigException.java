package io.fairway.config;

/**
 * A configuration that cannot be used: the message starts with {@code file:line:column:} when the place is known,
 * then the path of the field ({@code clusterQueues[0].cohort}) when known, and names the field and the value.
 *
 * <pre>
 * queues.yaml:12:7: clusterQueues[0].resourceGroups[0]: flavor default: no quota for covered resource memory
 * </pre>
 */
public class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final int line;
    private final int column;
    private final String path;
    private final String detail;

    /**
     * @param file the file (or resource) name
     * @param line the 1-based line, or 0 when unknown
     * @param column the 1-based column, or 0 when unknown
     * @param message what is wrong
     * @param cause the underlying error, or null
     */
    public ConfigException(String file, int line, int column, String message, Throwable cause) {
        this(file, line, column, "", message, cause);
    }

    /**
     * @param file the file (or resource) name
     * @param line the 1-based line, or 0 when unknown
     * @param column the 1-based column, or 0 when unknown
     * @param path the path of the field in the file ({@code clusterQueues[0].cohort}), or empty when unknown
     * @param detail what is wrong
     * @param cause the underlying error, or null
     */
    public ConfigException(String file, int line, int column, String path, String detail, Throwable cause) {
        super(file + (line > 0 ? ":" + line + (column > 0 ? ":" + column : "") : "") + ": " + (path.isEmpty() ? "" : path + ": ") + detail,
                cause);
        this.file = file;
        this.line = line;
        this.column = column;
        this.path = path;
        this.detail = detail;
    }

    /**
     * A copy of another, for a subclass that names its own module.
     *
     * @param other the error to copy
     */
    protected ConfigException(ConfigException other) {
        this(other.file, other.line, other.column, other.path, other.detail, other.getCause());
    }

    /** @return the file (or resource) name */
    public String file() {
        return file;
    }

    /** @return the 1-based line, 0 when unknown */
    public int line() {
        return line;
    }

    /** @return the 1-based column, 0 when unknown */
    public int column() {
        return column;
    }

    /** @return the path of the field in the file ({@code clusterQueues[0].cohort}), empty when unknown */
    public String path() {
        return path;
    }

    /** @return what is wrong, without the place */
    public String detail() {
        return detail;
    }
}
