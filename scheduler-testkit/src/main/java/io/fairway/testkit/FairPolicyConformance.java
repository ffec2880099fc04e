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
import net.jqwik.api.constraints.IntRange;

/**
 * The conformance suite plus the opt-in no-starvation properties, for policies that declare fairness. All run on two
 * 8-GPU NVSwitch nodes shared by two to three queues (each with quota for the whole cluster):
 *
 * <ul>
 *   <li>{@code noJobStarvesWithinTheStatedBound}: 1–30 jobs of 1–2 members with 1–4 GPUs each, all submitted at
 *       once and each running {@link #runRounds()} rounds once started, must all have finished within
 *       {@link #boundRounds(int)} rounds;</li>
 *   <li>{@code noJobStarvesDespiteFaultsTheClusterRecoversFrom}: the same under a random schedule of faults the
 *       cluster recovers from ({@link FaultSchedules#recoverableSchedules()}), within {@link #boundRoundsUnderFaults};</li>
 *   <li>{@code noJobStarvesUnderContinuousArrival}: jobs keep arriving ({@link ContinuousArrivals#streams()}: a
 *       steady stream of short jobs, mostly into one queue, from a light load to more than the cluster runs, and
 *       long, large, elastic or checkpointing jobs among them); each must be admitted within
 *       {@link #admissionBoundRounds} rounds of its arrival — a bound that grows with the work already there when it
 *       arrived, not with what arrives after it — and all must have finished {@link #drainRounds} rounds after the
 *       last arrival. A policy that always prefers short jobs, or one queue, fails it (see scheduler-testkit's
 *       {@code StarvationTest}).</li>
 * </ul>
 *
 * <p>What these properties do not prove: starvation on other clusters or quota set-ups than this one, under
 * priorities (every job here has priority 0), or over horizons longer than the streams drawn (at most 30 rounds of
 * arrivals); and a bound met in every try is evidence, not a proof, that it always holds.
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

    /**
     * The admission bound under continuous arrival: a job must be admitted within {@code queues} times the rounds the
     * whole cluster needs for the work already there or ahead of it when it arrived, plus the longest run and 5
     * rounds. A fair policy may put the other queues' work first (hence the factor), but not the work that arrives
     * after the job.
     *
     * @param queues the queues sharing the cluster @param gpus the cluster's GPUs
     * @param gpuRoundsAhead the other jobs' unfinished work (GPU-rounds) when the job arrived
     * @param maxRunRounds the longest run of any job
     * @return rounds after its arrival within which the job must have been admitted
     */
    protected int admissionBoundRounds(int queues, long gpus, long gpuRoundsAhead, int maxRunRounds) {
        return (int) (queues * ((gpuRoundsAhead + gpus - 1) / gpus)) + maxRunRounds + 5;
    }

    /**
     * @param stream the arrivals
     * @return rounds after the last arrival within which every job must have finished: twice the rounds the whole
     *     stream's work needs on the cluster, plus twice the longest run, plus 10
     */
    protected int drainRounds(ContinuousArrivals.Stream stream) {
        return (int) (2 * ((stream.gpuRounds() + 15) / 16)) + 2 * stream.maxRunRounds() + 10;
    }

    /**
     * Whether the policy promises {@link #admissionBoundRounds} under continuous arrival. Override it to return false
     * for a policy that promises only that every job runs once arrivals stop: {@code noJobStarvesUnderContinuousArrival}
     * then checks the drain alone (every job finished {@link #drainRounds} rounds after the last arrival).
     *
     * @return true (the default) to hold the policy to the admission bound
     */
    protected boolean boundsAdmissionUnderContinuousArrival() {
        return true;
    }

    /** @return streams of jobs arriving over time */
    @Provide
    Arbitrary<ContinuousArrivals.Stream> arrivalStreams() {
        return ContinuousArrivals.streams();
    }

    /** @param queues 2–3 queues @param stream the arrivals */
    @Property
    void noJobStarvesUnderContinuousArrival(@ForAll @IntRange(min = 2, max = 3) int queues, @ForAll("arrivalStreams") ContinuousArrivals.Stream stream) {
        ConformanceChecks.AdmissionBound bound = boundsAdmissionUnderContinuousArrival() ? this::admissionBoundRounds
                : (q, gpus, ahead, maxRun) -> Integer.MAX_VALUE / 4;
        ConformanceChecks.noStarvationUnderContinuousArrival(fairWorld(queues), stream, this::policy, bound, drainRounds(stream));
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
