package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.testkit.FairwayArbitraries.Op;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/**
 * The conformance suite a scheduling policy must pass. Extend it, return a fresh instance of your policy, and run it
 * with JUnit (jqwik engine):
 *
 * <pre>{@code
 * class MyPolicyConformanceTest extends PolicyConformance {
 *     protected SchedulingPolicy policy() { return new MyPolicy(); }
 * }
 * }</pre>
 *
 * <p>Each property draws random clusters (every ready-made GPU shape, racks as a topology level, two flavors),
 * ClusterQueues in cohorts with borrowing and lending limits, and random interleavings of submissions (gangs,
 * priorities, topology constraints, job sets), rounds, starts, finishes, failures, cancellations, job-set and queue
 * operations (cancel a job set, change its priority, cancel or stop a queue), node loss, node additions, cordons and
 * clock ticks, and checks one invariant after every operation. One more property runs the same streams on clusters
 * spread over one to three clusters while a random {@link FaultSchedules fault schedule} strikes (node failure and
 * recovery, spot interruptions, cluster loss, actuator failures) and checks every invariant after every step. Tries per property come from jqwik's
 * default ({@code -Djqwik.tries.default=…}, or {@code -Djqwik.tries=…} through the Fairway build). Policies that
 * promise fairness extend {@link FairPolicyConformance}, which adds a bounded no-starvation property.
 */
public abstract class PolicyConformance {

    /** @return a fresh instance of the policy under test (called once per scheduler the suite builds) */
    protected abstract SchedulingPolicy policy();

    /** @return random worlds */
    @Provide
    Arbitrary<World> worlds() {
        return FairwayArbitraries.worlds();
    }

    /** @return random operation lists */
    @Provide
    Arbitrary<List<Op>> operations() {
        return FairwayArbitraries.operationLists();
    }

    /** @return random worlds whose nodes are spread over one to three clusters */
    @Provide
    Arbitrary<World> multiClusterWorlds() {
        return FaultSchedules.multiClusterWorlds();
    }

    /** @return random fault schedules */
    @Provide
    Arbitrary<FaultSchedules.FaultSchedule> faultSchedules() {
        return FaultSchedules.schedules();
    }

    /** @param world the world @param ops the operations */
    @Property
    void capacityIsNeverExceededAndNoGpuIsGivenTwice(@ForAll("worlds") World world, @ForAll("operations") List<Op> ops) {
        ConformanceChecks.capacityAndGpuExclusivity(world, ops, this::policy);
    }

    /** @param world the world @param ops the operations */
    @Property
    void gangsArePlacedWholeAndKeepTheirTopology(@ForAll("worlds") World world, @ForAll("operations") List<Op> ops) {
        ConformanceChecks.gangAtomicityAndTopology(world, ops, this::policy);
    }

    /** @param world the world @param ops the operations */
    @Property
    void quotaHoldsAtEveryLevelOfTheCohortTree(@ForAll("worlds") World world, @ForAll("operations") List<Op> ops) {
        ConformanceChecks.quotaAtEveryLevel(world, ops, this::policy);
    }

    /** @param world the world @param ops the operations */
    @Property
    void everyJobIsInExactlyOneStateNoneLostAndEveryPendingJobHasAReason(@ForAll("worlds") World world, @ForAll("operations") List<Op> ops) {
        ConformanceChecks.oneStatePerJobNoneLostAndAReasonForEveryPendingJob(world, ops, this::policy);
    }

    /** @param world the world @param ops the operations @param seed the seed */
    @Property
    void theSameSeedAndOperationsGiveTheSameDecisions(@ForAll("worlds") World world, @ForAll("operations") List<Op> ops,
                                                      @ForAll @LongRange(min = 0, max = 1_000) long seed) {
        ConformanceChecks.determinism(world, ops, this::policy, seed);
    }

    /** @param world the world @param ops the operations */
    @Property
    void thePolicyNeverProposesWhatTheCoreMustRefuse(@ForAll("worlds") World world, @ForAll("operations") List<Op> ops) {
        ConformanceChecks.noPlanIsRefused(world, ops, this::policy);
    }

    /** @param world the world @param ops the operations @param faults the faults */
    @Property
    void everyInvariantHoldsAfterEveryRoundUnderFaults(@ForAll("multiClusterWorlds") World world, @ForAll("operations") List<Op> ops,
                                                       @ForAll("faultSchedules") FaultSchedules.FaultSchedule faults) {
        ConformanceChecks.everyInvariantUnderFaults(world, ops, faults, this::policy);
    }
}
