package io.fairway.testkit;

import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A deliberately unfair policy: shortest announced job first (jobs without an estimate last), every job that fits
 * admitted, nothing reserved. It breaks no invariant, but under a steady stream of short jobs a long one waits for
 * as long as short ones keep coming.
 */
final class ShortestJobFirstPolicy implements SchedulingPolicy {
    @Override
    public String name() {
        return "shortest-job-first";
    }

    @Override
    public void plan(PolicyContext ctx) {
        List<JobStatus> pending = new ArrayList<>(ctx.pending());
        pending.sort(Comparator.comparingDouble((JobStatus j) -> j.spec().estimatedSeconds() > 0 ? j.spec().estimatedSeconds() : Double.MAX_VALUE)
                .thenComparingLong(JobStatus::sequence));
        for (JobStatus j : pending) {
            ctx.tryAdmit(j);
        }
    }
}
