package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fairway.api.job.JobState;
import io.fairway.k8s.audit.RuleServer.Fault;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The adapter converges on an API server that fails: whatever the schedule of faults on its writes (500s, 409s,
 * timeouts that did or did not apply, slow answers, dropped watches), no job is admitted while it holds an
 * admission, and the engine's invariants (quota included) hold after every pass; once the faults have stopped (or
 * the jobs have outlasted them) every job finishes, no Job runs without an admission, the running Jobs fit the
 * quota, and the server refused none of the adapter's writes ({@link MockCluster#close()}). Small clusters and few
 * tries keep it quick.
 */
class FaultConvergenceProperties {
    /** 32 cores of quota on two 32-core nodes: jobs contend, and the urgent ones preempt. */
    private static final String QUEUES = JobLifecycleTest.PREEMPTING;
    private static final long QUOTA_MILLICORES = 32_000;

    /** A job of the schedule: its size, whether it is urgent, and the pass it arrives at. */
    record Arrival(int cpu, int parallelism, boolean urgent, int atPass) {
    }

    @Provide
    Arbitrary<List<Arrival>> arrivals() {
        Arbitrary<Arrival> a = Combinators.combine(Arbitraries.of(4, 8, 16, 24), Arbitraries.integers().between(1, 2), Arbitraries.of(false, false, true),
                Arbitraries.integers().between(0, 6)).as(Arrival::new);
        return a.list().ofMinSize(2).ofMaxSize(5);
    }

    @Provide
    Arbitrary<List<Fault>> faults() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.just(Fault.NONE)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Fault.ERROR_500)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Fault.CONFLICT)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Fault.TIMEOUT_NOT_APPLIED)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Fault.TIMEOUT_APPLIED)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Fault.DROP_WATCHES)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Fault.SLOW))).list().ofMinSize(5).ofMaxSize(40);
    }

    @Property(tries = 6)
    void theAdapterConvergesWhateverTheFaults(@ForAll("arrivals") List<Arrival> arrivals, @ForAll("faults") List<Fault> faults) {
        try (MockCluster cluster = new MockCluster()) {
            run(cluster, arrivals, faults);
        }
    }

    private void run(MockCluster cluster, List<Arrival> arrivals, List<Fault> faults) {
        cluster.node("n1", 32, 256, 0, Map.of("fairway.io/pool", "general"));
        cluster.node("n2", 32, 256, 0, Map.of("fairway.io/pool", "general"));
        cluster.client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("urgent").endMetadata()
                .withValue(1000).build()).create();
        cluster.rules.slowMillis(40);
        AtomicInteger next = new AtomicInteger();
        cluster.rules.faults((method, path) -> {
            if (method.equals("GET")) {
                return Fault.NONE;
            }
            int i = next.getAndIncrement();
            return i < faults.size() ? faults.get(i) : Fault.NONE;
        });
        FairwayAdapter adapter = new FairwayAdapter(cluster.newClient(), AdapterOptions.builder().queues(MockCluster.config(QUEUES)).build(), null).start();
        try {
            Set<String> holding = new HashSet<>();
            Map<String, Integer> runningSince = new HashMap<>();
            List<String> names = new ArrayList<>();
            int overAt = -1;
            for (int pass = 0; pass < 400; pass++) {
                for (int i = 0; i < arrivals.size(); i++) {
                    Arrival a = arrivals.get(i);
                    if (a.atPass() == pass) {
                        String name = "job-" + i;
                        names.add(name);
                        var b = cluster.jobBuilder("default", name, "q", a.parallelism(), Integer.toString(a.cpu() / a.parallelism()), 0, true);
                        if (a.urgent()) {
                            b.editSpec().editTemplate().editSpec().withPriorityClassName("urgent").endSpec().endTemplate().endSpec();
                        }
                        cluster.createJob(b.build());
                    }
                }
                FairwayAdapter.ReconcileResult r = null;
                try {
                    r = adapter.reconcileOnce();
                } catch (RuntimeException e) {
                    // the controller's loop logs and retries on the next pass
                }
                if (r != null) {
                    for (String id : r.admitted()) {
                        assertThat(!holding.contains(id) || r.evicted().contains(id))
                                .as("%s admitted again while it held an admission (pass %d)", id, pass).isTrue();
                    }
                }
                assertThat(adapter.checkInvariants()).as("engine invariants after pass %d", pass).isEmpty();
                holding.clear();
                for (String n : names) {
                    if (adapter.status("default", n).map(s -> s.state().holdsResources()).orElse(false)) {
                        holding.add("default/" + n);
                    }
                }
                playJobController(cluster, names, runningSince, pass);
                boolean faultsOver = next.get() >= faults.size();
                if (faultsOver && overAt < 0) {
                    overAt = pass;
                }
                if (names.size() == arrivals.size()
                        && names.stream().allMatch(n -> adapter.status("default", n).map(s -> s.state() == JobState.SUCCEEDED).orElse(false))) {
                    break;
                }
                if (faultsOver && pass - overAt >= 3 && pass % 5 == 0) {
                    checkCluster(cluster, names);
                }
                sleep();
            }
            assertThat(next.get()).as("the schedule was used (its faults hit the first writes)").isPositive();
            for (String n : names) {
                assertThat(adapter.status("default", n).map(s -> s.state()).orElse(null)).as("%s once the faults stopped (faults %s)", n, faults)
                        .isEqualTo(JobState.SUCCEEDED);
            }
            checkCluster(cluster, names);
        } finally {
            adapter.close();
        }
    }

    /** No unfinished Job runs without an admission, and the running ones fit the quota. */
    private static void checkCluster(MockCluster cluster, List<String> names) {
        long used = 0;
        for (String n : names) {
            Job j = cluster.job("default", n);
            if (j == null || MockCluster.suspended(j) || Kube.annotation(j, Keys.FINISHED_ANNOTATION) != null) {
                continue;
            }
            assertThat(Kube.annotation(j, Keys.ADMISSION_ANNOTATION)).as("%s runs with an admission", n).isNotNull();
            Quantity cpu = j.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getRequests().get("cpu");
            used += Quantity.getAmountInBytes(cpu).movePointRight(3).longValue() * j.getSpec().getParallelism();
        }
        assertThat(used).as("millicores of the unsuspended Jobs").isLessThanOrEqualTo(QUOTA_MILLICORES);
    }

    /** The Job controller and the kubelet: pods for unsuspended Jobs, none for suspended ones; bound pods run, then succeed. */
    private static void playJobController(MockCluster cluster, List<String> names, Map<String, Integer> runningSince, int pass) {
        for (String n : names) {
            Job j = cluster.job("default", n);
            if (j == null || Kube.annotation(j, Keys.FINISHED_ANNOTATION) != null) {
                continue;
            }
            List<Pod> pods = cluster.pods("default", n);
            if (MockCluster.suspended(j)) {
                pods.forEach(p -> cluster.client.pods().inNamespace("default").resource(p).delete());
                runningSince.remove(n);
                continue;
            }
            if (pods.isEmpty()) {
                cluster.createPods("default", n);
                continue;
            }
            boolean bound = pods.stream().noneMatch(Kube::hasGate);
            if (bound && !runningSince.containsKey(n)) {
                cluster.setPhase("default", n, "Running");
                runningSince.put(n, pass);
            } else if (bound && pass - runningSince.get(n) >= 3 && pods.stream().allMatch(p -> "Running".equals(Kube.phase(p)))) {
                cluster.setPhase("default", n, "Succeeded");
            }
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
