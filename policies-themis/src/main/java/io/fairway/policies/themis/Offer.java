package io.fairway.policies.themis;

import io.fairway.api.job.JobStatus;
import io.fairway.policies.themis.Bids.Item;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The market of one Themis plan: the GPUs on offer (the pool: free GPUs plus those of the expired leases that may be
 * revoked) and the expired leases still on offer, in the order of {@link io.fairway.api.spi.PolicyContext#holding()}.
 * Steps read it ({@link #pool}, {@link #has}, {@link #leases}) and return what they take ({@link Taken}); the plan
 * applies each step's take ({@link #apply}), and only that changes the offer. Each operation checks its invariant and
 * throws an {@link IllegalStateException} naming the job and the numbers when a step takes what is not there: a lease
 * taken off twice or never offered, GPUs given back twice or while still on offer, a job's GPUs taken twice.
 *
 * <p>The pool may fall below zero, as it always could: a start or a keep takes its item's smallest cost whatever is
 * left (the starvation guard starts a job on the GPUs of the leases it revoked, whose count the offer's estimate of free
 * GPUs may not cover); the plan then offers nothing more.
 */
final class Offer {
    /** Expired leases that may be revoked and are still on offer, by job, in the order offered. */
    private final Map<String, JobStatus> leases = new LinkedHashMap<>();
    /** Jobs whose GPUs were taken by a start or a keep in this plan. */
    private final Set<String> takers = new HashSet<>();
    /** Jobs whose GPUs were given back to the pool (leases revoked early) in this plan. */
    private final Set<String> givenBack = new HashSet<>();
    /** GPUs on offer and not yet given out. */
    private long pool;

    /**
     * @param freeGpus GPUs free at the start of the plan
     * @param expired the expired leases that may be revoked, each once: their GPUs are on offer too
     */
    Offer(long freeGpus, List<JobStatus> expired) {
        long gpus = freeGpus;
        for (JobStatus j : expired) {
            if (leases.putIfAbsent(j.id(), j) != null) {
                throw new IllegalStateException("Themis market: the lease of job " + j.id() + " is offered twice");
            }
            gpus += gpus(j);
        }
        this.pool = gpus;
    }

    /** @return GPUs on offer and not yet given out (below zero when starts took more than the offer's estimate) */
    long pool() {
        return pool;
    }

    /** @param jobId a job @return true when its expired lease is still on offer */
    boolean has(String jobId) {
        return leases.containsKey(jobId);
    }

    /** @return the expired leases still on offer, in the order offered (a read-only view) */
    Collection<JobStatus> leases() {
        return Collections.unmodifiableCollection(leases.values());
    }

    /**
     * Applies what one step took, all or nothing: revoked leases off the offer, gathered leases off with their GPUs,
     * GPUs of leases revoked early back to the pool, then the GPUs of the items started or kept.
     *
     * @param t what the step took
     * @throws IllegalStateException when the step took what the offer does not have (the offer is then unchanged)
     */
    void apply(Taken t) {
        check(t);
        for (JobStatus j : t.revoked()) {
            leases.remove(j.id()); // its GPUs stay in the pool: the start it made room for takes them
        }
        for (JobStatus j : t.gathered()) {
            leases.remove(j.id());
            pool -= gpus(j);
        }
        for (JobStatus j : t.freed()) {
            givenBack.add(j.id());
            pool += gpus(j);
        }
        for (Item it : t.items()) {
            takers.add(it.job().id());
            pool -= it.minCost();
        }
    }

    /** Checks a take against the offer as it is, before anything changes. */
    private void check(Taken t) {
        Set<String> off = t.revoked().size() + t.gathered().size() > 1 ? new HashSet<>() : null;
        for (JobStatus j : t.revoked()) {
            checkOnOffer(j, "revoked", off);
        }
        for (JobStatus j : t.gathered()) {
            checkOnOffer(j, "gathered", off);
        }
        Set<String> back = t.freed().size() > 1 ? new HashSet<>() : null;
        for (JobStatus j : t.freed()) {
            if (leases.containsKey(j.id())) {
                throw new IllegalStateException(String.format(Locale.ROOT,
                        "Themis market: job %s's %d GPUs cannot be given back: its lease is still on offer (pool %d GPUs)",
                        j.id(), gpus(j), pool));
            }
            if (givenBack.contains(j.id()) || back != null && !back.add(j.id())) {
                throw new IllegalStateException(String.format(Locale.ROOT,
                        "Themis market: job %s's %d GPUs were given back already (pool %d GPUs)", j.id(), gpus(j), pool));
            }
        }
        Set<String> taking = t.items().size() > 1 ? new HashSet<>() : null;
        for (Item it : t.items()) {
            String id = it.job().id();
            if (it.minCost() < 0) {
                throw new IllegalStateException(String.format(Locale.ROOT,
                        "Themis market: job %s cannot take %d GPUs: a negative count (pool %d GPUs)", id, it.minCost(), pool));
            }
            if (takers.contains(id) || taking != null && !taking.add(id)) {
                throw new IllegalStateException(String.format(Locale.ROOT,
                        "Themis market: job %s cannot take %d GPUs: its GPUs were taken already in this plan (pool %d GPUs)",
                        id, it.minCost(), pool));
            }
        }
    }

    /** A lease a step takes off must be on offer, and taken off once. */
    private void checkOnOffer(JobStatus j, String how, Set<String> seen) {
        if (!leases.containsKey(j.id()) || seen != null && !seen.add(j.id())) {
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "Themis market: job %s's lease (%d GPUs) cannot be %s: it is not on offer (taken off already or never"
                            + " offered; %d leases and %d GPUs on offer)", j.id(), gpus(j), how, leases.size(), pool));
        }
    }

    private static long gpus(JobStatus j) {
        return j.admission().placement().gpuCount();
    }

    /**
     * What one step of a plan took from the offer, for the plan to apply ({@link #apply}).
     *
     * @param items items started or kept: each takes its smallest cost from the pool
     * @param revoked leases revoked to make room for a start: off the offer, their GPUs left in the pool for the start
     * @param gathered leases on nodes being gathered: off the offer with their GPUs (neither renewed nor offered)
     * @param freed leases revoked early that were not on offer: their GPUs join the pool
     */
    record Taken(List<Item> items, List<JobStatus> revoked, List<JobStatus> gathered, List<JobStatus> freed) {
        /** A step that took nothing. */
        static final Taken NOTHING = new Taken(List.of(), List.of(), List.of(), List.of());

        /** @param items the items started or kept @return a take of their GPUs only */
        static Taken items(List<Item> items) {
            return items.isEmpty() ? NOTHING : new Taken(items, List.of(), List.of(), List.of());
        }

        /** @param gathered leases on offer on the nodes gathered @return a take of those leases with their GPUs */
        static Taken gathered(List<JobStatus> gathered) {
            return gathered.isEmpty() ? NOTHING : new Taken(List.of(), List.of(), gathered, List.of());
        }
    }
}
