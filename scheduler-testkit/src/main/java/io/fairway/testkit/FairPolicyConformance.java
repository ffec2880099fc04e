package io.fairway.testkit;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.Resources;
import io.fairway.testkit.FairwayArbitraries.JobTemplate;
import io.fairway.testkit.FairwayArbitraries.NodeTemplate;
import io.fairway.testkit.FairwayArbitraries.QueueTemplate;
import io.fairway.testkit.FairwayArbitraries.QuotaTemplate;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The conformance suite plus the opt-in no-starvation property, for policies that declare fairness: on two 8-GPU
 * NVSwitch nodes shared by two to three queues (each with quota for the whole cluster), 1–30 jobs of 1–2 members with
 * 1–4 GPUs each, all submitted at once and each running {@link #runRounds()} rounds once started, must all have
 * finished within {@link #boundRounds(int)} rounds — and, under a random schedule of faults the cluster recovers
 * from ({@link FaultSchedules#recoverableSchedules()}), within {@link #boundRoundsUnderFaults}.
 */
public abstract class FairPolicyConformance extends PolicyConformance {

    /** @return rounds each job runs once started (default 2) */
    protected int runRounds() {
        return 2;
    }

    /**
     * The stated bound: with at most 8 GPU-rounds per member and 16 GPUs, {@code jobs} jobs need at most
     * {@code jobs * runRounds} rounds run back to back; the default allows twice that plus 10.
     *
     * @param jobs the number of jobs @return rounds within which every job must have finished
     */
    protected int boundRounds(int jobs) {
        return 2 * jobs * runRounds() + 10;
    }

    /**
     * The bound under faults: the fault-free bound, plus the rounds until the last fault, plus {@code 2 * runRounds
     * + 6} rounds for each fault (a node or cluster down for up to 4 rounds, a run cut short and started again).
     *
     * @param jobs the number of jobs @param faults the faults
     * @return rounds within which every job must have finished
     */
    protected int boundRoundsUnderFaults(int jobs, FaultSchedules.FaultSchedule faults) {
        return boundRounds(jobs) + faults.lastRound() + 1 + faults.faults().size() * (2 * runRounds() + 6);
    }

    /** @return fault schedules the small cluster recovers from */
    @Provide
    Arbitrary<FaultSchedules.FaultSchedule> recoverableFaults() {
        return FaultSchedules.recoverableSchedules();
    }

    /** @return a small fixed cluster with 2–3 queues, each able to hold the whole cluster */
    @Provide
    Arbitrary<World> fairWorlds() {
        return Arbitraries.integers().between(2, 3).map(FairPolicyConformance::fairWorld);
    }

    static World fairWorld(int queues) {
        List<Node> nodes = List.of(new NodeTemplate("nvswitch-8", 128, 1024, 0, false).build("n0"),
                new NodeTemplate("nvswitch-8", 128, 1024, 1, false).build("n1"));
        List<QuotaTemplate> whole = List.of(new QuotaTemplate(256_000, 0, 0), new QuotaTemplate(2048L << 30, 0, 0), new QuotaTemplate(16, 0, 0));
        List<io.fairway.api.model.ClusterQueue> cqs = new ArrayList<>();
        List<LocalQueue> lqs = new ArrayList<>();
        for (int i = 0; i < queues; i++) {
            cqs.add(new QueueTemplate(-1, false, false, whole, whole, PreemptionPolicy.NEVER).build("cq" + i));
            lqs.add(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq" + i, "cq" + i));
        }
        return new World(nodes, List.of(Cohort.of("co0", null), Cohort.of("co1", null)), cqs, lqs);
    }

    /** @return 1–30 jobs of one pod set of 1–2 members with 1, 2 or 4 GPUs, in any queue, priorities 0–3 */
    @Provide
    Arbitrary<List<JobTemplate>> fairJobs() {
        Arbitrary<PodSet> ps = Combinators.combine(Arbitraries.integers().between(1, 2), Arbitraries.of(1, 2, 4))
                .as((n, g) -> PodSet.of("ps0", n, Resources.builder().gpus(g).cpu(4).memoryGiB(16).build()));
        return Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, 3), ps)
                .as((q, p, s) -> new JobTemplate(q, p, List.of(s))).list().ofMinSize(1).ofMaxSize(30);
    }

    /** @param world the world @param jobs the jobs */
    @Property
    void noJobStarvesWithinTheStatedBound(@ForAll("fairWorlds") World world, @ForAll("fairJobs") List<JobTemplate> jobs) {
        ConformanceChecks.noStarvation(world, jobs, this::policy, runRounds(), boundRounds(jobs.size()));
    }

    /** @param world the world @param jobs the jobs @param faults faults the cluster recovers from */
    @Property
    void noJobStarvesDespiteFaultsTheClusterRecoversFrom(@ForAll("fairWorlds") World world, @ForAll("fairJobs") List<JobTemplate> jobs,
                                                         @ForAll("recoverableFaults") FaultSchedules.FaultSchedule faults) {
        ConformanceChecks.noStarvationDespiteFaults(world, jobs, faults, this::policy, runRounds(),
                boundRoundsUnderFaults(jobs.size(), faults));
    }
}
