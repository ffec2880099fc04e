package example;

import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * An example third-party policy: each round, admit pending jobs smallest first (fewest GPUs, then earliest
 * submitted, then id), asking the core for a placement. It depends on the SPI only.
 */
public final class SmallestFirstPolicy implements SchedulingPolicy {

    @Override
    public String name() {
        return "smallest-first";
    }

    @Override
    public void plan(PolicyContext ctx) {
        List<JobStatus> pending = new ArrayList<>(ctx.pending());
        pending.sort(Comparator.comparingLong((JobStatus j) -> j.spec().totalGpus())
                .thenComparingLong(JobStatus::sequence)
                .thenComparing(JobStatus::id));
        for (JobStatus j : pending) {
            ctx.tryAdmit(j); // a job left waiting keeps the core's reason (quota, capacity, topology…)
        }
    }
}
