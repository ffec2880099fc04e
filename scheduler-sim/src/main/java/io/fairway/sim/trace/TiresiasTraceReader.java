package io.fairway.sim.trace;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.model.Resources;
import io.fairway.sim.SimJob;
import java.util.List;

/**
 * Reads the Tiresias simulator's CSV: {@code job_id,num_gpu,submit_time,iterations,model_name,duration,interval}.
 * {@code submit_time} and {@code duration} are seconds; the model name gives the job's
 * {@link PlacementSensitivity#forModel placement sensitivity}; every job runs in LocalQueue {@code default/default}
 * and asks only for GPUs (shaped by {@link GangShape}). {@code iterations} and {@code interval} are not used.
 */
public final class TiresiasTraceReader extends CsvTraceReader {
    /** The LocalQueue (in namespace {@code default}) Tiresias jobs are submitted to. */
    public static final String QUEUE = "default";

    /** Creates the reader. */
    public TiresiasTraceReader() {
    }

    @Override
    public TraceFormat format() {
        return TraceFormat.TIRESIAS;
    }

    @Override
    List<String> requiredColumns() {
        return List.of("job_id", "num_gpu", "submit_time", "model_name", "duration");
    }

    @Override
    SimJob job(CsvRow row) {
        long gpus = row.whole("num_gpu");
        if (gpus < 1) {
            throw row.error("num_gpu must be >= 1, was " + gpus);
        }
        double duration = positive(row, "duration");
        GangShape shape = GangShape.forGpus(gpus);
        String model = row.text("model_name");
        JobSpec spec = JobSpec.builder(row.text("job_id"))
                .namespace(JobSpec.DEFAULT_NAMESPACE)
                .queue(QUEUE)
                .submitTimeMillis(millis(row, "submit_time", row.number("submit_time")))
                .members(shape.members(), Resources.builder().gpus(shape.gpusPerMember()).build())
                .estimatedSeconds(duration)
                .sensitivity(PlacementSensitivity.forModel(model))
                .build();
        return new SimJob(spec, duration);
    }
}
