package com.example.fairway;

import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Takes turns between ClusterQueues: each pass offers every queue its oldest waiting job, the queue whose
 * oldest job has waited longest going first; passes repeat until no job is left to try. Within a queue jobs go
 * in submission order; a job that does not fit keeps the core's reason (quota, capacity, topology) and the next
 * one is tried.
 */
public final class QueueRoundRobinPolicy implements SchedulingPolicy {
    /** The name it is configured by. */
    public static final String NAME = "queue-round-robin";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void plan(PolicyContext ctx) {
        List<JobStatus> pending = new ArrayList<>(ctx.pending());
        pending.sort(Comparator.comparingLong(JobStatus::sequence));
        // queues in the order of their oldest waiting job (pending is in submission order)
        Map<String, Deque<JobStatus>> byQueue = new LinkedHashMap<>();
        for (JobStatus j : pending) {
            byQueue.computeIfAbsent(ctx.clusterQueueOf(j), q -> new ArrayDeque<>()).add(j);
        }
        boolean tried = true;
        while (tried) {
            tried = false;
            for (Deque<JobStatus> queue : byQueue.values()) {
                JobStatus j = queue.poll();
                if (j != null) {
                    ctx.tryAdmit(j); // left waiting, it keeps the core's reason
                    tried = true;
                }
            }
        }
    }
}
