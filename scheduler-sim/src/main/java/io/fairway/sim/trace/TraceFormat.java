package io.fairway.sim.trace;

import io.fairway.api.InvalidSpecException;
import java.util.Locale;

/**
 * The trace formats the simulator reads (see {@code docs/guides/traces.md}).
 */
public enum TraceFormat {
    /** Microsoft Philly, as published with the Pollux artifact: {@code timestamp,duration,num_gpus,gpu_time,cluster}. */
    PHILLY("philly"),
    /** Tiresias' simulator: {@code job_id,num_gpu,submit_time,iterations,model_name,duration,interval}. */
    TIRESIAS("tiresias"),
    /** Fairway's own CSV: {@code id,submit_seconds,duration_seconds,members,gpus_per_member,...,queue,...}. */
    NATIVE("native");

    private final String id;

    TraceFormat(String id) {
        this.id = id;
    }

    /** @return the name used on the command line */
    public String id() {
        return id;
    }

    /** @return a reader of this format */
    public TraceReader reader() {
        switch (this) {
            case PHILLY: return new PhillyTraceReader();
            case TIRESIAS: return new TiresiasTraceReader();
            default: return new NativeTraceReader();
        }
    }

    /**
     * @param name {@code philly}, {@code tiresias} or {@code native} (case-insensitive)
     * @return the format
     * @throws InvalidSpecException naming the known formats
     */
    public static TraceFormat of(String name) {
        for (TraceFormat f : values()) {
            if (f.id.equals(name == null ? "" : name.toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        throw new InvalidSpecException("traceFormat", name, "unknown trace format \"" + name + "\"; known: philly, tiresias, native");
    }

    /**
     * Guesses a file's format from its header line.
     *
     * @param header the first line
     * @return the format whose required columns the header has, or null
     */
    public static TraceFormat detect(String header) {
        java.util.List<String> cols = Csv.split(header == null ? "" : header.replace("\uFEFF", ""));
        for (TraceFormat f : values()) {
            if (cols.containsAll(((CsvTraceReader) f.reader()).requiredColumns())) {
                return f;
            }
        }
        return null;
    }
}
