package io.fairway.sim.trace;

import java.util.List;
import java.util.Map;

/** One data line of a CSV trace with typed getters whose errors name the file, the line and the column. */
final class CsvRow {
    private final String file;
    private final int line;
    private final Map<String, Integer> columns;
    private final List<String> cells;

    CsvRow(String file, int line, Map<String, Integer> columns, List<String> cells) {
        this.file = file;
        this.line = line;
        this.columns = columns;
        this.cells = cells;
    }

    int line() {
        return line;
    }

    TraceFormatException error(String message) {
        return new TraceFormatException(file, line, message);
    }

    /** @return an error at a column: {@code file:line:column: message}, the column counted from 1 as in the header */
    TraceFormatException errorAt(String column, String message) {
        Integer i = columns.get(column);
        return new TraceFormatException(file, line, i == null ? 0 : i + 1, message);
    }

    TraceFormatException error(String message, Throwable cause) {
        return new TraceFormatException(file, line, message, cause);
    }

    boolean has(String column) {
        Integer i = columns.get(column);
        return i != null && i < cells.size() && !cells.get(i).isEmpty();
    }

    String text(String column) {
        if (!has(column)) {
            throw error(column + " is missing");
        }
        return cells.get(columns.get(column));
    }

    String text(String column, String fallback) {
        return has(column) ? cells.get(columns.get(column)) : fallback;
    }

    double number(String column) {
        String t = text(column);
        try {
            double d = Double.parseDouble(t);
            if (!Double.isFinite(d)) {
                throw error(column + " \"" + t + "\" is not a finite number");
            }
            return d;
        } catch (NumberFormatException e) {
            throw error(column + " \"" + t + "\" is not a number");
        }
    }

    double number(String column, double fallback) {
        return has(column) ? number(column) : fallback;
    }

    long whole(String column) {
        String t = text(column);
        try {
            return Long.parseLong(t);
        } catch (NumberFormatException e) {
            // "8.0" is a whole number too
            try {
                double d = Double.parseDouble(t);
                if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                    return (long) d;
                }
            } catch (NumberFormatException ignored) {
                // reported below
            }
            throw error(column + " \"" + t + "\" is not a whole number");
        }
    }

    long whole(String column, long fallback) {
        return has(column) ? whole(column) : fallback;
    }
}
