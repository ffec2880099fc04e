package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.ResourceFlavor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import io.fairway.core.snapshot.Provisioning;

/**
 * A scheduler's queueing configuration, Kueue's vocabulary: resource flavors, cohorts, ClusterQueues and
 * LocalQueues, changed while the scheduler runs; and each ClusterQueue's usage over time. Obtained from
 * {@link Scheduler#queues()}.
 *
 * <pre>{@code
 * scheduler.queues().addClusterQueue(ClusterQueue.builder("team-b").quota("default", Resources.builder().gpus(8).build()).build());
 * scheduler.queues().addLocalQueue(new LocalQueue("team-b", "gpu", "team-b"));
 * scheduler.queues().stopClusterQueue("team-a", true);   // admits nothing new; what runs keeps running
 * }</pre>
 *
 * <p>Every change validates first and changes nothing when it throws ({@link InvalidSpecException}, naming the
 * field and the value).
 *
 * <p>A change may leave a ClusterQueue or a cohort above its new quota (a lender removed or moved, a nominal quota,
 * borrowing or lending limit lowered, a queue moved to another cohort). As in Kueue, the change is accepted and what
 * runs keeps running; nothing new is admitted into the over-used part until enough of that work ends, and queues
 * whose preemption policy allows it reclaim their nominal quota by preemption as usual. Rounds go on.
 */
public final class Queues {
    private final EngineState state;

    Queues(EngineState state) {
        this.state = state;
    }

    /**
     * @param flavor a ResourceFlavor
     * @throws InvalidSpecException when a flavor of that name exists
     */
    public void addFlavor(ResourceFlavor flavor) {
        InvalidSpecException.requireNonNull("flavor", flavor);
        state.withLock(() -> {
            InvalidSpecException.check(!state.flavors.containsKey(flavor.name()), "flavor.name", flavor.name(), "flavor %s already exists", flavor.name());
            state.flavors.put(flavor.name(), flavor);
        });
    }

    /**
     * Replaces a flavor's definition (its node labels, taints, tolerations); admitted jobs keep their placement.
     *
     * @param flavor the new definition
     * @throws InvalidSpecException when no flavor of that name exists
     */
    public void updateFlavor(ResourceFlavor flavor) {
        InvalidSpecException.requireNonNull("flavor", flavor);
        state.withLock(() -> {
            InvalidSpecException.check(state.flavors.containsKey(flavor.name()), "flavor.name", flavor.name(), "flavor %s does not exist", flavor.name());
            state.flavors.put(flavor.name(), flavor);
        });
    }

    /**
     * Removes a flavor no ClusterQueue or cohort refers to.
     *
     * @param name the flavor
     * @return true when it existed
     * @throws InvalidSpecException naming a queue that still refers to it
     */
    public boolean removeFlavor(String name) {
        InvalidSpecException.requireNonNull("name", name);
        return state.withLock(() -> {
            for (ClusterQueue q : state.clusterQueues.values()) {
                InvalidSpecException.check(!q.flavorNames().contains(name), "flavor", name, "flavor %s is still used by ClusterQueue %s", name, q.name());
            }
            for (Cohort c : state.cohorts.values()) {
                c.resourceGroups().forEach(g -> g.flavors().forEach(f -> InvalidSpecException.check(!f.flavor().equals(name), "flavor", name,
                        "flavor %s is still used by cohort %s", name, c.name())));
            }
            return state.flavors.remove(name) != null;
        });
    }

    /**
     * @param cohort a cohort
     * @throws InvalidSpecException when it exists or its parent chain would form a cycle
     */
    public void addCohort(Cohort cohort) {
        InvalidSpecException.requireNonNull("cohort", cohort);
        state.withLock(() -> {
            InvalidSpecException.check(!state.cohorts.containsKey(cohort.name()), "cohort.name", cohort.name(), "cohort %s already exists", cohort.name());
            addCohortLocked(cohort);
        });
    }

    /**
     * Replaces a cohort's definition (its parent, quota and weight), refusing a cycle.
     *
     * @param cohort the new definition
     */
    public void updateCohort(Cohort cohort) {
        InvalidSpecException.requireNonNull("cohort", cohort);
        state.withLock(() -> {
            Cohort old = state.cohorts.remove(cohort.name());
            try {
                addCohortLocked(cohort);
            } catch (InvalidSpecException e) {
                if (old != null) {
                    state.cohorts.put(old.name(), old);
                }
                throw e;
            }
        });
    }

    /**
     * Removes a cohort; queues naming it keep an implicit cohort of that name without quota of its own.
     *
     * @param name the cohort
     * @return true when it existed
     */
    public boolean removeCohort(String name) {
        InvalidSpecException.requireNonNull("name", name);
        return state.withLock(() -> {
            boolean had = state.cohorts.remove(name) != null;
            state.allowOverUse();
            return had;
        });
    }

    private void addCohortLocked(Cohort cohort) {
        cohort.resourceGroups().forEach(g -> g.flavors().forEach(f -> InvalidSpecException.check(state.flavors.containsKey(f.flavor()),
                "cohort[" + cohort.name() + "].flavors", f.flavor(), "cohort %s: flavor %s is not defined", cohort.name(), f.flavor())));
        Set<String> seen = new HashSet<>();
        seen.add(cohort.name());
        String p = cohort.parent();
        List<String> path = new ArrayList<>(List.of(cohort.name()));
        while (p != null) {
            path.add(p);
            InvalidSpecException.check(seen.add(p), "cohort[" + cohort.name() + "].parent", cohort.parent(),
                    "cohort %s: parent %s would make a cycle in the cohort tree: %s", cohort.name(), cohort.parent(), String.join(" -> ", path));
            Cohort pc = state.cohorts.get(p);
            p = pc == null ? null : pc.parent();
        }
        state.cohorts.put(cohort.name(), cohort);
        state.allowOverUse();
    }

    /**
     * Adds a ClusterQueue, or replaces one of the same name (its admitted jobs keep their admission).
     *
     * @param queue the ClusterQueue
     * @throws InvalidSpecException when it names a flavor that is not defined
     */
    public void addClusterQueue(ClusterQueue queue) {
        InvalidSpecException.requireNonNull("queue", queue);
        state.withLock(() -> {
            for (String f : queue.flavorNames()) {
                InvalidSpecException.check(state.flavors.containsKey(f), "clusterQueue[" + queue.name() + "].flavors", f,
                        "ClusterQueue %s: flavor %s is not defined (defined: %s)", queue.name(), f, state.flavors.keySet());
            }
            for (String c : queue.admissionChecks()) {
                InvalidSpecException.check(state.admissionChecks.containsKey(c), "clusterQueue[" + queue.name() + "].admissionChecks", c,
                        "ClusterQueue %s: admission check %s is not registered (registered: %s)", queue.name(), c, state.admissionChecks.keySet());
            }
            state.clusterQueues.put(queue.name(), queue);
            state.allowOverUse();
        });
    }

    /**
     * Removes a ClusterQueue that holds nothing; its pending jobs wait with reason {@code CLUSTER_QUEUE_NOT_FOUND}
     * (and are admitted again if a ClusterQueue of that name comes back).
     *
     * <p>A ClusterQueue whose jobs still hold resources (quota reserved, admitted or running) or quota reserved
     * for a node request is not removed: the call is refused, naming those jobs, and nothing changes (as Kueue
     * keeps a ClusterQueue with admitted workloads until they finish). To retire a busy queue, stop it
     * ({@link #stopClusterQueue}) and let its jobs finish, or cancel them ({@link Jobs#cancelQueue}), then remove it.
     *
     * @param name the ClusterQueue
     * @return true when it existed (and was removed), false when there was none
     * @throws InvalidSpecException when jobs still hold resources in it
     */
    public boolean removeClusterQueue(String name) {
        InvalidSpecException.requireNonNull("name", name);
        return state.withLock(() -> {
            if (!state.clusterQueues.containsKey(name)) {
                return false;
            }
            List<String> holders = new ArrayList<>();
            for (JobStatus j : state.jobs.holding.values()) {
                if (j.admission() != null && name.equals(j.admission().clusterQueue())) {
                    holders.add(j.id());
                }
            }
            for (Provisioning.Reservation r : state.pools.reservations.values()) {
                if (name.equals(r.clusterQueue())) {
                    holders.add(r.jobId());
                }
            }
            if (!holders.isEmpty()) {
                throw new InvalidSpecException("clusterQueue", name, "ClusterQueue " + name + " still holds resources for " + holders.size()
                        + " job(s) " + holders.subList(0, Math.min(10, holders.size())) + (holders.size() > 10 ? "…" : "")
                        + "; stop it and let them finish, or cancel them (cancelQueue), before removing it");
            }
            state.clusterQueues.remove(name);
            state.decayedUsage.remove(name); // its usage history goes with it (a queue added later under that name starts afresh)
            state.allowOverUse();
            return true;
        });
    }

    /**
     * Cordons a ClusterQueue (Armada: cordon a queue): it admits nothing new; what runs keeps running.
     *
     * @param clusterQueue the ClusterQueue
     * @param stopped true to cordon, false to reopen
     */
    public void stopClusterQueue(String clusterQueue, boolean stopped) {
        InvalidSpecException.requireNonNull("clusterQueue", clusterQueue);
        state.withLock(() -> {
            ClusterQueue q = state.clusterQueues.get(clusterQueue);
            if (q == null) {
                throw new InvalidSpecException("clusterQueue", clusterQueue, "ClusterQueue " + clusterQueue + " does not exist");
            }
            state.clusterQueues.put(clusterQueue, q.withStopped(stopped));
        });
    }

    /**
     * Adds a LocalQueue (its ClusterQueue may be created later: jobs wait with that reason meanwhile).
     *
     * @param queue the LocalQueue
     * @throws InvalidSpecException when one with that namespace and name exists
     */
    public void addLocalQueue(LocalQueue queue) {
        InvalidSpecException.requireNonNull("queue", queue);
        state.withLock(() -> {
            InvalidSpecException.check(!state.localQueues.containsKey(queue.key()), "localQueue", queue.key(), "LocalQueue %s already exists", queue.key());
            state.localQueues.put(queue.key(), queue);
        });
    }

    /**
     * Removes a LocalQueue; jobs submitted to it wait with reason {@code QUEUE_NOT_FOUND} (none is dropped).
     *
     * @param namespace its namespace
     * @param name its name
     * @return true when it existed
     */
    public boolean removeLocalQueue(String namespace, String name) {
        return state.withLock(() -> state.localQueues.remove(namespace + "/" + name) != null);
    }

    /** @return each ClusterQueue's decayed usage (fair share over time: its dominant share, decayed by the half-life) */
    public Map<String, Double> decayedUsage() {
        return state.read(() -> Map.copyOf(state.decayedUsage));
    }
}
