package io.fairway.policies.themis;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Themis' agents: estimates of every app's finish-time fairness ρ = T_shared ÷ T_id from what the engine reports
 * (see {@code docs/policies/themis.md} for the model, with worked examples).
 *
 * <p>Units: work is in seconds of a job's run at full size with ideal placement ({@code estimatedSeconds});
 * an app's work in GPU-seconds is Σ work × GPUs at full size; a job's speed is (GPUs held ÷ GPUs at full size) ×
 * its placement's throughput factor.
 */
final class FinishTimeEstimator {
    /** Work assumed for a job without an estimate, at least (seconds). */
    static final double UNKNOWN_WORK_SECONDS = 3600;
    /** A job past its estimate is assumed to have this fraction of its work left. */
    static final double OVERRUN_REMAINING = 0.01;

    private FinishTimeEstimator() {
    }

    /** One live job as an agent sees it. */
    record JobView(JobStatus status, long gpus, double work, double remaining, double speed, boolean holding,
                   boolean revocable, double remainingIfRevoked, double elapsed, double idealSeconds) {
        String id() {
            return status.id();
        }

        /** @return a copy that is revocable (for pricing a revocation) */
        JobView asRevocable() {
            return new JobView(status, gpus, work, remaining, speed, holding, true, remainingIfRevoked, elapsed, idealSeconds);
        }

        /** @return GPU-seconds left at full size */
        double remainingGpuWork() {
            return remaining * gpus;
        }
    }

    /**
     * One app (job set) with its live jobs and its current ρ: the app's own ρ (T_shared ÷ T_id), or, with
     * {@code perJob}, the larger of that and the worst ρ of its jobs, each job measured on its own
     * ({@link #jobRho}).
     */
    record AppView(String name, List<JobView> jobs, double elapsed, double demand, double fairRate, double idealSeconds,
                   double sharedSeconds, double rho, boolean perJob) {
        /** @return GPU-seconds of work left over the app's jobs */
        double remainingGpuWork() {
            double r = 0;
            for (JobView j : jobs) {
                r += j.remainingGpuWork();
            }
            return r;
        }
    }

    /**
     * @param spec a job
     * @param runningMillis how long it ran so far
     * @return its work: {@code estimatedSeconds}, or when unknown max(1 h, 2 × executed time)
     */
    static double work(JobSpec spec, long runningMillis) {
        if (spec.estimatedSeconds() > 0) {
            return spec.estimatedSeconds();
        }
        return Math.max(UNKNOWN_WORK_SECONDS, 2.0 * runningMillis / 1000.0);
    }

    /**
     * @param job a job
     * @return its speed now: 0 when it holds nothing, else (GPUs held ÷ GPUs at full size) × throughput factor
     */
    static double speed(JobStatus job) {
        Admit a = job.admission();
        if (a == null || !job.state().holdsResources()) {
            return 0;
        }
        return sizeFraction(job.spec(), a.counts()) * a.placement().throughputFactor();
    }

    /**
     * @param spec a job
     * @param counts members per pod set
     * @return the fraction of its full size these counts are (by GPUs; by members for a job without GPUs)
     */
    static double sizeFraction(JobSpec spec, Map<String, Integer> counts) {
        long full = 0;
        long held = 0;
        long fullMembers = 0;
        long heldMembers = 0;
        for (PodSet ps : spec.podSets()) {
            int m = counts.getOrDefault(ps.name(), ps.count());
            full += ps.resources().gpus() * ps.count();
            held += ps.resources().gpus() * m;
            fullMembers += ps.count();
            heldMembers += m;
        }
        return full > 0 ? (double) held / full : (double) heldMembers / fullMembers;
    }

    /**
     * The fraction of its work a job has done.
     *
     * <ul>
     *   <li>{@code PROGRESS}: when the engine reports progress (≥ 0), it is taken as where the current run started
     *       (the simulator reports the work kept at each preemption), plus the work of the current run at its
     *       current speed; when it reports none, as {@code ELAPSED};</li>
     *   <li>{@code ELAPSED}: executed time × the current speed (1 when it holds nothing) ÷ work.</li>
     * </ul>
     *
     * @param job the job
     * @param now the clock
     * @param mode the estimate
     * @param work its work (seconds)
     * @return done, in [0, 1]
     */
    static double done(JobStatus job, long now, ThemisPolicy.Estimate mode, double work) {
        return done(job, now, mode, work, speed(job));
    }

    /** {@link #done(JobStatus, long, ThemisPolicy.Estimate, double)} with the job's {@link #speed} already known. */
    private static double done(JobStatus job, long now, ThemisPolicy.Estimate mode, double work, double speed) {
        double done;
        if (mode == ThemisPolicy.Estimate.PROGRESS && job.progress() >= 0) {
            double currentRun = job.state() == JobState.RUNNING ? Math.max(0, now - job.stateSinceMillis()) / 1000.0 : 0;
            done = job.progress() + currentRun * speed / work;
        } else {
            double s = speed > 0 ? speed : 1.0;
            done = job.runningMillis() / 1000.0 * s / work;
        }
        return Math.max(0, Math.min(1, done));
    }

    /**
     * @param job a job
     * @param now the clock
     * @param mode the estimate
     * @param revocable which jobs an expired lease makes revocable
     * @return the job as the agent sees it
     */
    static JobView view(JobStatus job, long now, ThemisPolicy.Estimate mode, Predicate<JobStatus> revocable) {
        return view(job, now, mode, revocable, 1);
    }

    /**
     * @param job a job
     * @param now the clock
     * @param mode the estimate
     * @param revocable which jobs an expired lease makes revocable
     * @param jobShare the GPUs of a job's fair share: cluster GPUs ÷ live GPU jobs
     * @return the job as the agent sees it, with its own T_id: its work on a private share of {@code jobShare} GPUs
     */
    static JobView view(JobStatus job, long now, ThemisPolicy.Estimate mode, Predicate<JobStatus> revocable, double jobShare) {
        return view(job, now, mode, revocable, jobShare, job.spec().totalGpus());
    }

    /** {@link #view(JobStatus, long, ThemisPolicy.Estimate, Predicate, double)} with the job's GPUs already summed. */
    private static JobView view(JobStatus job, long now, ThemisPolicy.Estimate mode, Predicate<JobStatus> revocable, double jobShare,
                                long g) {
        return view(job, now, mode, revocable, jobShare, g, speed(job)); // once: it sums the job's pod sets
    }

    /** {@link #view(JobStatus, long, ThemisPolicy.Estimate, Predicate, double)} with the job's GPUs and speed known. */
    private static JobView view(JobStatus job, long now, ThemisPolicy.Estimate mode, Predicate<JobStatus> revocable, double jobShare,
                                long g, double speed) {
        double w = work(job.spec(), job.runningMillis());
        double d = done(job, now, mode, w, speed);
        double rem = w * Math.max(OVERRUN_REMAINING, 1 - d);
        boolean holding = job.state().holdsResources() && job.admission() != null;
        boolean canRevoke = holding && job.admission().leaseExpired(now) && revocable.test(job);
        double kept = 0;
        if (job.spec().checkpointing() != null) {
            double interval = job.spec().checkpointing().intervalSeconds();
            kept = Math.floor(d * w / interval) * interval;
        }
        double remIfRevoked = Math.max(rem, w - kept);
        double elapsed = Math.max(0, now - job.spec().submitTimeMillis()) / 1000.0;
        double ideal = w * Math.max(1.0, g / Math.max(1e-9, jobShare));
        return new JobView(job, g, w, rem, speed, holding, canRevoke, remIfRevoked, elapsed, ideal);
    }

    /**
     * Groups live jobs into apps and estimates each app's ρ now.
     *
     * @param jobs pending and holding jobs that use GPUs
     * @param now the clock
     * @param totalGpus the cluster's GPUs
     * @param mode the estimate
     * @param revocable which jobs an expired lease makes revocable
     * @return apps by name
     */
    static TreeMap<String, AppView> apps(Collection<JobStatus> jobs, long now, long totalGpus, ThemisPolicy.Estimate mode,
                                         Predicate<JobStatus> revocable) {
        return new TreeMap<>(appsInOrder(jobs, now, totalGpus, mode, revocable, false));
    }

    /**
     * {@link #apps} with the per-job term ({@code perJob}: an app's ρ is at least its worst job's).
     *
     * @param jobs pending and holding jobs that use GPUs
     * @param now the clock
     * @param totalGpus the cluster's GPUs
     * @param mode the estimate
     * @param revocable which jobs an expired lease makes revocable
     * @param perJob true to count each job's own ρ in its app's
     * @return apps by name
     */
    static TreeMap<String, AppView> apps(Collection<JobStatus> jobs, long now, long totalGpus, ThemisPolicy.Estimate mode,
                                         Predicate<JobStatus> revocable, boolean perJob) {
        return new TreeMap<>(appsInOrder(jobs, now, totalGpus, mode, revocable, perJob));
    }

    /**
     * {@link #apps}, as a hash map that iterates in name order: a round looks apps up per job, and a hash lookup beats
     * a walk down a tree of a thousand names.
     *
     * @param jobs pending and holding jobs that use GPUs
     * @param now the clock
     * @param totalGpus the cluster's GPUs
     * @param mode the estimate
     * @param revocable which jobs an expired lease makes revocable
     * @param perJob true to count each job's own ρ in its app's
     * @return apps by name, in name order
     */
    static LinkedHashMap<String, AppView> appsInOrder(Collection<JobStatus> jobs, long now, long totalGpus, ThemisPolicy.Estimate mode,
                                                     Predicate<JobStatus> revocable, boolean perJob) {
        return appsInOrder(jobs, now, totalGpus, mode, revocable, perJob, null);
    }

    /**
     * {@link #appsInOrder(Collection, long, long, ThemisPolicy.Estimate, Predicate, boolean)}, also handing out the
     * views of the GPU jobs in the order of {@code jobs}.
     *
     * @param jobs pending and holding jobs that use GPUs
     * @param now the clock
     * @param totalGpus the cluster's GPUs
     * @param mode the estimate
     * @param revocable which jobs an expired lease makes revocable
     * @param perJob true to count each job's own ρ in its app's
     * @param views where the views of the GPU jobs go, in the order of {@code jobs} (null: nowhere)
     * @return apps by name, in name order
     */
    static LinkedHashMap<String, AppView> appsInOrder(Collection<JobStatus> jobs, long now, long totalGpus, ThemisPolicy.Estimate mode,
                                                     Predicate<JobStatus> revocable, boolean perJob, List<JobView> views) {
        return appsInOrder(jobs, now, totalGpus, mode, revocable, perJob, views, null);
    }

    /**
     * {@link #appsInOrder(Collection, long, long, ThemisPolicy.Estimate, Predicate, boolean, List)}, reading what
     * cannot have changed since the last round from {@code kept} (and leaving this round's there for the next).
     *
     * @param jobs pending and holding jobs that use GPUs
     * @param now the clock
     * @param totalGpus the cluster's GPUs
     * @param mode the estimate
     * @param revocable which jobs an expired lease makes revocable
     * @param perJob true to count each job's own ρ in its app's
     * @param views where the views of the GPU jobs go, in the order of {@code jobs} (null: nowhere)
     * @param kept what earlier rounds left, or null to compute everything afresh
     * @return apps by name, in name order
     */
    static LinkedHashMap<String, AppView> appsInOrder(Collection<JobStatus> jobs, long now, long totalGpus, ThemisPolicy.Estimate mode,
                                                     Predicate<JobStatus> revocable, boolean perJob, List<JobView> views, Kept kept) {
        // a job's GPUs are summed over its pod sets at each call: once per job here (or once while its spec stays)
        long[] gpus = new long[jobs.size()];
        double[] speeds = kept == null ? null : new double[jobs.size()];
        Kept.Job[] entries = kept == null ? null : new Kept.Job[jobs.size()];
        int gpuJobs = 0;
        int x = 0;
        if (kept != null) {
            kept.beginRound(jobs.size());
        }
        for (JobStatus j : jobs) {
            if (kept != null) {
                Kept.Job k = kept.job(j, x);
                entries[x] = k;
                gpus[x] = k.gpus;
                speeds[x] = k.speed(j);
                if (k.gpus > 0 && j.admission() != null && j.state().holdsResources()) {
                    kept.heldHighestGpuPlusOne = Math.max(kept.heldHighestGpuPlusOne, k.highestGpuPlusOne);
                }
            } else {
                gpus[x] = j.spec().totalGpus();
            }
            if (gpus[x++] > 0) {
                gpuJobs++;
            }
        }
        if (kept != null) {
            kept.endRound();
        }
        double jobShare = (double) totalGpus / Math.max(1, gpuJobs);
        JobView[] inOrder = new JobView[gpuJobs];
        Kept.Job[] entryOf = kept == null ? null : new Kept.Job[gpuJobs];
        x = 0;
        int v = 0;
        for (JobStatus j : jobs) {
            long g = gpus[x++];
            if (g > 0) {
                JobView view = speeds == null ? view(j, now, mode, revocable, jobShare, g)
                        : view(j, now, mode, revocable, jobShare, g, speeds[x - 1]);
                if (entryOf != null) {
                    entryOf[v] = entries[x - 1];
                }
                inOrder[v++] = view;
                if (views != null) {
                    views.add(view);
                }
            }
        }
        return kept == null ? byApp(inOrder, now, totalGpus, perJob)
                : byKeptApps(inOrder, kept.appIndexes(entryOf), kept.names, now, totalGpus, perJob);
    }

    /** The apps of the views, grouped through a map and sorted by name. */
    private static LinkedHashMap<String, AppView> byApp(JobView[] inOrder, long now, long totalGpus, boolean perJob) {
        Map<String, List<JobView>> byApp = new HashMap<>();
        String lastApp = null;
        List<JobView> lastJobs = null;
        for (JobView view : inOrder) {
            String app = view.status().spec().jobSet();
            // an app's jobs mostly come one after another: the previous job's list first, the map otherwise
            if (lastJobs == null || !java.util.Objects.equals(app, lastApp)) {
                lastJobs = byApp.computeIfAbsent(app, k -> new ArrayList<>());
                lastApp = app;
            }
            lastJobs.add(view);
        }
        String[] names = sortedNames(byApp.keySet());
        LinkedHashMap<String, AppView> out = new LinkedHashMap<>(names.length * 2);
        int n = Math.max(1, byApp.size());
        double share = (double) totalGpus / n;
        for (String name : names) {
            out.put(name, app(name, byApp.get(name), now, share, perJob));
        }
        return out;
    }

    /**
     * The apps of the views by their kept indexes into the sorted names ({@link Kept#appIndexes}): the views are
     * grouped by a counting sort on the index (stable: each app's jobs in the order given), with no map and no sort.
     */
    private static LinkedHashMap<String, AppView> byKeptApps(JobView[] inOrder, int[] appOf, String[] names, long now, long totalGpus,
                                                             boolean perJob) {
        int apps = names.length;
        int[] start = new int[apps + 1];
        for (int a : appOf) {
            start[a + 1]++;
        }
        for (int a = 0; a < apps; a++) {
            start[a + 1] += start[a];
        }
        JobView[] grouped = new JobView[inOrder.length];
        int[] next = java.util.Arrays.copyOf(start, apps);
        for (int i = 0; i < inOrder.length; i++) {
            grouped[next[appOf[i]]++] = inOrder[i];
        }
        LinkedHashMap<String, AppView> out = new LinkedHashMap<>(apps * 2);
        double share = (double) totalGpus / Math.max(1, apps);
        for (int a = 0; a < apps; a++) {
            List<JobView> jobsOfApp = start[a + 1] - start[a] == 1 ? List.of(grouped[start[a]])
                    : java.util.Arrays.asList(grouped).subList(start[a], start[a + 1]);
            out.put(names[a], app(names[a], jobsOfApp, now, share, perJob));
        }
        return out;
    }

    /** @return the names, sorted */
    static String[] sortedNames(java.util.Set<String> names) {
        String[] out = names.toArray(new String[0]);
        java.util.Arrays.sort(out);
        return out;
    }

    /**
     * What a round's estimates need that cannot have changed while its inputs stay the very same objects, kept from
     * one round to the next by the policy: each job's GPUs (a sum over its spec's pod sets) and its speed when it holds
     * GPUs (its size fraction at the admitted counts × the placement's throughput factor) with the highest GPU index
     * its placement uses, and the apps' names in order with each job's index into them. A job's entry is used only
     * while its spec, and for the speed its placement, are the same objects as when the entry was made and its
     * admitted counts are equal (the engine's statuses carry them unchanged between rounds; a lease renewal keeps
     * them, a new admission replaces them); the names are merged with the apps that arrive and cleared of those that
     * leave, and an entry's index is used only for the names it was read in. So a round computes with it exactly what
     * it computes without it: the same numbers from the same inputs,
     * the ones that depend on the clock, the number of live jobs or apps, and progress computed afresh every round.
     * Jobs no longer live are dropped once they are as many as the live ones. Not thread-safe: one round at a time.
     */
    static final class Kept {
        /** One job's entry. */
        static final class Job {
            final JobSpec spec;
            final long gpus;
            Map<String, Integer> counts;
            io.fairway.api.decision.Placement placement;
            double holdingSpeed;
            /** The last round the job was live in. */
            long round;
            /** One more than the highest GPU index its placement uses ({@link #placement}'s; 0 without GPUs). */
            int highestGpuPlusOne;
            /** Its app's index in {@link Kept#names} as of {@link #appVersion}. */
            int app;
            int appVersion = -1;

            Job(JobSpec spec) {
                this.spec = spec;
                this.gpus = spec.totalGpus();
            }

            /** @return {@link FinishTimeEstimator#speed} of the job, recomputed only when its admission's inputs changed */
            double speed(JobStatus job) {
                Admit a = job.admission();
                if (a == null || !job.state().holdsResources()) {
                    return 0;
                }
                // the placement is immutable, so the same object has the same factor; the counts map is the one the
                // policy handed to the engine, which could change it, so a copy is kept and compared by value
                if (a.placement() != placement || !a.counts().equals(counts)) {
                    counts = Map.copyOf(a.counts());
                    if (a.placement() != placement) {
                        highestGpuPlusOne = highestGpuPlusOne(a.placement());
                    }
                    placement = a.placement();
                    holdingSpeed = sizeFraction(spec, counts) * placement.throughputFactor();
                }
                return holdingSpeed;
            }
        }

        private final Map<String, Job> jobs = new HashMap<>();
        /** Bumped whenever {@link #names} is replaced: an entry's app index stands only for the names it was read in. */
        private int namesVersion;
        /**
         * The entries by the jobs' positions in the last round (and in this one, as far as it has come): a job at the
         * same position with the same spec object takes its entry without a lookup by id. Any entry made for a spec
         * is right for every status of that spec, so the map and the positions need not agree.
         */
        private Job[] byPosition = new Job[0];
        String[] names = new String[0];
        private long round;
        private int live;
        /** Over this round's jobs that hold GPUs: one more than the highest GPU index their placements use. */
        int heldHighestGpuPlusOne;

        /** @return one more than the highest GPU index a placement uses (0 when it uses none) */
        static int highestGpuPlusOne(io.fairway.api.decision.Placement p) {
            int max = 0;
            for (io.fairway.api.decision.MemberPlacement m : p.members()) {
                for (int g : m.gpus()) {
                    max = Math.max(max, g + 1);
                }
            }
            return max;
        }

        /**
         * Starts a round: the jobs asked for until {@link #endRound} are this round's live jobs.
         *
         * @param jobs how many jobs the round asks for at most (positions 0 to jobs − 1)
         */
        void beginRound(int jobs) {
            round++;
            live = 0;
            heldHighestGpuPlusOne = 0;
            if (byPosition.length < jobs) {
                byPosition = java.util.Arrays.copyOf(byPosition, jobs);
            }
        }

        /**
         * @param j a live job
         * @param position its position among the round's jobs
         * @return the job's entry (the kept one while its spec is the same object), marked live in this round
         */
        Job job(JobStatus j, int position) {
            Job k = byPosition[position];
            if (k == null || k.spec != j.spec()) {
                k = jobs.get(j.id());
                if (k == null || k.spec != j.spec()) {
                    k = new Job(j.spec());
                    jobs.put(j.id(), k);
                }
                byPosition[position] = k;
            }
            if (k.round != round) {
                k.round = round;
                live++;
            }
            return k;
        }

        /** Drops the jobs that were not live in this round once they are as many as the live ones (amortised). */
        void endRound() {
            if (jobs.size() > 2 * live + 64) {
                long r = round;
                jobs.values().removeIf(k -> k.round != r);
            }
        }

        /**
         * Each job's app as an index into {@link #names}, the names made this round's: the apps of the jobs, in name
         * order. An entry keeps its app's index from one round to the next; while the apps stay, that is all a round
         * reads. When apps arrive or leave, the names are merged with the arrivals (a name not among the last round's
         * is found by a binary search) and the kept indexes moved to the new positions, so the cost follows the apps
         * that changed and the live jobs, with no map and no sort of all names.
         *
         * @param entries the live GPU jobs' entries, in the round's order
         * @return the index into {@link #names} of each entry's app
         */
        int[] appIndexes(Job[] entries) {
            int[] appOf = new int[entries.length];
            boolean[] seen = new boolean[names.length];
            int distinct = 0;
            java.util.TreeSet<String> arrived = null;
            for (int i = 0; i < entries.length; i++) {
                Job k = entries[i];
                int a = k.appVersion == namesVersion ? k.app : java.util.Arrays.binarySearch(names, k.spec.jobSet());
                if (a < 0) {
                    if (arrived == null) {
                        arrived = new java.util.TreeSet<>();
                    }
                    arrived.add(k.spec.jobSet());
                } else {
                    k.app = a;
                    k.appVersion = namesVersion;
                    if (!seen[a]) {
                        seen[a] = true;
                        distinct++;
                    }
                }
                appOf[i] = a;
            }
            if (arrived == null && distinct == names.length) {
                return appOf; // the last round's apps
            }
            String[] merged = new String[distinct + (arrived == null ? 0 : arrived.size())];
            int[] moved = new int[names.length]; // an old index's new one
            java.util.Iterator<String> added = arrived == null ? java.util.Collections.emptyIterator() : arrived.iterator();
            String next = added.hasNext() ? added.next() : null;
            int m = 0;
            for (int old = 0; old < names.length; old++) {
                if (!seen[old]) {
                    continue; // an app with no live job left
                }
                while (next != null && next.compareTo(names[old]) < 0) {
                    merged[m++] = next;
                    next = added.hasNext() ? added.next() : null;
                }
                moved[old] = m;
                merged[m++] = names[old];
            }
            while (next != null) {
                merged[m++] = next;
                next = added.hasNext() ? added.next() : null;
            }
            names = merged;
            namesVersion++;
            for (int i = 0; i < entries.length; i++) {
                Job k = entries[i];
                int a = appOf[i] >= 0 ? moved[appOf[i]] : java.util.Arrays.binarySearch(merged, k.spec.jobSet());
                k.app = a;
                k.appVersion = namesVersion;
                appOf[i] = a;
            }
            return appOf;
        }
    }

    /**
     * @param name the app
     * @param jobs its live jobs (GPU jobs)
     * @param now the clock
     * @param share the fair share, GPUs ÷ apps contending
     * @param perJob true to count each job's own ρ in its app's
     * @return its estimate
     */
    static AppView app(String name, List<JobView> jobs, long now, double share, boolean perJob) {
        long firstSubmit = Long.MAX_VALUE;
        double demand = 0;
        double totalWork = 0;
        double longest = 0;
        for (JobView j : jobs) {
            firstSubmit = Math.min(firstSubmit, j.status().spec().submitTimeMillis());
            demand += j.gpus();
            totalWork += j.work() * j.gpus();
            longest = Math.max(longest, j.work());
        }
        double elapsed = Math.max(0, now - firstSubmit) / 1000.0;
        double fairRate = Math.max(1e-9, Math.min(share, demand));
        double ideal = Math.max(longest, totalWork / fairRate);
        double shared = elapsed + sharedRemaining(jobs, fairRate);
        double rho = shared / ideal;
        if (perJob) {
            for (JobView j : jobs) {
                rho = Math.max(rho, (j.elapsed() + (j.speed() > 0 ? j.remaining() / j.speed() : j.remaining())) / j.idealSeconds());
            }
        }
        return new AppView(name, List.copyOf(jobs), elapsed, demand, fairRate, ideal, shared, rho, perJob);
    }

    /**
     * A job's own finish-time fairness if it finishes in {@code untilDone} seconds from now: (its time since submission
     * + untilDone) ÷ its own T_id (its work on a private share of cluster GPUs ÷ live GPU jobs, as the simulator
     * measures every job).
     *
     * @param j the job
     * @param untilDone seconds until it would finish
     * @return its ρ
     */
    static double jobRho(JobView j, double untilDone) {
        return (j.elapsed() + untilDone) / j.idealSeconds();
    }

    /**
     * The app's ρ with an allocation ({@link #sharedWith(AppView, boolean[], double[], double)} ÷ T_id), and with
     * {@code perJob} at least the worst ρ of its jobs with that allocation.
     *
     * @param app the app
     * @param runs whether each job (by position) runs in the allocation
     * @param speeds the speed of each job that runs
     * @param horizon the lease length in seconds
     * @return its ρ
     */
    static double rhoWith(AppView app, boolean[] runs, double[] speeds, double horizon) {
        double rho = sharedWith(app, runs, speeds, horizon) / app.idealSeconds();
        if (app.perJob()) {
            List<JobView> jobs = app.jobs();
            for (int x = 0; x < runs.length; x++) {
                JobView j = jobs.get(x);
                double rem = j.revocable() && !runs[x] ? j.remainingIfRevoked() : j.remaining();
                rho = Math.max(rho, jobRho(j, runs[x] && speeds[x] > 0 ? rem / speeds[x] : horizon + rem));
            }
        }
        return rho;
    }

    /**
     * {@link #rhoWith(AppView, boolean[], double[], double)} with the running jobs given by id.
     *
     * @param app the app
     * @param running speed of each job that runs in the allocation, by job id
     * @param horizon the lease length in seconds
     * @return its ρ
     */
    static double rhoWith(AppView app, Map<String, Double> running, double horizon) {
        Allocation a = Allocation.of(app, running);
        return rhoWith(app, a.runs(), a.speeds(), horizon);
    }

    /**
     * Time to finish from now at the current speeds: max(R ÷ rate, the longest job's own remaining time), where R is
     * the app's GPU-seconds left and rate the GPUs it holds weighted by speed; an app holding nothing is assumed to
     * get its fair share from now on (rate = min(share, demand)).
     */
    static double sharedRemaining(List<JobView> jobs, double fairRate) {
        double rate = 0;
        double r = 0;
        double bound = 0;
        for (JobView j : jobs) {
            rate += j.speed() * j.gpus();
            r += j.remainingGpuWork();
            bound = Math.max(bound, j.speed() > 0 ? j.remaining() / j.speed() : j.remaining());
        }
        double fluid = r / (rate > 0 ? rate : fairRate);
        return Math.max(fluid, bound);
    }

    /**
     * T_shared of an app if, for the next {@code horizon} seconds, it runs the jobs of an allocation: the jobs it keeps
     * or starts (with their speeds) plus those it holds without a revocable lease; afterwards it is assumed to get
     * its fair share. Jobs it holds under an expired lease and does not keep lose their work since their last
     * checkpoint.
     *
     * @param app the app
     * @param running speed of each job that runs in the allocation, by job id (revocable jobs absent are revoked)
     * @param horizon the lease length in seconds
     * @return the finish-time estimate (seconds from the app's first submission)
     */
    static double sharedWith(AppView app, Map<String, Double> running, double horizon) {
        Allocation a = Allocation.of(app, running);
        return sharedWith(app, a.runs(), a.speeds(), horizon);
    }

    /**
     * {@link #sharedWith(AppView, Map, double)} with the running jobs given by position in {@code app.jobs()}: a round
     * values many allocations of one app, and flags beat a map lookup per job and allocation.
     *
     * @param app the app
     * @param runs whether each job (by position) runs in the allocation
     * @param speeds the speed of each job that runs
     * @param horizon the lease length in seconds
     * @return the finish-time estimate (seconds from the app's first submission)
     */
    static double sharedWith(AppView app, boolean[] runs, double[] speeds, double horizon) {
        double rate = 0;
        double r = 0;
        double bound = 0;
        List<JobView> jobs = app.jobs();
        for (int x = 0; x < runs.length; x++) {
            JobView j = jobs.get(x);
            boolean runsNow = runs[x];
            double s = speeds[x];
            double rem = j.revocable() && !runsNow ? j.remainingIfRevoked() : j.remaining();
            r += rem * j.gpus();
            if (runsNow && s > 0) {
                rate += s * j.gpus();
                bound = Math.max(bound, rem / s);
            } else {
                bound = Math.max(bound, horizon + rem);
            }
        }
        double fluid;
        if (rate * horizon >= r && rate > 0) {
            fluid = r / rate;
        } else {
            fluid = horizon + (r - rate * horizon) / app.fairRate();
        }
        return app.elapsed() + Math.max(fluid, bound);
    }

    /** An allocation by position in {@code app.jobs()}: which jobs run, and at what speed. */
    private record Allocation(boolean[] runs, double[] speeds) {
        static Allocation of(AppView app, Map<String, Double> running) {
            List<JobView> jobs = app.jobs();
            boolean[] runs = new boolean[jobs.size()];
            double[] speeds = new double[jobs.size()];
            for (int x = 0; x < runs.length; x++) {
                Double s = running.get(jobs.get(x).id());
                if (s != null) {
                    runs[x] = true;
                    speeds[x] = s;
                }
            }
            return new Allocation(runs, speeds);
        }
    }
}
