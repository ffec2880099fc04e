package io.fairway.sim.trace;

import io.fairway.sim.TextFiles;

/**
 * A trace file that cannot be read: the message starts with {@code file:line:} and names the column and value.
 *
 * <pre>
 * philly.csv:17: num_gpus "two" is not a whole number
 * </pre>
 */
public class TraceFormatException extends RuntimeException implements TextFiles.Located {
    private static final long serialVersionUID = 1L;
    private final TextFiles.Place place;

    /**
     * @param file the file (or resource) name
     * @param line the 1-based line number, or 0 when the problem is not on one line
     * @param message what is wrong
     */
    public TraceFormatException(String file, int line, String message) {
        this(file, line, 0, message);
    }

    /**
     * @param file the file (or resource) name
     * @param line the 1-based line number
     * @param column the 1-based column (CSV field) number, or 0 when unknown
     * @param message what is wrong
     */
    public TraceFormatException(String file, int line, int column, String message) {
        this(new TextFiles.Place(file, line, column), message, null);
    }

    /**
     * @param file the file
     * @param line the line
     * @param message what is wrong
     * @param cause the underlying error
     */
    public TraceFormatException(String file, int line, String message, Throwable cause) {
        this(new TextFiles.Place(file, line, 0), message, cause);
    }

    private TraceFormatException(TextFiles.Place place, String message, Throwable cause) {
        super(place + ": " + message, cause);
        this.place = place;
    }

    @Override
    public TextFiles.Place place() {
        return place;
    }
}
