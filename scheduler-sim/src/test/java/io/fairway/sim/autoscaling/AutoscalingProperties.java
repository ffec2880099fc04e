package io.fairway.sim.autoscaling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
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
import io.fairway.sim.QueueModel;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimNodePool;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import io.fairway.sim.TimelinePoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/** Node pools, spot interruptions, checkpoints and elastic jobs in the simulator, over random workloads. */
class AutoscalingProperties {
    private static final InstanceType C32 = new InstanceType("c.8xlarge", Resources.builder().cpu(32).memoryGiB(64).build(), "none", "", 1.36,
            CapacityType.ON_DEMAND);
    private static final InstanceType G8_SPOT = new InstanceType("p3.16xlarge-spot", Resources.builder().cpu(64).memoryGiB(488).build(),
            "hybrid-cube-mesh-8", "V100", 7.34, CapacityType.SPOT);
    private static final InstanceType G8 = new InstanceType("p3.16xlarge", Resources.builder().cpu(64).memoryGiB(488).build(),
            "hybrid-cube-mesh-8", "V100", 24.48, CapacityType.ON_DEMAND);

    private static QueueModel queues(Resources quota) {
        return new QueueModel(List.of(ResourceFlavor.of("default")), List.of(),
                List.of(ClusterQueue.builder("cq").quota("default", quota).build()), List.of(new LocalQueue("default", "q", "cq")));
    }

    private static ClusterModel poolCluster(NodePool pool, Map<String, Double> interruptionsPerHour) {
        return new ClusterModel(List.of(ClusterSpec.withRacks("default")), List.of(), List.of(new SimNodePool(pool, interruptionsPerHour, 120)),
                Map.of());
    }

    @Property(tries = 25)
    void quotaBlockedJobsProvisionNothing(@ForAll @IntRange(min = 1, max = 4) int quotaJobs, @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 60,
            max = 3600) Integer> durations, @ForAll @LongRange(min = 0, max = 600) long spread) {
        NodePool pool = new NodePool("cpu", null, List.of(C32), Resources.NONE, 60_000, 120_000, Map.of(), List.of());
        List<SimJob> jobs = new ArrayList<>();
        for (int i = 0; i < durations.size(); i++) {
            jobs.add(new SimJob(JobSpec.builder("j" + i).queue("q").submitTimeMillis(i * spread * 1000 / Math.max(1, durations.size()))
                    .members(1, Resources.builder().cpu(32).build()).build(), durations.get(i)));
        }
        SimulationInput in = new SimulationInput("quota", poolCluster(pool, Map.of()), queues(Resources.builder().cpu(32L * quotaJobs).build()), jobs,
                List.of());
        SimulationResult r = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS.withRecordEvents(true));
        // a node is requested only for a job holding quota: at each Provision, the job it is for is not pending on quota
        Map<String, String> lastPending = new HashMap<>();
        java.util.Set<String> holdingQuota = new java.util.HashSet<>();
        int provisions = 0;
        for (EventRecord e : r.events()) {
            switch (e.type()) {
                case "PENDING" -> {
                    lastPending.put(e.job(), e.reason());
                    if (e.reason().startsWith("WAITING_FOR_NODES")) {
                        holdingQuota.add(e.job());
                    }
                }
                case "SUCCEEDED" -> holdingQuota.remove(e.job());
                case "PROVISIONED" -> {
                    provisions++;
                    String job = e.reason().replaceAll(".*for job (\\S+) \\(request.*", "$1");
                    assertThat(lastPending.get(job)).as("%s at %d ms", e.reason(), e.timeMillis()).startsWith("WAITING_FOR_NODES");
                    assertThat(holdingQuota.size()).as("jobs holding quota at %d ms", e.timeMillis()).isLessThanOrEqualTo(quotaJobs);
                }
                default -> {
                }
            }
        }
        assertThat(provisions).isEqualTo(r.infra().provisionedNodes()).isPositive();
        assertThat(r.metrics().completed()).isEqualTo(durations.size());
        // every Provision is for one node of the one type that holds a 32-core job
        assertThat(r.actuations()).filteredOn(a -> a.kind().equals("Provision")).allSatisfy(a -> assertThat(a.detail()).startsWith("1 x c.8xlarge"));
    }

    @Property(tries = 20)
    void poolLimitsAreNeverExceeded(@ForAll @IntRange(min = 1, max = 4) int limitNodes, @ForAll @Size(min = 1, max = 10) List<@IntRange(min = 1,
            max = 4) Integer> gangSizes, @ForAll @IntRange(min = 0, max = 3) int ratePerHourTenths) {
        NodePool pool = new NodePool("gpu", null, List.of(G8_SPOT, G8), Resources.builder().gpus(8L * limitNodes).build(), 90_000, 300_000,
                Map.of(), List.of());
        List<SimJob> jobs = new ArrayList<>();
        for (int i = 0; i < gangSizes.size(); i++) {
            int gpus = Math.min(8 * limitNodes, 2 * gangSizes.get(i));
            jobs.add(new SimJob(JobSpec.builder("g" + i).queue("q").submitTimeMillis(i * 60_000L).members(1, Resources.builder().gpus(gpus).build())
                    .checkpointing(new Checkpointing(300, 10, 30)).build(), 1800 + 600 * i));
        }
        SimulationInput in = new SimulationInput("limits", poolCluster(pool, Map.of(G8_SPOT.name(), ratePerHourTenths / 10.0)),
                queues(Resources.builder().gpus(1000).build()), jobs, List.of());
        SimulationResult r = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS.withRecordEvents(true).withSeed(ratePerHourTenths));
        for (InfraMetrics.NodeCount c : r.infra().nodes()) {
            assertThat(8 * (c.poolNodes() + c.requestedNodes())).as("GPUs of pool nodes at %d ms", c.timeMillis())
                    .isLessThanOrEqualTo(8 * limitNodes);
        }
        assertThat(r.metrics().completed()).isEqualTo(gangSizes.size());
    }

    @Property(tries = 20)
    void checkpointingJobsLoseAtMostOneIntervalPerInterruption(@ForAll @IntRange(min = 60, max = 1800) int interval, @ForAll @LongRange(min = 1,
            max = 1000) long seed, @ForAll @IntRange(min = 2, max = 8) int jobCount) {
        NodePool pool = new NodePool("spot", null, List.of(G8_SPOT), Resources.NONE, 60_000, 120_000, Map.of(), List.of());
        List<SimJob> jobs = new ArrayList<>();
        for (int i = 0; i < jobCount; i++) {
            JobSpec.Builder b = JobSpec.builder("c" + i).queue("q").submitTimeMillis(i * 300_000L).members(1, Resources.builder().gpus(4).build());
            if (i % 2 == 0) {
                b.checkpointing(new Checkpointing(interval, 5, 20));
            }
            jobs.add(new SimJob(b.build(), 2 * 3600));
        }
        // about one interruption per node every four hours: several per run
        SimulationInput in = new SimulationInput("spot", poolCluster(pool, Map.of(G8_SPOT.name(), 0.25)), queues(Resources.builder().gpus(64).build()),
                jobs, List.of());
        SimulationResult r = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS.withSeed(seed));
        for (InfraMetrics.InterruptionLoss l : r.infra().interruptionLosses()) {
            assertThat(l.lostWorkSeconds()).isGreaterThanOrEqualTo(0);
            if (l.checkpointIntervalSeconds() > 0) {
                assertThat(l.lostWorkSeconds()).as(l.toString()).isLessThanOrEqualTo(l.checkpointIntervalSeconds() + 1e-6);
            }
        }
        double lostGpuHours = 0;
        for (InfraMetrics.InterruptionLoss l : r.infra().interruptionLosses()) {
            lostGpuHours += l.lostWorkSeconds() / 3600 * 4;
        }
        assertThat(r.infra().gpuHoursLostToInterruptions()).isCloseTo(lostGpuHours, org.assertj.core.data.Offset.offset(1e-6));
        // checkpointing jobs always finish: what they lose per interruption is bounded
        for (int i = 0; i < jobCount; i += 2) {
            assertThat(r.job("c" + i).completed()).as("c" + i).isTrue();
        }
    }

    @Property(tries = 25)
    void elasticSizesStayWithinMinMaxAndQuota(@ForAll @IntRange(min = 2, max = 16) int quotaGpus, @ForAll @Size(min = 1, max = 8) List<@IntRange(
            min = 1, max = 8) Integer> maxes, @ForAll @LongRange(min = 0, max = 5) long seed) {
        List<SimJob> jobs = new ArrayList<>();
        Map<String, int[]> bounds = new HashMap<>();
        for (int i = 0; i < maxes.size(); i++) {
            int max = maxes.get(i);
            int min = Math.min(1 + (i % max), quotaGpus);
            bounds.put("e" + i, new int[] {min, max});
            jobs.add(new SimJob(JobSpec.builder("e" + i).queue("q").submitTimeMillis(i * 200_000L)
                    .podSet(PodSet.of("workers", max, Resources.builder().gpus(1).build()).withMinCount(min)).build(), 600 + 300 * i));
        }
        ClusterModel cluster = io.fairway.sim.config.Defaults.cluster();
        SimulationInput in = new SimulationInput("elastic", cluster, queues(Resources.builder().gpus(quotaGpus).build()), jobs, List.of());
        SimulationResult r = Simulator.run(in, "priority", SimulationOptions.DEFAULTS.withRecordEvents(true).withSeed(seed));
        for (TimelinePoint p : r.timeline()) {
            assertThat(p.busyGpus()).as("GPUs held at %d ms", p.timeMillis()).isLessThanOrEqualTo(quotaGpus);
        }
        for (ActuationRecord a : r.actuations()) {
            if (a.kind().equals("Resize")) {
                int target = Integer.parseInt(a.detail().replaceAll(".*-> (\\d+) members", "$1"));
                int[] b = bounds.get(a.jobId());
                assertThat(target).as(a.toString()).isBetween(b[0], b[1]);
            }
            if (a.kind().equals("Admit")) {
                int members = Integer.parseInt(a.detail().replaceAll(".* (\\d+) members.*", "$1"));
                int[] b = bounds.get(a.jobId());
                assertThat(members).as(a.toString()).isBetween(b[0], b[1]);
            }
        }
        assertThat(r.metrics().completed()).isEqualTo(maxes.size());
    }
}
