package io.fairway.sim.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Reads a job trace into a {@link Trace}. Errors are {@link TraceFormatException}s naming the file and line.
 *
 * <pre>{@code
 * Trace t = TraceFormat.PHILLY.reader().read(Path.of("philly.csv"));
 * }</pre>
 */
public interface TraceReader {
    /** @return the format this reader reads */
    TraceFormat format();

    /**
     * @param source the name used in errors (a file name)
     * @param in the text
     * @return the jobs
     * @throws IOException when reading fails
     * @throws TraceFormatException on a malformed line
     */
    Trace read(String source, BufferedReader in) throws IOException;

    /**
     * @param file a trace file
     * @return the jobs
     * @throws TraceFormatException on a malformed line
     * @throws UncheckedIOException when the file cannot be read, is not UTF-8 or has a line over
     *     {@link io.fairway.sim.TextFiles#MAX_TRACE_LINE} bytes (naming the file, and the line where there is one)
     */
    default Trace read(Path file) {
        try (BufferedReader in = io.fairway.sim.TextFiles.openLines(file, io.fairway.sim.TextFiles.MAX_TRACE_LINE)) {
            return read(file.toString(), in);
        } catch (io.fairway.sim.TextFiles.UnreadableFileException e) {
            throw new UncheckedIOException("cannot read trace " + e.getMessage(), e.getCause());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read trace " + io.fairway.sim.TextFiles.unreadable(file, e).getMessage(), e);
        }
    }
}
