package io.fairway.core.plan;

import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.spi.PendingGroup;
import io.fairway.core.admission.QueueResolver;
import io.fairway.core.snapshot.Provisioning;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import io.fairway.core.snapshot.PendingIndex;

/**
 * The pending jobs a policy may admit in one round: in submission order, per ClusterQueue in Kueue order, and in
 * groups of the snapshot's {@link PendingIndex}; each built on first use. Jobs whose queues are missing or stopped,
 * and jobs waiting for nodes under reserved quota, are left out. Also keeps the reasons the policy gave whole
 * groups at once.
 */
final class PendingView {
    private final Snapshot snapshot;
    private final QueueResolver queues;
    /** The admissible pending jobs in submission order, listed on first use (a policy that walks groups never asks). */
    private List<JobStatus> admissible;
    private final Map<String, List<JobStatus>> pendingByCq = new TreeMap<>();
    /** The policy's view of the pending groups, built on first use. */
    private List<PendingGroup> groupViews;
    /**
     * Per group of the snapshot's index, by its position there: its ClusterQueue (null: its queues are missing or
     * stopped), resolved once when the policy's view is built ({@link #groups()}); null until then.
     */
    private String[] queueAt;
    /**
     * Per group of the snapshot's index, by its position there: the reason given to its jobs from some position on,
     * or null; allocated with the policy's view (a group is given a reason in bulk only through it).
     */
    private Bulk[] bulkAt;
    /** How many groups were given a reason in bulk. */
    private int bulkCount;

    /**
     * @param snapshot the round's input
     * @param queues resolves the jobs' ClusterQueues
     * @param configuration stands for the round's configuration ({@link RoundMemory.Round#configuration()}): the
     *     groups' ClusterQueues are kept against it across rounds; null to resolve every group anew
     */
    PendingView(Snapshot snapshot, QueueResolver queues, Object configuration) {
        this.snapshot = snapshot;
        this.queues = queues;
        // a job waiting for nodes resolves to the queue that reserved for it, not its group's: resolved job by job
        this.configuration = snapshot.provisioning().reservations().isEmpty() ? configuration : null;
    }

    /** Stands for the round's configuration, or null: see the constructor. */
    private final Object configuration;

    /** The snapshot's groups, resolved once: {@link #bulk} is keyed by their identity. */
    private PendingIndex index;

    /** @return the snapshot's pending index */
    PendingIndex index() {
        if (index == null) {
            index = PendingIndex.of(snapshot);
        }
        return index;
    }

    /** The reason given to the jobs of a group from position {@code from} on. */
    record Bulk(int from, PendingReason reason) {
    }

    /**
     * A group as the policy sees it; {@code source} is null when jobs waiting for nodes were left out of it, else
     * {@code at} is its position in the snapshot's index. {@code size} is the number of its jobs (read without
     * touching the list).
     */
    private record GroupView(PendingIndex.Group source, int at, String clusterQueue, List<JobStatus> jobs, int size, int podSetsHash,
                             boolean elastic) implements PendingGroup {
    }

    /** @return true when the policy gave no group a reason in bulk */
    boolean noBulk() {
        return bulkCount == 0;
    }

    /**
     * @param at a group's position in the snapshot's index ({@link #index()})
     * @return the reason the policy gave that group from some position on, or null
     */
    Bulk bulkAt(int at) {
        return bulkAt == null ? null : bulkAt[at];
    }

    /**
     * @param at a group's position in the snapshot's index
     * @param g the group there
     * @return its ClusterQueue, or null when its queues are missing or stopped (resolved once per round)
     */
    String clusterQueueAt(int at, PendingIndex.Group g) {
        return queueAt == null ? queues.resolve(g.head()) : queueAt[at];
    }

    private void putBulk(int at, Bulk b) {
        if (bulkAt[at] == null) {
            bulkCount++;
        }
        bulkAt[at] = b;
    }

    /** @return the admissible pending jobs in submission order */
    List<JobStatus> admissible() {
        if (admissible == null) {
            List<JobStatus> l = new ArrayList<>();
            Map<String, Provisioning.Reservation> reservations = snapshot.provisioning().reservations();
            boolean anyNodeReservation = !reservations.isEmpty();
            for (JobStatus j : snapshot.pending()) {
                if (anyNodeReservation && reservations.containsKey(j.id())) {
                    continue;
                }
                if (queues.resolve(j) != null) {
                    l.add(j);
                }
            }
            admissible = l;
        }
        return admissible;
    }

    /** @return the admissible pending jobs of each ClusterQueue in Kueue order, built on first use */
    Map<String, List<JobStatus>> byClusterQueue() {
        if (pendingByCq.isEmpty() && !admissible().isEmpty()) {
            for (JobStatus j : admissible()) {
                pendingByCq.computeIfAbsent(queues.resolve(j), k -> new ArrayList<>()).add(j);
            }
            for (List<JobStatus> l : pendingByCq.values()) {
                if (!sorted(l)) {
                    l.sort(JobOrder.PRIORITY);
                }
            }
        }
        return pendingByCq;
    }

    private static boolean sorted(List<JobStatus> l) {
        for (int i = 1; i < l.size(); i++) {
            if (JobOrder.PRIORITY.compare(l.get(i - 1), l.get(i)) > 0) {
                return false;
            }
        }
        return true;
    }

    /** @return the groups of admissible jobs, built on first use */
    List<PendingGroup> groups() {
        if (groupViews == null) {
            Map<String, Provisioning.Reservation> reservations = snapshot.provisioning().reservations();
            List<PendingGroup> views = new ArrayList<>();
            List<PendingIndex.Group> all = index().groups();
            String[] resolved = new String[all.size()];
            for (int at = 0; at < resolved.length; at++) {
                PendingIndex.Group g = all.get(at);
                String cq = configuration == null ? queues.resolve(g.head()) : g.clusterQueueUnder(configuration, queues::resolve);
                resolved[at] = cq;
                if (cq == null) {
                    continue;
                }
                List<JobStatus> jobs = g.jobs();
                boolean filtered = false;
                if (!reservations.isEmpty()) {
                    List<JobStatus> kept = new ArrayList<>();
                    for (JobStatus j : jobs) {
                        if (!reservations.containsKey(j.id())) {
                            kept.add(j);
                        }
                    }
                    filtered = kept.size() != jobs.size();
                    jobs = List.copyOf(kept);
                }
                if (!jobs.isEmpty()) {
                    views.add(new GroupView(filtered ? null : g, at, cq, jobs, jobs.size(), g.key().podSetsHash(), g.elastic()));
                }
            }
            queueAt = resolved;
            bulkAt = new Bulk[resolved.length];
            groupViews = Collections.unmodifiableList(views);
        }
        return groupViews;
    }

    /**
     * @return true when every job of the group carries {@code reason} (the same object): the group is one of
     *     {@link #groups()} as the index holds it, and the index found its jobs sharing that reason
     */
    boolean carriesOne(PendingGroup group, PendingReason reason) {
        return group instanceof GroupView v && v.source() != null && groupViews != null && v.source().commonReason() == reason;
    }

    /**
     * @param group a group the policy holds
     * @return its number of jobs (for the groups this view made, read without touching their lists)
     */
    static int sizeOf(PendingGroup group) {
        return group instanceof GroupView v ? v.size() : group.jobs().size();
    }

    /**
     * @param group a group the policy holds
     * @return the index's group it stands for, or null when it is not one of {@link #groups()} as the index holds it
     */
    PendingIndex.Group sourceOf(PendingGroup group) {
        return group instanceof GroupView v && groupViews != null ? v.source() : null;
    }

    /**
     * Leaves a group whose jobs all carry {@code carried} with it, as {@link #leaveWaiting} with that reason would.
     *
     * @return false when the group is not one of {@link #groups()} as the index holds it, or carries no one reason
     */
    boolean markStood(PendingGroup group, PendingReason carried) {
        if (!carriesOne(group, carried)) {
            return false;
        }
        putBulk(((GroupView) group).at(), new Bulk(0, carried));
        return true;
    }

    /**
     * Records one reason for a group's jobs from a position on, when the group is one of {@link #groups()} as the
     * index holds it.
     *
     * @return false when the group is not such a one (the caller then records the reason per job)
     */
    boolean leaveWaiting(PendingGroup group, int fromIndex, PendingReason reason) {
        if (group instanceof GroupView v && v.source() != null && groupViews != null && fromIndex >= 0) {
            if (fromIndex < v.size()) {
                putBulk(v.at(), new Bulk(fromIndex, reason));
            }
            return true;
        }
        return false;
    }
}
