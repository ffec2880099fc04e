package io.fairway.core.snapshot;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.Resources;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;

/**
 * A random history of the engine's pending index for property tests: one-GPU jobs arriving in two queues (one in
 * three submitted early, so they sort before jobs already waiting), leaving, coming back, and the jobs waiting and
 * gone kept beside the index's builder so that a test can compare the index with a recount.
 */
final class PendingHistory {
    final PendingIndex.Builder builder = new PendingIndex.Builder();
    /** The jobs waiting, by id. */
    final Map<String, JobStatus> pending = new LinkedHashMap<>();
    /** The jobs that left, by id: they may come back. */
    final Map<String, JobStatus> left = new LinkedHashMap<>();
    private final Random r;
    private long sequence;

    PendingHistory(Random r) {
        this.r = r;
    }

    /** A new one-GPU job arrives with {@code reason}, in queue q0 or q1, submitted early or at {@code 1_000 + op}. */
    void arrive(int op, PendingReason reason) {
        long submitted = r.nextInt(3) == 0 ? r.nextInt(50) : 1_000 + op;
        JobSpec spec = JobSpec.builder("job-" + sequence).queue("q" + r.nextInt(2)).submitTimeMillis(submitted)
                .members(1, Resources.builder().gpus(1).build()).build();
        JobStatus j = new JobStatus(spec, JobState.PENDING, reason, null, 0, 0, sequence++, 0, 0, 0);
        pending.put(j.id(), j);
        builder.add(j);
    }

    /** A waiting job, picked at random, leaves the index. */
    void leave() {
        JobStatus j = pickPending();
        pending.remove(j.id());
        left.put(j.id(), j);
        builder.remove(j);
    }

    /** A job that left, picked at random, comes back as {@code as} makes it (nothing happens when none left). */
    void comeBack(UnaryOperator<JobStatus> as) {
        if (left.isEmpty()) {
            return;
        }
        JobStatus j = PendingIndexProperties.pick(left, r);
        left.remove(j.id());
        JobStatus back = as.apply(j);
        pending.put(j.id(), back);
        builder.add(back);
    }

    /** @return a waiting job picked at random */
    JobStatus pickPending() {
        return PendingIndexProperties.pick(pending, r);
    }
}
