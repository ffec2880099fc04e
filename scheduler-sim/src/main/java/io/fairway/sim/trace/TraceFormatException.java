package io.fairway.sim.trace;

import io.fairway.sim.TextFiles;

/**
 * A trace file that cannot be read: the message starts with {@code file:line:} and names the column and value.
 *
 * <pre>
 * philly.csv:17: num_gpus "two" is not a whole number
 * </pre>
 */
public class TraceFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final int line;

    /**
     * @param file the file (or resource) name
     * @param line the 1-based line number, or 0 when the problem is not on one line
     * @param message what is wrong
     */
    public TraceFormatException(String file, int line, String message) {
        super(file + (line > 0 ? ":" + line : "") + ": " + message);
        this.file = file;
        this.line = line;
    }

    /**
     * @param file the file (or resource) name
     * @param line the 1-based line number
     * @param column the 1-based column (CSV field) number, or 0 when unknown
     * @param message what is wrong
     */
    public TraceFormatException(String file, int line, int column, String message) {
        super(TextFiles.at(file, line, column) + ": " + message);
        this.file = file;
        this.line = line;
    }

    /**
     * @param file the file
     * @param line the line
     * @param message what is wrong
     * @param cause the underlying error
     */
    public TraceFormatException(String file, int line, String message, Throwable cause) {
        super(TextFiles.at(file, line, 0) + ": " + message, cause);
        this.file = file;
        this.line = line;
    }

    /** @return the file (or resource) name */
    public String file() {
        return file;
    }

    /** @return the 1-based line number, 0 when not on one line */
    public int line() {
        return line;
    }
}
