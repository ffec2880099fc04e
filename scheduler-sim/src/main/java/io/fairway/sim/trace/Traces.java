package io.fairway.sim.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Reads traces: from a file in a given format or the one its header reveals, or the bundled Philly sample.
 *
 * <pre>{@code
 * Trace sample = Traces.bundledSample();                 // ~1,500 Philly jobs, ≤ 32 GPUs each
 * Trace t = Traces.read(Path.of("jobs.csv"), null);       // format detected from the header
 * }</pre>
 */
public final class Traces {
    /** The class-path resource holding the bundled Philly sample. */
    public static final String SAMPLE_RESOURCE = "fairway/defaults/philly-sample.csv";

    private Traces() {
    }

    /**
     * @param file a trace file
     * @param format its format, or null to detect it from the header
     * @return the jobs
     * @throws TraceFormatException when the format cannot be detected or a line is malformed
     */
    public static Trace read(Path file, TraceFormat format) {
        if (format == null) {
            String header;
            try (BufferedReader in = io.fairway.sim.TextFiles.openLines(file, io.fairway.sim.TextFiles.MAX_TRACE_LINE)) {
                header = in.readLine();
                while (header != null && (header.isBlank() || header.stripLeading().startsWith("#"))) {
                    header = in.readLine();
                }
            } catch (io.fairway.sim.TextFiles.UnreadableFileException e) {
                throw new UncheckedIOException("cannot read trace " + e.getMessage(), e.getCause());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read trace " + io.fairway.sim.TextFiles.unreadable(file, e).getMessage(), e);
            }
            format = TraceFormat.detect(header);
            if (format == null) {
                throw new TraceFormatException(file.toString(), 1, "cannot tell the trace format from the header \"" + header
                        + "\"; give --trace-format philly|tiresias|native");
            }
        }
        return format.reader().read(file);
    }

    /** @return the bundled sample of the Philly trace (see {@code TRACE-ATTRIBUTION.md}) */
    public static Trace bundledSample() {
        return readResource(SAMPLE_RESOURCE, TraceFormat.PHILLY);
    }

    /**
     * @param resource a class-path resource
     * @param format its format
     * @return the jobs
     */
    public static Trace readResource(String resource, TraceFormat format) {
        InputStream s = Traces.class.getClassLoader().getResourceAsStream(resource);
        if (s == null) {
            throw new UncheckedIOException(new IOException("resource " + resource + " is missing from the class path"));
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(s, StandardCharsets.UTF_8))) {
            return format.reader().read("classpath:" + resource, in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource + ": " + e.getMessage(), e);
        }
    }
}
