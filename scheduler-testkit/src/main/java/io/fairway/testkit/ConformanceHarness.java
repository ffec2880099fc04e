package io.fairway.testkit;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.Node;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import io.fairway.testkit.FairwayArbitraries.AddNode;
import io.fairway.testkit.FairwayArbitraries.Cancel;
import io.fairway.testkit.FairwayArbitraries.Cordon;
import io.fairway.testkit.FairwayArbitraries.Finish;
import io.fairway.testkit.FairwayArbitraries.JobTemplate;
import io.fairway.testkit.FairwayArbitraries.Op;
import io.fairway.testkit.FairwayArbitraries.RemoveNode;
import io.fairway.testkit.FairwayArbitraries.RunRound;
import io.fairway.testkit.FairwayArbitraries.Start;
import io.fairway.testkit.FairwayArbitraries.Submit;
import io.fairway.testkit.FairwayArbitraries.SubmitBatch;
import io.fairway.testkit.FairwayArbitraries.Tick;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Drives a scheduler through a list of operations as an embedding controller would, recording every decision
 * the actuator receives and every round's admissions, so properties can look at the state after each step.
 */
public final class ConformanceHarness {
    public final World world;
    public final Scheduler scheduler;
    public final List<Decision> actuated = new ArrayList<>();
    public final List<String> submitted = new ArrayList<>();
    /** Per round: the admissions it decided and the nodes cordoned when it ran. */
    public final List<RoundRecord> rounds = new ArrayList<>();
    private long clock = 1_000;
    private int nextJob;
    private int nextNode;

    public record RoundRecord(RoundResult result, Set<String> cordoned) {
    }

    public ConformanceHarness(World world, java.util.function.Supplier<io.fairway.api.spi.SchedulingPolicy> policy, long seed) {
        this.world = world;
        this.scheduler = Scheduler.builder()
                .policy(policy.get())
                .seed(seed)
                .clock(() -> clock)
                .cluster(FairwayArbitraries.CLUSTER)
                .flavor(FairwayArbitraries.FLAVORS.get(0))
                .flavor(FairwayArbitraries.FLAVORS.get(1))
                .cohort(world.cohorts().get(0))
                .cohort(world.cohorts().get(1))
                .nodes(world.nodes())
                .actuator(actuated::addAll)
                .build();
        world.clusterQueues().forEach(scheduler::addClusterQueue);
        world.localQueues().forEach(scheduler::addLocalQueue);
    }

    /** Runs every operation, calling {@code afterEach} after each one. */
    public void run(List<Op> ops, Consumer<Op> afterEach) {
        for (Op op : ops) {
            apply(op);
            afterEach.accept(op);
        }
    }

    public void apply(Op op) {
        if (op instanceof Submit s) {
            scheduler.submit(job(s.job()));
        } else if (op instanceof SubmitBatch b) {
            List<JobSpec> batch = new ArrayList<>();
            for (JobTemplate t : b.jobs()) {
                batch.add(job(t));
            }
            scheduler.submitAll(batch);
        } else if (op instanceof RunRound) {
            Set<String> cordoned = new HashSet<>();
            for (Node n : scheduler.nodes()) {
                if (n.unschedulable()) {
                    cordoned.add(n.name());
                }
            }
            rounds.add(new RoundRecord(scheduler.runRound(), cordoned));
        } else if (op instanceof Start st) {
            JobStatus j = pick(st.pick(), jobsIn(JobState.ADMITTED));
            if (j != null) {
                scheduler.reportStarted(j.id());
            }
        } else if (op instanceof Finish f) {
            JobStatus j = pick(f.pick(), jobsIn(JobState.ADMITTED, JobState.RUNNING));
            if (j != null) {
                if (f.failed()) {
                    scheduler.reportFailed(j.id(), "exit code 1");
                } else {
                    scheduler.reportFinished(j.id());
                }
            }
        } else if (op instanceof Cancel c) {
            JobStatus j = pick(c.pick(), scheduler.jobs());
            if (j != null) {
                scheduler.cancel(j.id());
            }
        } else if (op instanceof RemoveNode r) {
            Node n = pick(r.pick(), scheduler.nodes());
            if (n != null) {
                scheduler.removeNode(n.name());
            }
        } else if (op instanceof AddNode a) {
            scheduler.addNode(a.node().build("added-" + nextNode++));
        } else if (op instanceof Cordon c) {
            Node n = pick(c.pick(), scheduler.nodes());
            if (n != null) {
                scheduler.cordon(n.name(), c.cordoned());
            }
        } else if (op instanceof Tick t) {
            clock += t.seconds() * 1000L;
        } else {
            throw new IllegalArgumentException("unknown operation " + op);
        }
    }

    private JobSpec job(JobTemplate t) {
        String id = "j" + nextJob++;
        submitted.add(id);
        return t.build(id, world);
    }

    public List<JobStatus> jobsIn(JobState... states) {
        Set<JobState> s = Set.of(states);
        List<JobStatus> l = new ArrayList<>();
        for (JobStatus j : scheduler.jobs()) {
            if (s.contains(j.state())) {
                l.add(j);
            }
        }
        return l;
    }

    /** @return every Admit the rounds decided (including those made by admission checks) */
    public List<Admit> admits() {
        List<Admit> l = new ArrayList<>();
        for (RoundRecord r : rounds) {
            for (Decision d : r.result().decisions()) {
                if (d instanceof Admit a) {
                    l.add(a);
                }
            }
        }
        return l;
    }

    private static <T> T pick(int pick, List<T> from) {
        return from.isEmpty() ? null : from.get(pick % from.size());
    }
}
