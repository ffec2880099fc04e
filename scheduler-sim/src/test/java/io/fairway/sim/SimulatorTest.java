package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.model.GpuTopology;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.trace.Trace;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatorTest {
    private static final SimulationOptions RECORD = SimulationOptions.DEFAULTS.withRecordEvents(true);

    @Test
    void twoFullNodeJobsRunOneAfterTheOther() {
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), List.of(), SimTestInputs.gpuJob("j1", 0, 100, 8), SimTestInputs.gpuJob("j2", 0, 50, 8));
        SimulationResult r = Simulator.run(in, "best-effort-fifo", RECORD);

        JobOutcome j1 = r.job("j1");
        JobOutcome j2 = r.job("j2");
        assertThat(j1.firstStartSeconds()).isEqualTo(0);
        assertThat(j1.jctSeconds()).isEqualTo(100);
        assertThat(j2.firstStartSeconds()).isEqualTo(100);
        assertThat(j2.jctSeconds()).isEqualTo(150);
        // j1: N = 2 over [0,100] -> share 4 GPUs < 8 -> T_iso = 200 s, rho = 0.5
        assertThat(j1.jobsPresent()).isEqualTo(2);
        assertThat(j1.rho()).isCloseTo(0.5, within(1e-9));
        // j2: N = (2*100 + 1*50)/150 = 5/3 -> share 4.8 -> T_iso = 50*8/4.8 = 83.33 s, rho = 1.8
        assertThat(j2.jobsPresent()).isCloseTo(5.0 / 3, within(1e-9));
        assertThat(j2.rho()).isCloseTo(1.8, within(1e-9));

        PolicyMetrics m = r.metrics();
        assertThat(m.jobs()).isEqualTo(2);
        assertThat(m.completed()).isEqualTo(2);
        assertThat(m.avgJctSeconds()).isEqualTo(125);
        assertThat(m.p95JctSeconds()).isEqualTo(150);
        assertThat(m.makespanSeconds()).isEqualTo(150);
        assertThat(m.gpuUtilization()).isCloseTo(1.0, within(1e-9));
        assertThat(m.avgQueueingDelaySeconds()).isEqualTo(50);
        assertThat(m.maxRho()).isCloseTo(1.8, within(1e-9));
        assertThat(m.meanRho()).isCloseTo(1.15, within(1e-9));
        assertThat(m.jainIndex()).isCloseTo(2.3 * 2.3 / (2 * (0.25 + 3.24)), within(1e-9));
        assertThat(m.preemptions()).isZero();
        assertThat(r.timeline()).extracting(TimelinePoint::busyGpus).containsExactly(8L, 8L, 0L);
        assertThat(r.events()).filteredOn(e -> e.job().equals("j2") && e.type().equals("PENDING")).isNotEmpty();
    }

    @Test
    void spreadPlacementSlowsASensitiveJob() {
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(
                        SimTestInputs.gpuNode("n-0", GpuTopology.hybridCubeMesh8("V100"), "rack-0"),
                        SimTestInputs.gpuNode("n-1", GpuTopology.hybridCubeMesh8("V100"), "rack-0")),
                SimTestInputs.oneQueue(16), List.of(),
                SimTestInputs.gpuJob("vgg", 0, 100, 16, PlacementSensitivity.forModel("vgg16"), null));
        SimulationResult r = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS);
        // two nodes of one rack: vgg16 runs at 0.72 of its ideal speed
        assertThat(r.job("vgg").jctSeconds()).isCloseTo(100 / 0.72, within(0.002));
    }

    @Test
    void quadOnACubeMeshRunsAtFullSpeed() {
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.hybridCubeMesh8("V100"), null)),
                SimTestInputs.oneQueue(8), List.of(), SimTestInputs.gpuJob("a", 0, 100, 4, PlacementSensitivity.forModel("vgg16"), null));
        assertThat(Simulator.run(in, "strict-fifo", SimulationOptions.DEFAULTS).job("a").jctSeconds()).isEqualTo(100);
    }

    @Test
    void aLostNodeCostsACheckpointingJobOnlyTheWorkSinceItsLastCheckpoint() {
        List<ClusterAction> moveAt250 = List.of(
                new ClusterAction.AddNode(250_000, SimTestInputs.gpuNode("n-1", GpuTopology.nvSwitch8("H100"), null)),
                new ClusterAction.RemoveNode(250_000, "n-0"));
        SimulationInput ck = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), moveAt250,
                SimTestInputs.gpuJob("ck", 0, 1000, 8, PlacementSensitivity.NONE, new Checkpointing(100, 0, 10)));
        SimulationResult r = Simulator.run(ck, "best-effort-fifo", RECORD);
        // 250 s done, 200 s safe at the last checkpoint; restarts at 250 s, restores 10 s, runs the remaining 800 s
        assertThat(r.job("ck").completionSeconds()).isEqualTo(1060);
        assertThat(r.job("ck").lostWorkSeconds()).isEqualTo(50);
        assertThat(r.job("ck").preemptions()).isEqualTo(1);
        assertThat(r.metrics().preemptions()).isEqualTo(1);
        assertThat(r.actuations()).extracting(ActuationRecord::kind).contains("Preempt");

        SimulationInput plain = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), moveAt250, SimTestInputs.gpuJob("plain", 0, 1000, 8));
        SimulationResult p = Simulator.run(plain, "best-effort-fifo", SimulationOptions.DEFAULTS);
        assertThat(p.job("plain").completionSeconds()).isEqualTo(1250);
        assertThat(p.job("plain").lostWorkSeconds()).isEqualTo(250);
        assertThat(p.metrics().lostWorkSeconds()).isEqualTo(250);
    }

    @Test
    void roundsRunWhenLeasesExpireSoLeasePoliciesCanTimeSlice() {
        Checkpointing every10s = new Checkpointing(10, 0, 0);
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), List.of(),
                SimTestInputs.gpuJob("a", 0, 100, 8, PlacementSensitivity.NONE, every10s),
                SimTestInputs.gpuJob("b", 0, 100, 8, PlacementSensitivity.NONE, every10s));
        SimulationResult r = Simulator.run(in, LeaseRotationPolicy.Provider.NAME, RECORD);
        // a runs 0-60, b 60-120, a 120-160 (done), b 160-200 (done): rounds at 60 and 120 come from lease expiries alone
        assertThat(r.actuations()).filteredOn(x -> x.kind().equals("Preempt"))
                .extracting(x -> x.jobId() + "@" + x.timeMillis() / 1000).containsExactly("a@60", "b@120");
        assertThat(r.job("a").completionSeconds()).isEqualTo(160);
        assertThat(r.job("b").completionSeconds()).isEqualTo(200);
        assertThat(r.metrics().preemptions()).isEqualTo(2);
        assertThat(r.metrics().lostWorkSeconds()).isZero();
    }

    @Test
    void aPolicyThatLetsNoWorkFinishIsStoppedAtTheHorizon() {
        // no checkpointing: each 60 s lease ends in a preemption that throws the run away, so neither job ever ends
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), List.of(), SimTestInputs.gpuJob("a", 0, 100, 8), SimTestInputs.gpuJob("b", 0, 100, 8));
        SimulationResult r = Simulator.run(in, LeaseRotationPolicy.Provider.NAME, SimulationOptions.DEFAULTS);
        assertThat(r.metrics().completed()).isZero();
        assertThat(r.metrics().preemptions()).isGreaterThan(100);
        SimulationResult early = Simulator.run(in, LeaseRotationPolicy.Provider.NAME, SimulationOptions.DEFAULTS.withMaxSimulatedSeconds(600));
        assertThat(early.metrics().preemptions()).isEqualTo(10);
    }

    @Test
    void jobsLargerThanTheClusterAreSkippedAndCounted() {
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), List.of(), SimTestInputs.gpuJob("ok", 0, 10, 8), SimTestInputs.gpuJob("huge", 0, 10, 16));
        SimulationResult r = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS);
        assertThat(r.metrics().jobs()).isEqualTo(1);
        assertThat(r.metrics().skipped()).isEqualTo(1);
        assertThat(r.skipped()).singleElement().satisfies(s -> {
            assertThat(s.id()).isEqualTo("huge");
            assertThat(s.gpus()).isEqualTo(16);
        });
        assertThat(r.job("huge")).isNull();
    }

    @Test
    void aJobThatCanNeverRunEndsTheSimulationUnfinished() {
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(4), List.of(), SimTestInputs.gpuJob("over-quota", 0, 10, 8), SimTestInputs.gpuJob("fits", 5, 10, 4));
        SimulationResult r = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS.withRoundIntervalSeconds(60));
        assertThat(r.metrics().completed()).isEqualTo(1);
        assertThat(r.job("over-quota").completed()).isFalse();
        assertThat(r.job("over-quota").firstStartSeconds()).isNaN();
        assertThat(r.metrics().makespanSeconds()).isEqualTo(15);
    }

    @Test
    void aCancelledPendingJobLeavesTheQueue() {
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), List.of(new ClusterAction.CancelJob(20_000, "second")),
                SimTestInputs.gpuJob("first", 0, 100, 8), SimTestInputs.gpuJob("second", 0, 100, 8));
        SimulationResult r = Simulator.run(in, "strict-fifo", SimulationOptions.DEFAULTS);
        assertThat(r.job("second").cancelled()).isTrue();
        assertThat(r.job("second").completed()).isFalse();
        assertThat(r.metrics().completed()).isEqualTo(1);
        assertThat(r.metrics().makespanSeconds()).isEqualTo(100);
        assertThat(r.timeline().get(r.timeline().size() - 1).pendingJobs()).isZero();
    }

    @Test
    void periodicRoundsChangeNothingForFifoButRunMoreRounds() {
        Trace t = Defaults.trace().limit(150);
        SimulationInput in = new SimulationInput("sample", Defaults.cluster(), Defaults.queues(), t.jobs(), List.of());
        PolicyMetrics events = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS).metrics();
        PolicyMetrics periodic = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS.withRoundIntervalSeconds(300)).metrics();
        assertThat(periodic.avgJctSeconds()).isEqualTo(events.avgJctSeconds());
        assertThat(periodic.rounds()).isGreaterThanOrEqualTo(events.rounds());
    }

    @Test
    void sameInputAndSeedGiveIdenticalMetricsAndEvents() {
        Trace t = Defaults.trace().limit(400);
        SimulationInput in = new SimulationInput("sample", Defaults.cluster(), Defaults.queues(), t.jobs(), List.of());
        for (String policy : List.of("strict-fifo", "best-effort-fifo")) {
            SimulationResult a = Simulator.run(in, policy, RECORD.withSeed(42));
            SimulationResult b = Simulator.run(in, policy, RECORD.withSeed(42));
            assertThat(b.metrics().withoutTiming()).isEqualTo(a.metrics().withoutTiming());
            assertThat(b.events()).isEqualTo(a.events());
            assertThat(b.jobs()).isEqualTo(a.jobs());
            assertThat(b.timeline()).isEqualTo(a.timeline());
            assertThat(a.events()).hasSizeGreaterThan(1200);
            assertThat(a.metrics().completed()).isEqualTo(400);
        }
    }

    @Test
    void unknownPolicyNamesTheKnownOnes() {
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), List.of(), SimTestInputs.gpuJob("j", 0, 1, 1));
        assertThatThrownBy(() -> Simulator.run(in, "lottery", SimulationOptions.DEFAULTS)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("unknown policy \"lottery\"").hasMessageContaining("best-effort-fifo");
    }
}
