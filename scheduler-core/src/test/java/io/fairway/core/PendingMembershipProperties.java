package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.PendingIndex;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Which jobs wait is known from each job's current status alone (the engine keeps no separate list of them): after
 * every step of random histories — arrivals, rounds that admit, preempt and give reasons, starts, ends, evictions,
 * priority changes, cancellations, forgotten jobs, quotas changed, a restore — the engine's pending index holds
 * exactly the current statuses in state {@code PENDING}, the very objects, in submission order; and the pending jobs
 * it reports are those.
 */
class PendingMembershipProperties {
    @Property(tries = 60)
    void thePendingIndexHoldsExactlyTheCurrentPendingStatuses(@ForAll long seed) {
        history(seed, (s, step, what) -> {
            EngineState st = s.state();
            List<JobStatus> expected = new ArrayList<>();
            for (JobStatus j : s.jobs().all()) {
                if (j.state() == JobState.PENDING) {
                    expected.add(j);
                }
            }
            PendingIndex idx = st.read(st.jobs.pendingIndex::freeze);
            assertThat(idx.inSubmissionOrder()).as("step %d (%s): the index's jobs are the current pending statuses", step, what)
                    .usingElementComparator((a, b) -> a == b ? 0 : 1).containsExactlyElementsOf(expected);
            assertThat(idx).as("step %d (%s)", step, what).isEqualTo(PendingIndex.of(expected));
            assertThat(s.jobs().pending()).as("step %d (%s)", step, what).containsExactlyElementsOf(expected);
            assertThat(st.read(st.jobs::nonePending)).as("step %d (%s)", step, what).isEqualTo(expected.isEmpty());
            assertThat(s.checkInvariants()).as("step %d (%s)", step, what).isEmpty();
        });
    }

    /** The histories above do preempt, requeue, forget and restore (else the property would prove little). */
    @Example
    void historiesPreemptRequeueForgetAndRestore() {
        Set<String> seen = new HashSet<>();
        for (long seed = 0; seed < 20; seed++) {
            history(seed, (s, step, what) -> seen.add(what));
        }
        assertThat(seen).contains("round (preempted)", "eviction", "forget", "restore", "priority changed", "cancel", "quota changed");
    }

    /** A step's outcome, checked after it. */
    private interface Check {
        void after(Scheduler s, int step, String what);
    }

    private static void history(long seed, Check check) {
        SplittableRandom r = new SplittableRandom(seed);
        AtomicLong now = new AtomicLong();
        Scheduler s = builder(now).build();
        List<String> ended = new ArrayList<>();
        int ids = 0;
        for (int step = 0; step < 150; step++) {
            now.addAndGet(1 + r.nextInt(30_000));
            String what = step(s, r, ids, ended);
            if (what.equals("arrival")) {
                ids++;
            } else if (what.equals("restore")) {
                s = Scheduler.restore(s.exportState(), Scheduler.builder().clock(now::get).policy("priority"));
            }
            check.after(s, step, what);
        }
    }

    /** One random step of a history. @return what it was */
    private static String step(Scheduler s, SplittableRandom r, int ids, List<String> ended) {
        List<String> holding = new ArrayList<>();
        for (JobStatus h : s.snapshot().holding()) {
            holding.add(h.id());
        }
        String some = holding.isEmpty() ? null : holding.get(r.nextInt(holding.size()));
        switch (r.nextInt(12)) {
            case 0, 1, 2 -> {
                s.submit(JobSpec.builder("j" + ids).namespace("ns").queue("q" + r.nextInt(2)).priority(r.nextInt(3))
                        .members(1 + r.nextInt(2), Resources.builder().gpus(1 + r.nextInt(4)).build()).build());
                return "arrival";
            }
            case 3, 4 -> {
                boolean preempted = false;
                for (Decision d : s.runRound().decisions()) {
                    if (d instanceof Admit a && r.nextBoolean()) {
                        s.reportStarted(a.jobId());
                    }
                    preempted |= d instanceof io.fairway.api.decision.Preempt;
                }
                return preempted ? "round (preempted)" : "round";
            }
            case 5 -> {
                if (some != null) {
                    s.reportFinished(some);
                    ended.add(some);
                }
                return "end";
            }
            case 6 -> {
                if (some != null) {
                    s.reportEvicted(some, "evicted");
                }
                return "eviction";
            }
            case 7 -> {
                if (ids > 0) {
                    s.jobs().setPriority("j" + r.nextInt(ids), r.nextInt(3));
                }
                return "priority changed";
            }
            case 8 -> {
                if (ids > 0) {
                    s.cancel("j" + r.nextInt(ids));
                }
                return "cancel";
            }
            case 9 -> {
                if (ended.isEmpty()) {
                    return "nothing to forget";
                }
                s.jobs().forget(ended.remove(r.nextInt(ended.size())));
                return "forget";
            }
            case 10 -> {
                s.queues().addClusterQueue(quota("cq" + r.nextInt(2), 4 + 4 * r.nextInt(6)));
                return "quota changed";
            }
            default -> {
                return "restore";
            }
        }
    }

    private static Scheduler.Builder builder(AtomicLong now) {
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy("priority").flavor(ResourceFlavor.of("default"));
        for (int q = 0; q < 2; q++) {
            b.clusterQueue(quota("cq" + q, 12));
            b.localQueue(new LocalQueue("ns", "q" + q, "cq" + q));
        }
        for (int n = 0; n < 2; n++) {
            b.node(Node.builder("n" + n).capacity(Resources.builder().cpu(16).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        return b;
    }

    private static ClusterQueue quota(String name, int gpus) {
        return ClusterQueue.builder(name).quota("default", Resources.builder().gpus(gpus).cpu(1000).build())
                .preemption(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY, PreemptionPolicy.ReclaimWithinCohort.NEVER,
                        PreemptionPolicy.BorrowWithinCohort.NEVER))
                .build();
    }
}
