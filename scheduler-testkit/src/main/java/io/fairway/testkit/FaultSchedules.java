package io.fairway.testkit;

import io.fairway.api.model.Node;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * jqwik generators for faults at rounds, to run a policy under a random job stream and a random fault schedule
 * ({@link ConformanceChecks#everyInvariantUnderFaults}):
 *
 * <ul>
 *   <li>{@link NodeFailure}: a node is lost ({@code Scheduler.removeNode}) and, usually, comes back some rounds later
 *       ({@code addNode});</li>
 *   <li>{@link SpotInterruption}: a spot interruption notice drains the node ({@code drainNode}: cordoned, its jobs
 *       migrate) and the node goes away when the notice runs out, sometimes replaced by a fresh node;</li>
 *   <li>{@link ClusterLoss}: a whole cluster is lost, either at once ({@code removeCluster}) or because its executor
 *       falls silent and the {@code ExecutorHub} declares it lost after its grace period; it usually rejoins
 *       later;</li>
 *   <li>{@link ActuatorFailure}: the actuator fails to start an admitted job ({@code reportFailed}), evicts a running
 *       one on its own ({@code reportEvicted}), throws while applying a round's decisions, or reports late about a
 *       run that is no longer current (a stale epoch, which must be refused).</li>
 * </ul>
 *
 * Nodes, clusters and jobs are picked modulo the candidates present when the fault strikes, so every schedule
 * applies to every world.
 */
public final class FaultSchedules {
    /** The clusters {@link #multiClusterWorlds()} spreads nodes over. */
    public static final List<String> CLUSTERS = List.of(Node.DEFAULT_CLUSTER, "east", "west");

    private FaultSchedules() {
    }

    /** One fault. */
    public sealed interface Fault {
    }

    /**
     * A node is lost; it comes back after {@code recoverAfterRounds} rounds, or never when that is negative.
     *
     * @param pick the node (modulo the nodes present) @param recoverAfterRounds rounds until it comes back, or -1
     */
    public record NodeFailure(int pick, int recoverAfterRounds) implements Fault {
    }

    /**
     * A spot interruption notice: the node is drained at once and removed after {@code noticeRounds} rounds; when
     * {@code replaced}, a fresh node of the same shape joins then.
     *
     * @param pick the node (modulo the nodes present) @param noticeRounds rounds of notice @param replaced whether
     *     a replacement joins
     */
    public record SpotInterruption(int pick, int noticeRounds, boolean replaced) implements Fault {
    }

    /**
     * A whole cluster is lost: at once ({@code removeCluster}) or, when {@code viaExecutorHub}, by its executor
     * falling silent until the hub declares it lost; it rejoins after {@code recoverAfterRounds} rounds, or never
     * when that is negative.
     *
     * @param pick the cluster (modulo the clusters with nodes) @param viaExecutorHub how it is lost
     * @param recoverAfterRounds rounds until it rejoins, or -1
     */
    public record ClusterLoss(int pick, boolean viaExecutorHub, int recoverAfterRounds) implements Fault {
    }

    /** How the actuator fails. */
    public enum ActuatorFailureKind {
        /** It could not start an admitted job and reports it failed. */
        FAILED_TO_START,
        /** It evicted a running job on its own (a kubelet eviction, an unannounced spot reclaim). */
        EVICTED,
        /** It throws while applying the next round's decisions (a time-out, an API server down). */
        THROWS,
        /** A report about a job's earlier run arrives late, with a stale epoch: the engine must refuse it. */
        STALE_REPORT
    }

    /**
     * The actuator fails.
     *
     * @param pick the job (modulo the candidates) @param kind how
     */
    public record ActuatorFailure(int pick, ActuatorFailureKind kind) implements Fault {
    }

    /**
     * A fault striking just before the given round runs.
     *
     * @param round the round (0 = before the first) @param fault the fault
     */
    public record ScheduledFault(int round, Fault fault) {
    }

    /**
     * A schedule of faults, sorted by round.
     *
     * @param faults the faults
     */
    public record FaultSchedule(List<ScheduledFault> faults) {
        /** Sorts and copies. */
        public FaultSchedule {
            List<ScheduledFault> l = new ArrayList<>(faults);
            l.sort(Comparator.comparingInt(ScheduledFault::round));
            faults = List.copyOf(l);
        }

        /** @param round a round @return the faults striking before it, in schedule order */
        public List<Fault> at(int round) {
            List<Fault> l = new ArrayList<>();
            for (ScheduledFault f : faults) {
                if (f.round() == round) {
                    l.add(f.fault());
                }
            }
            return l;
        }

        /** @return the last round with a fault, or -1 when there is none */
        public int lastRound() {
            return faults.isEmpty() ? -1 : faults.get(faults.size() - 1).round();
        }
    }

    /** @return a single fault of any kind; node failures and actuator failures most often */
    public static Arbitrary<Fault> faults() {
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 1_000);
        Arbitrary<Integer> recover = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(-1)), Tuple.of(4, Arbitraries.integers().between(1, 6)));
        return Arbitraries.frequencyOf(
                Tuple.of(4, Combinators.combine(pick, recover).as(NodeFailure::new)),
                Tuple.of(3, Combinators.combine(pick, Arbitraries.integers().between(0, 2), Arbitraries.of(true, false)).as(SpotInterruption::new)),
                Tuple.of(2, Combinators.combine(pick, Arbitraries.of(true, false), recover).as(ClusterLoss::new)),
                Tuple.of(4, Combinators.combine(pick, Arbitraries.of(ActuatorFailureKind.class)).as(ActuatorFailure::new)));
    }

    /** @return schedules of 0–8 faults, each striking before one of the first 12 rounds */
    public static Arbitrary<FaultSchedule> schedules() {
        return Combinators.combine(Arbitraries.integers().between(0, 11), faults()).as(ScheduledFault::new)
                .list().ofMinSize(0).ofMaxSize(8).map(FaultSchedule::new);
    }

    /**
     * @return schedules of 0–6 faults in the first 8 rounds that the cluster recovers from: lost nodes and clusters
     *     come back within 1–4 rounds, interrupted spot nodes are replaced, the actuator evicts jobs, throws or
     *     reports late but never fails a job for good — so under a fair policy every job must still finish
     */
    public static Arbitrary<FaultSchedule> recoverableSchedules() {
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 1_000);
        Arbitrary<Integer> recover = Arbitraries.integers().between(1, 4);
        Arbitrary<Fault> fault = Arbitraries.frequencyOf(
                Tuple.of(4, Combinators.combine(pick, recover).as(NodeFailure::new)),
                Tuple.of(3, Combinators.combine(pick, Arbitraries.integers().between(0, 2)).as((p, n) -> new SpotInterruption(p, n, true))),
                Tuple.of(2, Combinators.combine(pick, Arbitraries.of(true, false), recover).as(ClusterLoss::new)),
                Tuple.of(4, Combinators.combine(pick, Arbitraries.of(ActuatorFailureKind.EVICTED, ActuatorFailureKind.THROWS,
                        ActuatorFailureKind.STALE_REPORT)).as(ActuatorFailure::new)));
        return Combinators.combine(Arbitraries.integers().between(0, 7), fault).as(ScheduledFault::new)
                .list().ofMinSize(0).ofMaxSize(6).map(FaultSchedule::new);
    }

    /**
     * @return the worlds of {@link FairwayArbitraries#worlds()} with their nodes spread over one to three clusters
     *     ({@link #CLUSTERS}), so that losing a cluster leaves others running
     */
    public static Arbitrary<World> multiClusterWorlds() {
        return Combinators.combine(FairwayArbitraries.worlds(), Arbitraries.integers().between(1, 3)).as((w, clusters) -> {
            List<Node> nodes = new ArrayList<>();
            for (int i = 0; i < w.nodes().size(); i++) {
                Node n = w.nodes().get(i);
                nodes.add(new Node(n.name(), CLUSTERS.get(i % clusters), n.labels(), n.taints(), n.capacity(), n.gpus(), n.unschedulable()));
            }
            return new World(nodes, w.cohorts(), w.clusterQueues(), w.localQueues());
        });
    }
}
