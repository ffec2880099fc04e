package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Usage decay keeps each ClusterQueue's share between changes: on random histories (arrivals, rounds, starts, ends,
 * nodes added, cordoned and removed) the shares it would use are, after every step, those computed from the nodes
 * and the jobs holding resources — so the fair share over time a user sees is what it was when the shares were
 * rebuilt at every round.
 */
class UsageSharesProperties {
    @Property(tries = 40)
    void keptSharesAreTheSharesOfTheStateNow(@ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        AtomicLong now = new AtomicLong();
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy("fair-share-over-time").usageHalfLife(Duration.ofSeconds(60))
                .flavor(ResourceFlavor.of("default"));
        for (int q = 0; q < 3; q++) {
            b.clusterQueue(ClusterQueue.builder("cq" + q).quota("default", Resources.builder().gpus(16).cpu(1000).build()).build());
            b.localQueue(new LocalQueue("ns", "q" + q, "cq" + q));
        }
        for (int n = 0; n < 3; n++) {
            b.node(Node.builder("n" + n).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        Scheduler s = b.build();
        List<String> running = new ArrayList<>();
        int ids = 0;
        int nodes = 3;
        List<String> live = new ArrayList<>(List.of("n0", "n1", "n2"));
        for (int step = 0; step < 120; step++) {
            now.addAndGet(1 + r.nextInt(30_000));
            switch (r.nextInt(6)) {
                case 0, 1 -> s.submit(JobSpec.builder("j" + ids++).namespace("ns").queue("q" + r.nextInt(3))
                        .members(1 + r.nextInt(2), Resources.builder().gpus(1 + r.nextInt(4)).build()).build());
                case 2 -> {
                    for (Decision d : s.runRound().decisions()) {
                        if (d instanceof Admit a) {
                            s.reportStarted(a.jobId());
                            running.add(a.jobId());
                        }
                    }
                }
                case 3 -> {
                    if (!running.isEmpty()) {
                        s.reportFinished(running.remove(r.nextInt(running.size())));
                    }
                }
                case 4 -> {
                    String name = "n" + nodes++;
                    s.clusters().addNode(Node.builder(name).gpus(GpuTopology.nvSwitch8("H100")).build());
                    live.add(name);
                }
                default -> {
                    if (live.isEmpty()) {
                        break;
                    }
                    HeldChargesProperties.cordonOrRemove(s, r, live, running);
                }
            }
            EngineState st = s.state();
            Map<String, Double> kept = st.read(st::usageSharesNow);
            Map<String, Double> fresh = st.read(st::usageSharesFromScratch);
            assertThat(kept).as("step %d", step).isEqualTo(fresh);
        }
    }
}
