package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Provision;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.JobState;
import io.fairway.api.model.Node;
import io.fairway.api.spi.Actuator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pull-based executors for many clusters, as Armada's: the scheduler's {@link Actuator} files each decision
 * under the cluster it concerns; each cluster's executor {@link #poll}s for its work, applies it and
 * {@link #ack}s it. Unacknowledged work is offered again after a timeout, and at most {@code maxUnacked}
 * items are out per executor. Every item carries the job's epoch: reports about an older run are refused by
 * {@link Scheduler#reportStarted(String, long)}, and a rejoining executor is told which of its jobs to stop.
 *
 * <p>A cluster whose executor has not reached the hub (a poll or an acknowledgement) for {@code graceMillis} is
 * declared lost: its jobs go back to pending and may be placed elsewhere. An executor must therefore fence itself —
 * stop its jobs — once it has not reached the hub for {@link #fenceAfterMillis()} (half the grace period), so that no
 * job ever runs in two clusters. An executor still applying a large poll shows it is alive with each
 * acknowledgement, so a long pass is not taken for a silent cluster.
 *
 * <pre>{@code
 * ExecutorHub hub = new ExecutorHub(clock, 30_000, 1_000, 120_000);
 * Scheduler s = Scheduler.builder().actuator(hub).clock(clock)...build();
 * hub.attach(s);
 * // in each cluster's executor loop:
 * ExecutorHub.Poll p = hub.poll("eu-1", 100);
 * for (ExecutorHub.WorkItem w : p.items()) { apply(w.decision()); hub.ack("eu-1", w.id()); }
 * }</pre>
 */
public final class ExecutorHub implements Actuator {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorHub.class);

    private final Clock clock;
    private final long ackTimeoutMillis;
    private final int maxUnacked;
    private final long graceMillis;
    private Scheduler scheduler;
    private long nextId = 1;
    private final Map<String, ClusterQueueState> clusters = new TreeMap<>();

    /**
     * One unit of work for an executor.
     *
     * @param id unique id, for {@link #ack}
     * @param cluster the cluster it is for
     * @param jobId the job, or null for node decisions
     * @param epoch the job's epoch when the decision was made
     * @param decision what to do
     */
    public record WorkItem(long id, String cluster, String jobId, long epoch, Decision decision) {
    }

    /**
     * What a poll returns.
     *
     * @param items work to apply, oldest first
     * @param rejoinRequired true when the cluster was declared lost: the executor must stop its jobs and
     *     {@link #rejoin} before it gets work again
     */
    public record Poll(List<WorkItem> items, boolean rejoinRequired) {
    }

    private static final class ClusterQueueState {
        final ArrayDeque<WorkItem> waiting = new ArrayDeque<>();
        final Map<Long, long[]> offered = new LinkedHashMap<>(); // id -> {offeredAt}
        final Map<Long, WorkItem> offeredItems = new LinkedHashMap<>();
        long lastSeen;
        boolean lost;
    }

    /**
     * @param clock the scheduler's clock
     * @param ackTimeoutMillis after this long unacknowledged work is offered again
     * @param maxUnacked the most items out per executor at once
     * @param graceMillis a cluster silent this long is declared lost
     */
    public ExecutorHub(Clock clock, long ackTimeoutMillis, int maxUnacked, long graceMillis) {
        InvalidSpecException.check(ackTimeoutMillis > 0, "ackTimeoutMillis", ackTimeoutMillis, "ackTimeoutMillis must be > 0, was %d", ackTimeoutMillis);
        InvalidSpecException.check(maxUnacked > 0, "maxUnacked", maxUnacked, "maxUnacked must be > 0, was %d", maxUnacked);
        InvalidSpecException.check(graceMillis > 0, "graceMillis", graceMillis, "graceMillis must be > 0, was %d", graceMillis);
        this.clock = clock;
        this.ackTimeoutMillis = ackTimeoutMillis;
        this.maxUnacked = maxUnacked;
        this.graceMillis = graceMillis;
    }

    /** @param scheduler the scheduler this hub actuates for */
    public synchronized void attach(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** @return how long an executor may go without reaching the hub before it must stop its jobs */
    public long fenceAfterMillis() {
        return graceMillis / 2;
    }

    /**
     * Registers a cluster's executor (a cluster joining).
     *
     * @param cluster the cluster
     */
    public synchronized void register(String cluster) {
        ClusterQueueState c = clusters.computeIfAbsent(cluster, k -> new ClusterQueueState());
        c.lastSeen = clock.millis();
        c.lost = false;
    }

    @Override
    public synchronized void apply(List<Decision> decisions) {
        for (Decision d : decisions) {
            String cluster = clusterOf(d);
            if (cluster == null) {
                LOG.warn("decision {} concerns no known cluster; dropped", d);
                continue;
            }
            ClusterQueueState c = clusters.computeIfAbsent(cluster, k -> {
                ClusterQueueState n = new ClusterQueueState();
                n.lastSeen = clock.millis();
                return n;
            });
            if (c.lost) {
                continue;
            }
            long epoch = d.jobId() == null ? -1 : scheduler.jobs().epoch(d.jobId());
            if (d instanceof Preempt && epoch > 0) {
                epoch--; // a preemption stops the run of the previous epoch
            }
            c.waiting.add(new WorkItem(nextId++, cluster, d.jobId(), epoch, d));
        }
    }

    private String clusterOf(Decision d) {
        if (d instanceof Admit a) {
            return a.placement().members().isEmpty() ? null : scheduler.clusters().clusterOfNode(a.placement().members().get(0).node());
        }
        if (d instanceof Resize r) {
            return r.placement().members().isEmpty() ? null : scheduler.clusters().clusterOfNode(r.placement().members().get(0).node());
        }
        if (d instanceof Deprovision dp) {
            return scheduler.clusters().clusterOfNode(dp.node());
        }
        if (d instanceof Provision p) {
            var pool = scheduler.snapshot().provisioning().pools().get(p.nodePool());
            return pool == null ? null : pool.cluster();
        }
        if (d instanceof Preempt p) {
            return lastClusterOf.get(p.jobId());
        }
        return null;
    }

    private final Map<String, String> lastClusterOf = new java.util.HashMap<>();

    /**
     * An executor asks for its work (and so shows it is alive).
     *
     * @param cluster its cluster
     * @param max the most items it takes now
     * @return the work, or {@code rejoinRequired} when the cluster was declared lost
     */
    public synchronized Poll poll(String cluster, int max) {
        ClusterQueueState c = clusters.get(cluster);
        if (c == null) {
            throw new InvalidSpecException("cluster", cluster, "cluster " + cluster + " is not registered with the executor hub");
        }
        if (c.lost) {
            return new Poll(List.of(), true);
        }
        long now = clock.millis();
        c.lastSeen = now;
        List<WorkItem> out = new ArrayList<>();
        // offer again what was not acknowledged in time, unless it no longer concerns the job's current run
        for (Iterator<Map.Entry<Long, long[]>> it = c.offered.entrySet().iterator(); it.hasNext() && out.size() < max; ) {
            Map.Entry<Long, long[]> e = it.next();
            WorkItem w = c.offeredItems.get(e.getKey());
            if (!current(w)) {
                it.remove();
                c.offeredItems.remove(e.getKey());
                continue;
            }
            if (now - e.getValue()[0] >= ackTimeoutMillis) {
                e.getValue()[0] = now;
                out.add(w);
            }
        }
        while (out.size() < max && c.offered.size() < maxUnacked && !c.waiting.isEmpty()) {
            WorkItem w = c.waiting.poll();
            if (!current(w)) {
                continue;
            }
            c.offered.put(w.id(), new long[] {now});
            c.offeredItems.put(w.id(), w);
            if (w.decision() instanceof Admit) {
                lastClusterOf.put(w.jobId(), cluster);
            }
            out.add(w);
        }
        return new Poll(out, false);
    }

    /** Work about a job's older run is void: the job has moved on. */
    private boolean current(WorkItem w) {
        if (w.jobId() == null) {
            return true;
        }
        long e = scheduler.jobs().epoch(w.jobId());
        if (w.decision() instanceof Preempt) {
            return true; // stopping an old run is always right
        }
        if (e != w.epoch()) {
            return false;
        }
        var st = scheduler.status(w.jobId());
        return st.isPresent() && st.get().state().holdsResources();
    }

    /**
     * The executor applied an item. Acknowledging shows the executor alive, as a poll does: an executor busy for
     * longer than the grace period applying one poll's work is not declared lost for it.
     *
     * @param cluster its cluster
     * @param itemId the item
     * @return true when the item was outstanding (false for a late or duplicate acknowledgement)
     */
    public synchronized boolean ack(String cluster, long itemId) {
        ClusterQueueState c = clusters.get(cluster);
        if (c == null || c.lost) {
            return false;
        }
        c.lastSeen = Math.max(c.lastSeen, clock.millis());
        c.offeredItems.remove(itemId);
        return c.offered.remove(itemId) != null;
    }

    /**
     * Declares lost every cluster whose executor has been silent longer than the grace period; their jobs go
     * back to pending.
     *
     * @return the clusters declared lost now
     */
    public List<String> checkLiveness() {
        List<String> lost = new ArrayList<>();
        synchronized (this) {
            long now = clock.millis();
            for (Map.Entry<String, ClusterQueueState> e : clusters.entrySet()) {
                ClusterQueueState c = e.getValue();
                if (!c.lost && now - c.lastSeen > graceMillis) {
                    c.lost = true;
                    c.waiting.clear();
                    c.offered.clear();
                    c.offeredItems.clear();
                    lost.add(e.getKey());
                }
            }
        }
        for (String cluster : lost) {
            LOG.warn("cluster {} silent for over {} ms: declared lost; its jobs go back to pending", cluster, graceMillis);
            scheduler.clusters().removeCluster(cluster);
        }
        return lost;
    }

    /**
     * A lost cluster's executor comes back: its nodes rejoin, and it learns which of the jobs it still runs it
     * must stop (those whose epoch moved on, or that are no longer placed in this cluster).
     *
     * @param cluster the cluster
     * @param nodes its nodes (added back to the scheduler)
     * @param running the jobs it still runs, with the epoch of their run
     * @return the jobs it must stop
     */
    public List<String> rejoin(String cluster, List<Node> nodes, Map<String, Long> running) {
        for (Node n : nodes) {
            if (scheduler.clusters().clusterOfNode(n.name()) == null) {
                scheduler.clusters().addNode(n);
            }
        }
        List<String> stop = new ArrayList<>();
        for (Map.Entry<String, Long> e : new TreeMap<>(running).entrySet()) {
            var st = scheduler.status(e.getKey());
            boolean ok = st.isPresent() && st.get().state() != JobState.PENDING && st.get().state().holdsResources()
                    && scheduler.jobs().epoch(e.getKey()) == e.getValue() && cluster.equals(scheduler.clusters().clusterOf(e.getKey()));
            if (!ok) {
                stop.add(e.getKey());
            }
        }
        register(cluster);
        return stop;
    }
}
