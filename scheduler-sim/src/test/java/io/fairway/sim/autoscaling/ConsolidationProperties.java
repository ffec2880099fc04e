package io.fairway.sim.autoscaling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.sim.ActuationRecord;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.EventRecord;
import io.fairway.sim.InfraMetrics;
import io.fairway.sim.JobOutcome;
import io.fairway.sim.QueueModel;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimNodePool;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * A pool that consolidates under-used nodes ({@link NodePool.Consolidation#WHEN_UNDERUTILIZED}), over random workloads with
 * jobs that checkpoint and jobs that do not, and a queue without quota whose jobs are never admitted.
 */
class ConsolidationProperties {
    private static final InstanceType G8 = new InstanceType("p3.16xlarge", Resources.builder().cpu(64).memoryGiB(488).build(), "hybrid-cube-mesh-8",
            "V100", 24.48, CapacityType.ON_DEMAND);

    @Property(tries = 20)
    void consolidationKeepsLimitsNeverServesSuspendedJobsAndLosesAtMostAnIntervalPerMove(
            @ForAll @IntRange(min = 1, max = 4) int limitNodes, @ForAll @Size(min = 2, max = 10) List<@IntRange(min = 1, max = 8) Integer> gpus,
            @ForAll @IntRange(min = 60, max = 1800) int interval, @ForAll @LongRange(min = 0, max = 1000) long seed) {
        NodePool pool = new NodePool("gpu", null, List.of(G8), Resources.builder().gpus(8L * limitNodes).build(), 90_000, 120_000, Map.of(),
                List.of()).withConsolidation(NodePool.Consolidation.WHEN_UNDERUTILIZED);
        QueueModel queues = new QueueModel(List.of(ResourceFlavor.of("default")), List.of(),
                List.of(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(1000).build()).build(),
                        ClusterQueue.builder("held").quota("default", Resources.builder().gpus(0).build()).build()),
                List.of(new LocalQueue("default", "q", "cq"), new LocalQueue("default", "suspended", "held")));
        List<SimJob> jobs = new ArrayList<>();
        Set<String> checkpointing = new HashSet<>();
        Set<String> suspended = new HashSet<>();
        for (int i = 0; i < gpus.size(); i++) {
            JobSpec.Builder b = JobSpec.builder("j" + i).queue("q").submitTimeMillis(i * (120_000L + seed % 7 * 60_000))
                    .members(1, Resources.builder().gpus(gpus.get(i)).build());
            if (i % 2 == 0) {
                b.checkpointing(new Checkpointing(interval, 5, 20));
                checkpointing.add("j" + i);
            }
            jobs.add(new SimJob(b.build(), 600 + (seed + 977L * i) % 7200));
            if (i % 3 == 0) {
                jobs.add(new SimJob(JobSpec.builder("s" + i).queue("suspended").submitTimeMillis(i * 60_000L)
                        .members(1, Resources.builder().gpus(gpus.get(i)).build()).build(), 600));
                suspended.add("s" + i);
            }
        }
        ClusterModel cluster = new ClusterModel(List.of(ClusterSpec.withRacks("default")), List.of(),
                List.of(new SimNodePool(pool, Map.of(), 120)), Map.of());
        SimulationResult r = Simulator.run(new SimulationInput("consolidation", cluster, queues, jobs, List.of()), "best-effort-fifo",
                SimulationOptions.DEFAULTS.withRecordEvents(true).withSeed(seed).withMaxSimulatedSeconds(5 * 86_400));

        // pool limits are never exceeded, nodes up and requested together
        for (InfraMetrics.NodeCount c : r.infra().nodes()) {
            assertThat(c.poolNodes() + c.requestedNodes()).as("pool nodes at %d ms", c.timeMillis()).isLessThanOrEqualTo(limitNodes);
        }
        // jobs that are not admitted provision nothing and wait for nothing
        for (EventRecord e : r.events()) {
            if (e.type().equals("PROVISIONED")) {
                assertThat(suspended).noneMatch(s -> e.reason().contains("for job " + s + " "));
            }
            if (suspended.contains(e.job())) {
                assertThat(e.type()).as(e.toString()).isIn("SUBMITTED", "PENDING");
                assertThat(e.reason()).doesNotStartWith("WAITING_FOR_NODES");
            }
        }
        // only checkpointing jobs are moved by consolidation, and each move loses at most one checkpoint interval
        int moves = 0;
        for (ActuationRecord a : r.actuations()) {
            if (a.kind().equals("Preempt") && a.detail().contains("consolidation")) {
                assertThat(checkpointing).as(a.toString()).contains(a.jobId());
                moves++;
            }
        }
        Statistics.label("consolidation").collect(moves > 0 ? "moved jobs" : "none");
        Statistics.label("consolidation").coverage(c -> c.check("moved jobs").count(n -> n > 0)); // the property exercises it
        for (JobOutcome o : r.jobs()) {
            if (suspended.contains(o.id())) {
                assertThat(o.completed()).isFalse();
                continue;
            }
            assertThat(o.completed()).as(o.id()).isTrue();
            if (checkpointing.contains(o.id())) {
                assertThat(o.lostWorkSeconds()).as(o.toString()).isLessThanOrEqualTo(o.preemptions() * (double) interval + 1e-6);
            } else {
                assertThat(o.preemptions()).as(o.id() + " does not checkpoint: nothing moves it").isZero();
            }
        }
    }
}
