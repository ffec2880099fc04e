package io.fairway.core.plan;

import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.Node;
import io.fairway.core.admission.QuotaBook;
import io.fairway.core.placement.CapacityPlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the jobs holding resources charge — their members' capacity on their nodes and their quota — kept by the
 * engine across rounds and changed by change: a job that starts holding, stops holding (it ends, is preempted,
 * evicted or loses its node) or holds differently (resized, renewed, re-admitted) is given back and charged again,
 * and nothing else is touched. Changes are noted as they happen and followed when the next round asks; when they
 * outnumber the holding jobs (every job changed: churn), charging every job again is the cheaper way and is taken. A round then starts from a copy ({@link #forRound}): O(nodes + queues) instead of
 * charging every holding job into a fresh plan.
 *
 * <p>It is rebuilt from scratch, charging every holding job, whenever it cannot follow what changed: the nodes are
 * not the very same objects in the same order (a node added, removed, cordoned or changed), the clusters,
 * ClusterQueues or cohorts are not equal to those it was built for (a reconfiguration), the engine says it lost track
 * ({@link #invalidate}: a restore), or its job count is not the engine's. While a charged job names a resource no
 * node has, or a (flavor, resource) pair no quota lists, it hands out nothing and rounds charge from scratch, so that
 * the numbering of resources is exactly a fresh plan's.
 *
 * <p>Not thread-safe: the engine calls it with its state lock held. What {@link #forRound} returns belongs to the
 * round alone.
 */
public final class HeldCharges {
    private List<Node> nodes;
    private Map<String, ClusterSpec> clusters;
    private Map<String, ClusterQueue> clusterQueues;
    private Map<String, Cohort> cohorts;
    private CapacityPlan cap;
    private QuotaBook quota;
    private int configuredPairs;
    /** The holding jobs charged, by id: the status each was charged as (its spec and admission). */
    private final Map<String, JobStatus> charged = new HashMap<>();
    /**
     * The changes since the last round, as (before, after) pairs: followed when the next round asks, or dropped for
     * a rebuild when they outnumber the jobs (a round after which every job changed costs one charge per job, as
     * from scratch, not two).
     */
    private final List<JobStatus> log = new ArrayList<>();
    private long rebuilds;
    private long changes;

    /** The capacity and quota a round starts from: every holding job charged, nothing else (the round's own copies). */
    public record Charged(CapacityPlan capacity, QuotaBook quota) {
    }

    /** Creates an empty keeper: it is built on the first {@link #forRound}. */
    public HeldCharges() {
    }

    /**
     * A job's status changed: what it held before (if it held resources) is given back and what it holds now (if
     * it does) is charged. A change that keeps its spec and admission (a start, say) changes nothing.
     *
     * @param before its status before, or null for a job the engine did not have
     * @param after its status now, or null for a job the engine no longer has
     */
    public void changed(JobStatus before, JobStatus after) {
        if (cap == null) {
            return; // built from the engine's jobs when next asked
        }
        log.add(before);
        log.add(after);
        if (log.size() > 2 * (charged.size() + 1024L)) {
            invalidate(); // far more changes than jobs: charging them all again is cheaper than following them
        }
    }

    /**
     * Applies the changes noted since the last round: each changed job's last status is compared with what it was
     * charged as; every job that holds less or differently is given back first, and only then is what each holds now
     * charged. Capacity sums do not depend on the order, but a GPU is one bit: followed one by one in the order the
     * engine applied them, a change that takes a GPU another job gives back later in the same batch (a resize that
     * grows onto GPUs a preemption of the same round frees, applied before that preemption) would have the give-back
     * clear the bit the newer holder set, and the next round would see that GPU free while a job holds it.
     */
    private void follow() {
        Map<String, JobStatus> last = new LinkedHashMap<>();
        for (int i = 0; i < log.size(); i += 2) {
            JobStatus before = log.get(i);
            JobStatus after = log.get(i + 1);
            if (before != null || after != null) {
                last.put(after != null ? after.id() : before.id(), after);
            }
        }
        log.clear();
        List<JobStatus> toCharge = new ArrayList<>();
        for (Map.Entry<String, JobStatus> e : last.entrySet()) {
            JobStatus after = e.getValue();
            boolean holds = after != null && after.state().holdsResources();
            JobStatus was = charged.get(e.getKey());
            if (was != null && holds && was.spec() == after.spec() && was.admission() == after.admission()) {
                charged.put(e.getKey(), after); // holds as charged (a start, say): nothing to do
                continue;
            }
            if (was != null) {
                charged.remove(e.getKey());
                TentativePlan.chargeInPlace(cap, quota, was.spec(), was.admission(), -1);
                changes++;
            }
            if (holds) {
                toCharge.add(after);
            }
        }
        for (JobStatus after : toCharge) {
            charged.put(after.id(), after);
            TentativePlan.chargeInPlace(cap, quota, after.spec(), after.admission(), +1);
            changes++;
        }
    }

    /** Drops what is kept: the next {@link #forRound} charges every holding job again (after a restore, say). */
    public void invalidate() {
        cap = null;
        quota = null;
        charged.clear();
        log.clear();
    }

    /**
     * The capacity and quota a round starts from, as copies the round may change.
     *
     * @param nodes the nodes, in the snapshot's order
     * @param clusters the clusters
     * @param clusterQueues the ClusterQueues
     * @param cohorts the cohorts
     * @param holding every job holding resources now (charged from scratch when the keeper cannot follow)
     * @return the round's starting capacity and quota, or null when the round should charge its jobs itself
     */
    public Charged forRound(List<Node> nodes, Map<String, ClusterSpec> clusters, Map<String, ClusterQueue> clusterQueues,
                            Map<String, Cohort> cohorts, java.util.Collection<JobStatus> holding) {
        if (cap == null || !sameNodes(nodes) || !clusters.equals(this.clusters) || !clusterQueues.equals(this.clusterQueues)
                || !cohorts.equals(this.cohorts) || log.size() / 2 > holding.size()) {
            rebuild(nodes, clusters, clusterQueues, cohorts, holding);
        } else {
            follow();
            if (charged.size() != holding.size()) {
                rebuild(nodes, clusters, clusterQueues, cohorts, holding);
            }
        }
        if (!cap.namesOnlyNodeResources() || quota.pairCount() != configuredPairs) {
            return null;
        }
        return new Charged(cap.copy(), quota.copy());
    }

    private void rebuild(List<Node> nodes, Map<String, ClusterSpec> clusters, Map<String, ClusterQueue> clusterQueues,
                         Map<String, Cohort> cohorts, java.util.Collection<JobStatus> holding) {
        rebuilds++;
        this.nodes = new ArrayList<>(nodes);
        this.clusters = Map.copyOf(clusters);
        this.clusterQueues = Map.copyOf(clusterQueues);
        this.cohorts = Map.copyOf(cohorts);
        this.cap = new CapacityPlan(nodes, clusters);
        this.quota = new QuotaBook(clusterQueues, cohorts);
        this.configuredPairs = quota.pairCount();
        charged.clear();
        log.clear();
        for (JobStatus j : holding) {
            charged.put(j.id(), j);
            TentativePlan.chargeInPlace(cap, quota, j.spec(), j.admission(), +1);
        }
    }

    private boolean sameNodes(List<Node> now) {
        if (now.size() != nodes.size()) {
            return false;
        }
        for (int i = 0; i < now.size(); i++) {
            if (now.get(i) != nodes.get(i)) {
                return false;
            }
        }
        return true;
    }

    /** @return how many times it was built from scratch (for tests) */
    public long rebuilds() {
        return rebuilds;
    }

    /** @return how many jobs it charged or gave back by change since it was made (for tests) */
    public long changes() {
        return changes;
    }
}
