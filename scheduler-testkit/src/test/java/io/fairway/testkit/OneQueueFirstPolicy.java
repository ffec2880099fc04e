package io.fairway.testkit;

import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A deliberately unfair policy: the jobs of one ClusterQueue always go first, then the others, each in submission
 * order. It breaks no invariant, but while that queue keeps receiving work the others wait.
 */
final class OneQueueFirstPolicy implements SchedulingPolicy {
    private final String favourite;

    OneQueueFirstPolicy(String favourite) {
        this.favourite = favourite;
    }

    @Override
    public String name() {
        return "prefer-" + favourite;
    }

    @Override
    public void plan(PolicyContext ctx) {
        List<JobStatus> pending = new ArrayList<>(ctx.pending());
        pending.sort(Comparator.comparing((JobStatus j) -> !ctx.clusterQueueOf(j).equals(favourite)).thenComparingLong(JobStatus::sequence));
        for (JobStatus j : pending) {
            ctx.tryAdmit(j);
        }
    }
}
