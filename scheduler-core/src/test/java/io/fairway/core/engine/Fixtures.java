package io.fairway.core.engine;

import io.fairway.api.decision.Decision;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Small clusters, jobs and recorders shared by the engine's unit tests. */
final class Fixtures {
    static final String FLAVOR = "default";
    static final String CQ = "cq";
    static final String LQ = "lq";

    private Fixtures() {
    }

    /** Records every decision handed to the actuator and every event. */
    static final class Recorder {
        final List<Decision> decisions = new CopyOnWriteArrayList<>();
        final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

        List<SchedulerEvent> eventsOf(String jobId) {
            List<SchedulerEvent> l = new ArrayList<>();
            for (SchedulerEvent e : events) {
                if (jobId.equals(e.jobId())) {
                    l.add(e);
                }
            }
            return l;
        }
    }

    static Node gpuNode(String name, GpuTopology shape) {
        return Node.builder(name).capacity(Resources.builder().cpu(64).memoryGiB(512).build()).gpus(shape).build();
    }

    static Node h100(String name) {
        return gpuNode(name, GpuTopology.nvSwitch8("H100"));
    }

    /**
     * A scheduler with one flavor, one ClusterQueue {@code cq} of {@code gpuQuota} GPUs (and ample cpu/memory), a
     * LocalQueue {@code default/lq}, a fixed clock, and a recorder as actuator and listener.
     */
    static Scheduler.Builder cluster(String policy, long gpuQuota, Recorder rec, Node... nodes) {
        Scheduler.Builder b = Scheduler.builder()
                .policy(policy)
                .flavor(ResourceFlavor.of(FLAVOR))
                .clusterQueue(ClusterQueue.builder(CQ).quota(FLAVOR, Resources.builder().cpu(10_000).memoryGiB(100_000).gpus(gpuQuota).build()).build())
                .localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, LQ, CQ))
                .clock(() -> 1_000)
                .nodes(List.of(nodes));
        if (rec != null) {
            b.actuator(rec.decisions::addAll).listener(rec.events::add);
        }
        return b;
    }

    /** A job of {@code members} members with {@code gpus} GPUs (and one core) each, in {@code default/lq}. */
    static JobSpec gpuJob(String id, int members, int gpus) {
        return JobSpec.builder(id).queue(LQ).members(members, Resources.builder().cpu(1).gpus(gpus).build()).build();
    }

    static JobState state(Scheduler s, String id) {
        return s.status(id).orElseThrow().state();
    }

    static PendingReason reason(Scheduler s, String id) {
        JobStatus j = s.status(id).orElseThrow();
        return j.pendingReason();
    }
}
