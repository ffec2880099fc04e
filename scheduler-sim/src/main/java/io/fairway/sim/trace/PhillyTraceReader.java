package io.fairway.sim.trace;

import io.fairway.api.job.JobSpec;
import io.fairway.api.model.Resources;
import io.fairway.sim.SimJob;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Reads the Philly trace as the Pollux artifact publishes it: {@code timestamp,duration,num_gpus,gpu_time,cluster}.
 * Rows may be in any order; submission times are relative to the earliest row. Each job is named
 * {@code philly-<line>}, runs in the LocalQueue named by its {@code cluster} column (namespace {@code default}),
 * asks only for GPUs (shaped by {@link GangShape}) and is insensitive to placement (the trace has no model).
 */
public final class PhillyTraceReader extends CsvTraceReader {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss")
            .withResolverStyle(java.time.format.ResolverStyle.STRICT); // 2017-02-30 is refused, not read as 2017-02-28

    /** Creates the reader. */
    public PhillyTraceReader() {
    }

    @Override
    public TraceFormat format() {
        return TraceFormat.PHILLY;
    }

    @Override
    List<String> requiredColumns() {
        return List.of("timestamp", "duration", "num_gpus", "cluster");
    }

    @Override
    boolean rebase() {
        return true;
    }

    @Override
    SimJob job(CsvRow row) {
        String ts = row.text("timestamp");
        long submit;
        try {
            submit = LocalDateTime.parse(ts.replace('T', ' '), TIMESTAMP).toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw row.error("timestamp \"" + ts + "\" is not of the form 2017-10-09 07:01:55");
        }
        double duration = positive(row, "duration");
        long gpus = row.whole("num_gpus");
        if (gpus < 1) {
            throw row.error("num_gpus must be >= 1, was " + gpus);
        }
        GangShape shape = GangShape.forGpus(gpus);
        JobSpec spec = JobSpec.builder("philly-" + row.line())
                .namespace(JobSpec.DEFAULT_NAMESPACE)
                .queue(row.text("cluster"))
                .submitTimeMillis(submit)
                .members(shape.members(), Resources.builder().gpus(shape.gpusPerMember()).build())
                .estimatedSeconds(duration)
                .build();
        return new SimJob(spec, duration);
    }
}
