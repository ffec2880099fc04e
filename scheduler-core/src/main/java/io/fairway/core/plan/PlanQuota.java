package io.fairway.core.plan;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.spi.QuotaView;
import io.fairway.core.admission.QueueResolver;
import io.fairway.core.admission.Assignment;
import java.util.Map;
import java.util.Optional;

/** The policy's read-only view of quota, as the round's plan leaves it. */
record PlanQuota(TentativePlan plan, QueueResolver queues) implements QuotaView {
    @Override
    public Optional<PendingReason> check(JobStatus job, Map<String, Integer> counts) {
        String cqName = queues.resolve(job);
        if (cqName == null) {
            return Optional.of(queues.unresolvedReason(job));
        }
        Assignment.Result ar = Assignment.assign(plan.snapshot.clusterQueues().get(cqName), plan.snapshot.flavors(), plan.quota, job.spec(),
                counts);
        return Optional.ofNullable(ar.reason());
    }

    @Override
    public long usage(String clusterQueue, String resource) {
        return plan.quota.usedResource(clusterQueue, resource);
    }

    @Override
    public double dominantShare(String clusterQueue) {
        return plan.quota.dominantShare(clusterQueue, plan.snapshot.clusterQueues().get(clusterQueue));
    }

    @Override
    public double decayedUsage(String clusterQueue) {
        return plan.snapshot.decayedUsage().getOrDefault(clusterQueue, 0.0);
    }
}
