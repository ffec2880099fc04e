package io.fairway.core.multicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.ExecutorHub;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Executors that poll, skip or repeat acknowledgements, get partitioned, fence themselves, are declared lost
 * and rejoin: at no moment does any job run in two clusters, and no report about an old run is accepted.
 */
class ExecutorProperties {
    private static final String[] CLUSTERS = {"c0", "c1", "c2"};

    /** What one cluster's executor physically runs. */
    private static final class Executor {
        final String cluster;
        final Map<String, Long> running = new TreeMap<>(); // job -> epoch of its run
        boolean partitioned;
        long lastContact;

        Executor(String cluster) {
            this.cluster = cluster;
        }
    }

    private static List<Node> nodesOf(String cluster) {
        List<Node> l = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            l.add(Node.builder(cluster + "-n" + i).cluster(cluster).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        return l;
    }

    @Property
    void aJobNeverRunsInTwoClusters(@ForAll long seed) {
        Random rnd = new Random(seed);
        AtomicLong now = new AtomicLong();
        ExecutorHub hub = new ExecutorHub(now::get, 10_000, 4, 60_000);
        Scheduler.Builder b = Scheduler.builder().clock(now::get).actuator(hub).seed(seed)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(1000).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq"));
        for (String c : CLUSTERS) {
            b.nodes(nodesOf(c));
        }
        Scheduler s = b.build();
        hub.attach(s);
        Map<String, Executor> executors = new TreeMap<>();
        for (String c : CLUSTERS) {
            hub.register(c);
            executors.put(c, new Executor(c));
        }
        List<ExecutorHub.WorkItem> unacked = new ArrayList<>();
        int id = 0;
        for (int step = 0; step < 60; step++) {
            now.addAndGet(1_000 + rnd.nextInt(15_000));
            for (int k = rnd.nextInt(3); k > 0; k--) {
                s.submit(JobSpec.builder("j" + id++).queue("q").members(1, Resources.builder().gpus(1 + rnd.nextInt(8)).build()).build());
            }
            s.runRound();
            for (Executor e : executors.values()) {
                if (rnd.nextInt(12) == 0) {
                    e.partitioned = !e.partitioned;
                }
                if (e.partitioned) {
                    if (now.get() - e.lastContact > hub.fenceAfterMillis()) {
                        e.running.clear(); // fencing: cannot reach the hub, so stop everything
                    }
                    continue;
                }
                e.lastContact = now.get();
                ExecutorHub.Poll p = hub.poll(e.cluster, 1 + rnd.nextInt(4));
                if (p.rejoinRequired()) {
                    for (String stop : hub.rejoin(e.cluster, nodesOf(e.cluster), e.running)) {
                        e.running.remove(stop);
                    }
                    continue;
                }
                for (ExecutorHub.WorkItem w : p.items()) {
                    if (w.decision() instanceof Admit) {
                        if (!e.running.containsKey(w.jobId())) {
                            e.running.put(w.jobId(), w.epoch());
                            if (!s.reportStarted(w.jobId(), w.epoch())) {
                                e.running.remove(w.jobId());
                            }
                        }
                    } else if (w.decision() instanceof Preempt) {
                        Long ep = e.running.get(w.jobId());
                        if (ep != null && ep <= w.epoch()) {
                            e.running.remove(w.jobId());
                        }
                    }
                    if (rnd.nextInt(4) == 0) {
                        unacked.add(w); // acknowledged late, or never
                    } else {
                        hub.ack(e.cluster, w.id());
                    }
                }
                // some runs finish
                for (Map.Entry<String, Long> r : new ArrayList<>(e.running.entrySet())) {
                    if (rnd.nextInt(5) == 0) {
                        s.reportFinished(r.getKey(), r.getValue());
                        e.running.remove(r.getKey());
                    }
                }
            }
            if (!unacked.isEmpty() && rnd.nextBoolean()) {
                ExecutorHub.WorkItem late = unacked.remove(rnd.nextInt(unacked.size()));
                hub.ack(late.cluster(), late.id());
            }
            hub.checkLiveness();
            Map<String, List<String>> where = new HashMap<>();
            for (Executor e : executors.values()) {
                for (String j : e.running.keySet()) {
                    where.computeIfAbsent(j, k -> new ArrayList<>()).add(e.cluster);
                }
            }
            for (Map.Entry<String, List<String>> w : where.entrySet()) {
                assertThat(w.getValue()).as("job %s runs in %s at step %d", w.getKey(), w.getValue(), step).hasSize(1);
            }
            assertThat(s.checkInvariants()).isEmpty();
        }
    }
}
