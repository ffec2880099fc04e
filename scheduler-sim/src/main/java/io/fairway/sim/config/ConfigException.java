package io.fairway.sim.config;

/**
 * A cluster, queues or scenario file that cannot be used: the message starts with {@code file:line:column:}
 * when the place is known, and names the field and the value.
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

    /**
     * @param file the file (or resource) name
     * @param line the 1-based line, or 0 when unknown
     * @param column the 1-based column, or 0 when unknown
     * @param message what is wrong
     * @param cause the underlying error, or null
     */
    public ConfigException(String file, int line, int column, String message, Throwable cause) {
        super(file + (line > 0 ? ":" + line + (column > 0 ? ":" + column : "") : "") + ": " + message, cause);
        this.file = file;
        this.line = line;
        this.column = column;
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
}
