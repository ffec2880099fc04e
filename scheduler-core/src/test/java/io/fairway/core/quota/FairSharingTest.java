package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three busy ClusterQueues share a cohort's 24 GPUs; their usage over time converges to their weights (1:2:3)
 * under Kueue-style fair sharing, and to their inverse priority factors under fair share over time.
 */
class FairSharingTest {
    @ParameterizedTest
    @ValueSource(strings = {"fair-sharing", "fair-share-over-time"})
    void usageConvergesToWeights(String policy) {
        AtomicLong now = new AtomicLong();
        ResourceGroup nothing = new ResourceGroup(List.of(Resources.GPU), List.of(new FlavorQuotas("default", List.of(ResourceQuota.of(Resources.GPU, 0)))));
        ResourceGroup pool = new ResourceGroup(List.of(Resources.GPU), List.of(new FlavorQuotas("default", List.of(ResourceQuota.of(Resources.GPU, 24)))));
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy(policy).usageHalfLife(Duration.ofSeconds(60))
                .flavor(ResourceFlavor.of("default"))
                .cohort(new Cohort("pool", null, List.of(pool), 1.0));
        double[] weights = {1, 2, 3};
        for (int i = 0; i < 3; i++) {
            String name = "cq" + i;
            // fair sharing reads the weight; fair share over time the priority factor (larger = smaller share)
            b.clusterQueue(ClusterQueue.builder(name).cohort("pool").resourceGroup(nothing)
                    .fairSharingWeight(weights[i]).priorityFactor(1.0 / weights[i]).build());
            b.localQueue(new LocalQueue("ns", "q" + i, name));
        }
        for (int n = 0; n < 3; n++) {
            b.node(Node.builder("n" + n).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        Scheduler s = b.build();
        int id = 0;
        for (int q = 0; q < 3; q++) {
            List<JobSpec> batch = new ArrayList<>();
            for (int k = 0; k < 1000; k++) {
                batch.add(JobSpec.builder("j" + id++).namespace("ns").queue("q" + q).members(1, Resources.builder().gpus(1).build()).build());
            }
            s.submitAll(batch);
        }
        Map<String, String> queueOf = new HashMap<>();
        TreeMap<Long, List<String>> ends = new TreeMap<>();
        double[] gpuSeconds = new double[3];
        for (int t = 0; t < 600; t++) {
            now.set(t * 1000L);
            for (String done : ends.getOrDefault((long) t, List.of())) {
                s.reportFinished(done);
            }
            for (Decision d : s.runRound().decisions()) {
                if (d instanceof Admit a) {
                    s.reportStarted(a.jobId());
                    queueOf.put(a.jobId(), a.clusterQueue());
                    ends.computeIfAbsent(t + 10L, k -> new ArrayList<>()).add(a.jobId());
                }
            }
            if (t >= 120) { // measure after warm-up
                for (var j : s.jobs().all()) {
                    if (j.state().holdsResources()) {
                        gpuSeconds[Integer.parseInt(j.admission().clusterQueue().substring(2))] += 1;
                    }
                }
            }
            if (t % 50 == 0) {
                assertThat(s.checkInvariants()).isEmpty();
            }
        }
        double total = gpuSeconds[0] + gpuSeconds[1] + gpuSeconds[2];
        assertThat(total / 480).isCloseTo(24, within(0.5)); // the cohort's 24 GPUs stay busy
        assertThat(gpuSeconds[0] / total).isCloseTo(1 / 6.0, within(0.03));
        assertThat(gpuSeconds[1] / total).isCloseTo(2 / 6.0, within(0.03));
        assertThat(gpuSeconds[2] / total).isCloseTo(3 / 6.0, within(0.03));
    }
}
