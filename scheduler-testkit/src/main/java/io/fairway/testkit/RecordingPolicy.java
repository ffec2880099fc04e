package io.fairway.testkit;

import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.CapacityView;
import io.fairway.api.spi.PlacementSearch;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.QuotaView;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Wraps a policy and records every placement the policy chose itself ({@code tryAdmit(job, placement)}) that the
 * core refused: a policy that hands the core its own placement vouches for it, so a refusal means the policy tried
 * to double-book a GPU, overcommit a node, exceed a quota or split a gang.
 */
public final class RecordingPolicy implements SchedulingPolicy {
    private final SchedulingPolicy delegate;
    private final List<String> refusedPlacements = new ArrayList<>();

    /** @param delegate the policy under test */
    public RecordingPolicy(SchedulingPolicy delegate) {
        this.delegate = delegate;
    }

    /** @return the refused self-chosen placements so far, each as "job: reason" */
    public List<String> refusedPlacements() {
        return List.copyOf(refusedPlacements);
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public void plan(PolicyContext ctx) {
        delegate.plan(new Recorder(ctx));
    }

    private final class Recorder implements PolicyContext {
        private final PolicyContext ctx;

        Recorder(PolicyContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public long now() {
            return ctx.now();
        }

        @Override
        public RandomGenerator random() {
            return ctx.random();
        }

        @Override
        public List<ClusterQueue> clusterQueues() {
            return ctx.clusterQueues();
        }

        @Override
        public List<JobStatus> pending() {
            return ctx.pending();
        }

        @Override
        public List<JobStatus> pending(String clusterQueue) {
            return ctx.pending(clusterQueue);
        }

        @Override
        public String clusterQueueOf(JobStatus job) {
            return ctx.clusterQueueOf(job);
        }

        @Override
        public List<JobStatus> holding() {
            return ctx.holding();
        }

        @Override
        public Attempt tryAdmit(JobStatus job) {
            return ctx.tryAdmit(job);
        }

        @Override
        public Attempt tryAdmit(JobStatus job, Map<String, Integer> counts) {
            return ctx.tryAdmit(job, counts);
        }

        @Override
        public Attempt tryAdmit(JobStatus job, Placement placement) {
            Attempt a = ctx.tryAdmit(job, placement);
            if (!a.admitted()) {
                refusedPlacements.add(job.id() + ": " + a.reason());
            }
            return a;
        }

        @Override
        public Attempt tryAdmitPreempting(JobStatus job) {
            return ctx.tryAdmitPreempting(job);
        }

        @Override
        public boolean preempt(JobStatus job, String reason) {
            return ctx.preempt(job, reason);
        }

        @Override
        public Attempt resize(JobStatus job, String podSet, int targetCount) {
            return ctx.resize(job, podSet, targetCount);
        }

        @Override
        public boolean setLease(JobStatus job, long expiresAtMillis) {
            return ctx.setLease(job, expiresAtMillis);
        }

        @Override
        public void leaveWaiting(JobStatus job, PendingReason reason) {
            ctx.leaveWaiting(job, reason);
        }

        @Override
        public QuotaView quota() {
            return ctx.quota();
        }

        @Override
        public PlacementSearch placement() {
            return ctx.placement();
        }

        @Override
        public CapacityView capacity() {
            return ctx.capacity();
        }
    }
}
