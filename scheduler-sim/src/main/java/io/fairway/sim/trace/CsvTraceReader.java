package io.fairway.sim.trace;

import io.fairway.api.InvalidSpecException;
import io.fairway.sim.SimJob;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The common frame of the CSV readers: a header line naming the columns, one job per line, blank lines and
 * lines starting with {@code #} ignored; every error names the file and the line.
 */
abstract class CsvTraceReader implements TraceReader {
    /** @return the columns every file of this format must have */
    abstract List<String> requiredColumns();

    /**
     * Reads one job.
     *
     * @param row the line
     * @return the job, with its submission time in the trace's own clock (rebased later if {@link #rebase()})
     */
    abstract SimJob job(CsvRow row);

    /** @return the trace column an engine field ({@code job.id}, {@code job[x].namespace}) was read from, or null */
    private static String columnOf(String field) {
        if (field == null) {
            return null;
        }
        String last = field.substring(field.lastIndexOf('.') + 1);
        return switch (last) {
            case "id" -> "id";
            case "namespace" -> "namespace";
            case "queue" -> "queue";
            case "jobSet" -> "job_set";
            case "owner" -> "owner";
            default -> null;
        };
    }

    /** @return true when submission times are shifted so the earliest job arrives at 0 */
    boolean rebase() {
        return false;
    }

    @Override
    public Trace read(String source, BufferedReader in) throws IOException {
        String header = null;
        int lineNo = 0;
        String line;
        Map<String, Integer> columns = new HashMap<>();
        List<SimJob> jobs = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        while ((line = in.readLine()) != null) {
            lineNo++;
            if (lineNo == 1 && line.startsWith("\uFEFF")) {
                line = line.substring(1);
            }
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                continue;
            }
            if (Csv.unterminatedQuote(line)) {
                throw new TraceFormatException(source, lineNo, "has an unterminated quote: " + line);
            }
            List<String> cells = Csv.split(line);
            if (header == null) {
                header = line;
                for (int i = 0; i < cells.size(); i++) {
                    if (columns.put(cells.get(i), i) != null) {
                        throw new TraceFormatException(source, lineNo, "column " + cells.get(i) + " appears twice in the header");
                    }
                }
                List<String> missing = new ArrayList<>();
                for (String c : requiredColumns()) {
                    if (!columns.containsKey(c)) {
                        missing.add(c);
                    }
                }
                if (!missing.isEmpty()) {
                    throw new TraceFormatException(source, lineNo, "header lacks column(s) " + missing + " of the " + format().id()
                            + " format; expected at least " + requiredColumns() + ", found " + cells);
                }
                continue;
            }
            if (cells.size() > columns.size()) {
                throw new TraceFormatException(source, lineNo, "has " + cells.size() + " fields, the header " + columns.size());
            }
            CsvRow row = new CsvRow(source, lineNo, columns, cells);
            SimJob job;
            try {
                job = job(row);
            } catch (InvalidSpecException e) {
                String column = columnOf(e.field());
                throw column != null && row.has(column) ? row.errorAt(column, column + ": " + e.getMessage()) : row.error(e.getMessage(), e);
            }
            if (!ids.add(job.id())) {
                throw row.error("job id " + job.id() + " appears twice");
            }
            jobs.add(job);
        }
        if (header == null) {
            throw new TraceFormatException(source, 0, "is empty; expected a header with " + requiredColumns());
        }
        if (rebase() && !jobs.isEmpty()) {
            long first = Long.MAX_VALUE;
            for (SimJob j : jobs) {
                first = Math.min(first, j.submitMillis());
            }
            List<SimJob> shifted = new ArrayList<>(jobs.size());
            for (SimJob j : jobs) {
                shifted.add(new SimJob(j.spec().withSubmitTime(j.submitMillis() - first), j.durationSeconds()));
            }
            jobs = shifted;
        }
        jobs.sort(Comparator.comparingLong(SimJob::submitMillis)); // stable: ties keep file order
        return new Trace(source, jobs);
    }

    /** The largest submit time or duration read, in seconds: the rule shared with scenario files ({@link SimulatedTime}). */
    static final double MAX_SECONDS = SimulatedTime.MAX_SECONDS;

    static long millis(CsvRow row, String column, double seconds) {
        if (seconds < 0) {
            throw row.error(column + " must be >= 0, was " + seconds);
        }
        checkClock(row, column, seconds);
        return Math.round(seconds * 1000);
    }

    static double positive(CsvRow row, String column) {
        double d = row.number(column);
        if (d <= 0) {
            throw row.error(column + " must be > 0, was " + row.text(column));
        }
        checkClock(row, column, d);
        return d;
    }

    private static void checkClock(CsvRow row, String column, double seconds) {
        if (!SimulatedTime.representable(seconds)) {
            throw row.errorAt(column, SimulatedTime.beyondTheClock(column, row.text(column)));
        }
    }
}
