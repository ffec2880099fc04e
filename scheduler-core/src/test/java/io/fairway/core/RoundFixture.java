package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The cluster, the jobs and the counting policy of the tests of the engine's memory across rounds. */
public final class RoundFixture {
    private RoundFixture() {
    }

    /** Two nodes of 8 GPUs, one ClusterQueue of 16 GPUs that preempts lower priorities. */
    static Scheduler twoNodes(Clock clock, SchedulingPolicy policy, boolean remember) {
        return Scheduler.builder().clock(clock).policy(policy).rememberRounds(remember)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").preemption(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                                PreemptionPolicy.ReclaimWithinCohort.NEVER, PreemptionPolicy.BorrowWithinCohort.NEVER))
                        .quota("default", Resources.builder().cpu(256).memoryGiB(2048).gpus(16).build()).build())
                .localQueue(new LocalQueue("default", "lq", "cq"))
                .node(Node.builder("n1").gpus(GpuTopology.nvSwitch8("H100")).build())
                .node(Node.builder("n2").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
    }

    /** A one-member job of {@code gpus} GPUs in LocalQueue lq. */
    static JobSpec job(String id, int gpus, int priority) {
        return JobSpec.builder(id).queue("lq").priority(priority)
                .podSet(io.fairway.api.job.PodSet.of("main", 1, Resources.builder().gpus(gpus).build())).build();
    }

    /** Fills both nodes with priority-100 jobs and queues 20 lower-priority ones of varied sizes (one group each); starts the runners. */
    static void fillAndQueue(Scheduler s) {
        s.submitAll(List.of(job("run-1", 8, 100), job("run-2", 8, 100)));
        s.runRound();
        s.reportStarted("run-1");
        s.reportStarted("run-2");
        List<JobSpec> waiting = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            waiting.add(job("wait-" + i, 1 << (i % 4), i)); // priorities 0..19: none may preempt the runners
        }
        s.submitAll(waiting);
    }

    /**
     * Runs a round, starts the jobs it admits and checks the engine's invariants.
     *
     * @param s the scheduler
     * @return the round's result
     */
    public static RoundResult runAndStart(Scheduler s) {
        RoundResult r = s.runRound();
        for (Decision d : r.decisions()) {
            if (d instanceof Admit a) {
                s.reportStarted(a.jobId());
            }
        }
        assertThat(s.checkInvariants()).isEmpty();
        return r;
    }

    /**
     * A policy that plans as another does, through a context that counts, with the public SPI, the attempts asked of
     * it ({@code tryAdmit...}) and the groups left on a standing answer.
     */
    public static final class Counting implements SchedulingPolicy {
        private final SchedulingPolicy inner;
        /** Attempts ({@code tryAdmit...} calls) so far. */
        public final AtomicInteger attempts = new AtomicInteger();
        /** Groups left on a standing answer so far. */
        public final AtomicInteger standing = new AtomicInteger();

        /** @param inner the policy that plans */
        public Counting(SchedulingPolicy inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public void plan(PolicyContext ctx) {
            PolicyContext counted = (PolicyContext) Proxy.newProxyInstance(PolicyContext.class.getClassLoader(), new Class<?>[] {PolicyContext.class},
                    (proxy, m, args) -> {
                        Object r;
                        try {
                            r = m.invoke(ctx, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                        if (m.getName().startsWith("tryAdmit")) {
                            attempts.incrementAndGet();
                        } else if (m.getName().equals("standingAnswer") && r != null) {
                            standing.incrementAndGet();
                        }
                        return r;
                    });
            inner.plan(counted);
        }

        /** Sets both counts back to zero. */
        public void reset() {
            attempts.set(0);
            standing.set(0);
        }
    }
}
