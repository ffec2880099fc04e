package io.fairway.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.PriorityClass;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.admission.QuotaBook;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The preemption search's index keeps each ClusterQueue's candidates and usage up to date by change: after every
 * eviction, restore or resize in a round's plan it touches only the job's own queue, and lists candidates lazily by
 * merging the queues' orders. Over random histories — jobs admitted and finishing between rounds, and within each
 * round jobs evicted, put back and resized by the plan — its answers must equal those derived from scratch from
 * the running jobs at that moment: what each queue uses of each (flavor, resource) above or below nominal, which
 * jobs make it borrow, and the candidate lists of both rule sets (Kueue's and Fairway's strict), also when a list
 * is read while the search takes the candidates it has reached. The plan's quota book is charged as the engine's is
 * (jobs admitted in the round included), so a fresh index that answers "above nominal?" from the book while it has
 * built nothing is checked too, with jobs whose pod sets the book does not charge and jobs of a deleted ClusterQueue.
 */
class PreemptionIndexProperties {
    private static final String[] FLAVORS = {"f0", "f1"};
    /** A ClusterQueue that running jobs name but the configuration no longer has. */
    private static final String GONE = "gone";

    @Property(tries = 300)
    void incrementalCandidatesEqualCandidatesFromScratch(@ForAll long seed, @ForAll @IntRange(min = 1, max = 6) int rounds,
                                                          @ForAll @IntRange(min = 1, max = 60) int changesPerRound) {
        Random r = new Random(seed);
        World w = new World(r);
        Map<Long, JobStatus> holding = new TreeMap<>(); // by sequence, as the engine keeps them
        for (int round = 0; round < rounds; round++) {
            // between rounds: admissions and finishes (and re-admissions of a finished job's id, as a new status)
            int arrivals = r.nextInt(12);
            for (int i = 0; i < arrivals; i++) {
                JobStatus j = w.newHolding(r, round);
                holding.put(j.sequence(), j);
            }
            for (JobStatus j : new ArrayList<>(holding.values())) {
                if (r.nextInt(5) == 0) {
                    holding.remove(j.sequence());
                }
            }
            Snapshot s = w.snapshot(round, new ArrayList<>(holding.values()));
            FakePlan plan = new FakePlan(s);
            PreemptionIndex index = new PreemptionIndex(plan.asSearchPlan());
            List<JobStatus> running = s.holding();
            check(w, s, plan, index, r);
            for (int c = 0; c < changesPerRound && !running.isEmpty(); c++) {
                JobStatus j = running.get(r.nextInt(running.size()));
                int kind = r.nextInt(6);
                if (kind < 3) {
                    plan.preempted.add(j.id()); // evicted by the plan (again: no change)
                    plan.charge(j);
                } else if (kind < 5) {
                    plan.preempted.remove(j.id()); // put back
                    if (r.nextInt(3) == 0) {
                        plan.resized.remove(j.id());
                    }
                    plan.charge(j);
                } else {
                    plan.resized.add(j.id()); // resized: out of the plan as it was admitted
                    plan.charge(j);
                }
                if (r.nextInt(4) == 0) {
                    plan.admitElsewhere(w, r); // a job admitted in the round: charged, but no candidate
                }
                index.touched(j);
                if (r.nextInt(3) == 0 || c == changesPerRound - 1) {
                    check(w, s, plan, index, r);
                }
            }
        }
    }

    /** Compares every answer of the index with the one derived from scratch, for every queue and some preemptors. */
    private static void check(World w, Snapshot s, FakePlan plan, PreemptionIndex index, Random r) {
        Scratch scratch = new Scratch(s, plan);
        // a fresh index answers whether a queue is above nominal from the plan's quota book while it can (nothing built)
        PreemptionIndex fresh = new PreemptionIndex(plan.asSearchPlan());
        List<String> named = new ArrayList<>(w.queues.keySet());
        named.add(GONE);
        for (String q : named) {
            for (Set<String> pairs : w.pairSets()) {
                assertThat(fresh.heldAboveNominal(q, pairs)).as("%s above nominal in %s, fresh index", q, pairs).isEqualTo(scratch.above(q, pairs));
            }
        }
        for (String q : w.queues.keySet()) {
            for (Set<String> pairs : w.pairSets()) {
                assertThat(index.heldAboveNominal(q, pairs)).as("%s above nominal in %s", q, pairs).isEqualTo(scratch.above(q, pairs));
                assertThat(index.heldBelowNominal(q, pairs)).as("%s below nominal in %s", q, pairs).isEqualTo(scratch.below(q, pairs));
            }
            PreemptionIndex.Queue iq = index.queue(q);
            if (iq != null) {
                List<String> borrowers = new ArrayList<>();
                for (PreemptionIndex.Held h : index.borrowers(iq)) {
                    borrowers.add(h.job.id());
                    assertThat(index.borrowing(h)).isTrue();
                }
                assertThat(borrowers).as("borrowers of %s", q).containsExactlyElementsOf(scratch.borrowers(q));
            }
        }
        for (int k = 0; k < 4; k++) {
            ClusterQueue cq = w.queues.values().stream().toList().get(r.nextInt(w.queues.size()));
            JobStatus preemptor = w.preemptor(r, cq.name());
            Set<String> needed = w.pairSets().get(r.nextInt(w.pairSets().size()));
            boolean withOwn = r.nextBoolean();
            int leftBelow = r.nextInt(4);
            IntPredicate leftOut = r.nextBoolean() ? null : hp -> hp < leftBelow;
            List<String> expected = scratch.kueue(cq, preemptor, needed, leftOut, withOwn);
            assertThat(read(KueuePreemptor.candidates(index, cq, preemptor, needed, leftOut, withOwn), plan, index, r))
                    .as("Kueue candidates of %s at priority %d for %s", cq.name(), preemptor.spec().priority(), needed)
                    .containsExactlyElementsOf(expected);
            boolean borrowing = r.nextBoolean();
            assertThat(read(Preemptor.candidates(index, preemptor, cq, borrowing), plan, index, r))
                    .as("strict candidates of %s at priority %d, borrowing %s", cq.name(), preemptor.spec().priority(), borrowing)
                    .containsExactlyElementsOf(scratch.strict(cq, preemptor, borrowing));
        }
    }

    /**
     * Reads a whole listing; half the time as a search does, taking some of the candidates it reached out of the plan
     * as it goes, then putting them back (the plan is as it was afterwards).
     */
    private static List<String> read(PreemptionIndex.Listing l, FakePlan plan, PreemptionIndex index, Random r) {
        boolean take = r.nextBoolean();
        List<JobStatus> taken = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; l.has(i); i++) {
            JobStatus j = l.get(i).job;
            ids.add(j.id());
            if (take && r.nextBoolean() && !plan.outOfPlan(j.id())) {
                plan.preempted.add(j.id());
                plan.charge(j);
                index.touched(j);
                taken.add(j);
            }
        }
        for (JobStatus j : taken) {
            plan.preempted.remove(j.id());
            plan.charge(j);
            index.touched(j);
        }
        return ids;
    }

    /** Random ClusterQueues in cohort trees, two flavors, and the jobs they run. */
    private static final class World {
        final Map<String, ClusterQueue> queues = new LinkedHashMap<>();
        final Map<String, Cohort> cohorts = new LinkedHashMap<>();
        long sequence;
        long order;

        World(Random r) {
            cohorts.put("root", Cohort.of("root", null));
            cohorts.put("child", Cohort.of("child", "root"));
            cohorts.put("other", Cohort.of("other", null));
            String[] placeIn = {"root", "child", "other", null};
            int n = 2 + r.nextInt(4);
            for (int i = 0; i < n; i++) {
                PreemptionPolicy.BorrowWithinCohort borrow = PreemptionPolicy.BorrowWithinCohort.values()[r.nextInt(2)];
                Integer threshold = borrow == PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY && r.nextBoolean() ? r.nextInt(4) : null;
                PreemptionPolicy p = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.values()[r.nextInt(3)],
                        PreemptionPolicy.ReclaimWithinCohort.values()[r.nextInt(3)], borrow, threshold,
                        PreemptionPolicy.CohortRules.values()[r.nextInt(2)]);
                List<FlavorQuotas> flavors = new ArrayList<>();
                flavors.add(new FlavorQuotas("f0", List.of(ResourceQuota.of("cpu", r.nextInt(12)), ResourceQuota.of(Resources.GPU, r.nextInt(6)))));
                if (r.nextBoolean()) {
                    flavors.add(new FlavorQuotas("f1", List.of(ResourceQuota.of("cpu", r.nextInt(8)), ResourceQuota.of(Resources.GPU, r.nextInt(4)))));
                }
                queues.put("cq" + i, ClusterQueue.builder("cq" + i).cohort(placeIn[r.nextInt(placeIn.length)]).preemption(p)
                        .resourceGroup(new ResourceGroup(List.of("cpu", Resources.GPU), flavors)).build());
            }
        }

        List<Set<String>> pairSets() {
            List<Set<String>> l = new ArrayList<>();
            for (String f : FLAVORS) {
                l.add(Set.of(QuotaBook.fr(f, "cpu")));
                l.add(Set.of(QuotaBook.fr(f, Resources.GPU)));
                l.add(Set.of(QuotaBook.fr(f, "cpu"), QuotaBook.fr(f, Resources.GPU)));
            }
            l.add(Set.of(QuotaBook.fr("f0", "cpu"), QuotaBook.fr("f1", Resources.GPU)));
            return l;
        }

        /** A job that runs from now on: one or two pod sets of cpu and GPUs, in one of the flavors, maybe non-preemptible. */
        JobStatus newHolding(Random r, int round) {
            List<String> names = new ArrayList<>(queues.keySet());
            String cq = r.nextInt(12) == 0 ? GONE : names.get(r.nextInt(names.size())); // a ClusterQueue since deleted, at times
            long seq = sequence++;
            JobSpec.Builder b = JobSpec.builder("j" + seq).queue("lq").priority(r.nextInt(4)).submitTimeMillis(r.nextInt(5));
            Map<String, String> flavors = new HashMap<>();
            Map<String, Integer> counts = new HashMap<>();
            int podSets = 1 + r.nextInt(2);
            for (int p = 0; p < podSets; p++) {
                Resources.Builder res = Resources.builder();
                int kind = r.nextInt(3); // cpu, GPUs, or both
                if (kind != 1) {
                    res.cpu(1 + r.nextInt(3));
                }
                if (kind != 0) {
                    res.gpus(1 + r.nextInt(2));
                }
                int count = 1 + r.nextInt(3);
                Resources requested = res.build();
                b.podSet(PodSet.of("ps" + p, count, requested));
                String flavor = FLAVORS[r.nextInt(2)];
                if (r.nextInt(6) == 0) {
                    for (String name : requested.names()) {
                        flavors.put(Admit.resourceKey("ps" + p, name), flavor); // per resource only: the book skips it
                    }
                } else {
                    flavors.put("ps" + p, flavor);
                }
                if (r.nextInt(4) == 0) {
                    counts.put("ps" + p, 1 + r.nextInt(count)); // admitted with fewer members
                }
            }
            if (flavors.size() < 2) { // a lone per-resource entry is not read as one: name the pod set's flavor too
                for (String key : new ArrayList<>(flavors.keySet())) {
                    if (key.contains("/")) {
                        flavors.put(key.substring(0, key.indexOf('/')), flavors.get(key));
                    }
                }
            }
            JobSpec spec = b.build();
            if (r.nextInt(6) == 0) {
                spec = spec.withPriorityClass(new PriorityClass("keep", spec.priority(), false));
            }
            long admittedAt = round * 10L + r.nextInt(3);
            Admit a = new Admit(spec.id(), cq, flavors, counts, new Placement(List.of(), null, 1.0), admittedAt, Admit.NO_LEASE, order++);
            return new JobStatus(spec, JobState.RUNNING, null, a, admittedAt + r.nextInt(2), 0, seq, 0, 0, 0);
        }

        /** A waiting job of a queue (it holds nothing), of a random priority and submission time. */
        JobStatus preemptor(Random r, String cq) {
            JobSpec spec = JobSpec.builder("waiting-" + r.nextInt(1000)).queue("lq").priority(r.nextInt(5)).submitTimeMillis(r.nextInt(5))
                    .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).build())).build();
            return new JobStatus(spec, JobState.PENDING, null, null, 0, 0, r.nextInt((int) Math.max(1, sequence + 1)), 0, 0, 0);
        }

        Snapshot snapshot(int round, List<JobStatus> holding) {
            Map<String, ResourceFlavor> f = new LinkedHashMap<>();
            for (String name : FLAVORS) {
                f.put(name, ResourceFlavor.of(name));
            }
            return new Snapshot(round, round * 10L, 1, Map.of(), List.of(), f, queues, cohorts, Map.of(), List.of(), holding);
        }
    }

    /** The answers derived from scratch from the snapshot's running jobs and what the plan took out, on every call. */
    private static final class Scratch {
        final Snapshot s;
        final FakePlan plan;
        final QuotaBook quota;

        Scratch(Snapshot s, FakePlan plan) {
            this.s = s;
            this.plan = plan;
            this.quota = plan.quota;
        }

        List<JobStatus> jobsOf(String q) {
            return s.holding().stream().filter(j -> j.admission().clusterQueue().equals(q)).toList();
        }

        Map<String, Long> charges(JobStatus j) {
            Map<String, Long> m = new LinkedHashMap<>();
            for (PodSet ps : j.spec().podSets()) {
                int n = j.admission().counts().getOrDefault(ps.name(), ps.count());
                ps.total(n).asMap().forEach((res, v) -> m.merge(QuotaBook.fr(j.admission().flavorOf(ps.name(), res), res), v, Long::sum));
            }
            return m;
        }

        boolean in(JobStatus j) {
            return !plan.outOfPlan(j.id());
        }

        /** Per pair any of the queue's jobs is charged for: what its jobs still in the plan use. */
        Map<String, Long> used(String q) {
            Map<String, Long> used = new HashMap<>();
            for (JobStatus j : jobsOf(q)) {
                for (Map.Entry<String, Long> e : charges(j).entrySet()) {
                    used.merge(e.getKey(), in(j) ? e.getValue() : 0L, Long::sum);
                }
            }
            return used;
        }

        boolean above(String q, Set<String> pairs) {
            Map<String, Long> used = used(q);
            return pairs.stream().anyMatch(fr -> used.containsKey(fr) && used.get(fr) > quota.nominal(q, fr));
        }

        boolean below(String q, Set<String> pairs) {
            Map<String, Long> used = used(q);
            return pairs.stream().anyMatch(fr -> used.containsKey(fr) && used.get(fr) < quota.nominal(q, fr));
        }

        /** The jobs still in the plan that, counted in admission order with those admitted before, take the queue above nominal. */
        Set<String> borrowing(String q) {
            List<JobStatus> jobs = new ArrayList<>(jobsOf(q));
            jobs.sort(Comparator.comparingLong((JobStatus j) -> j.admission().admittedAtMillis())
                    .thenComparingLong(j -> j.admission().admissionOrder()).thenComparingLong(JobStatus::sequence));
            Map<String, Long> cumulative = new HashMap<>();
            Set<String> out = new HashSet<>();
            for (JobStatus j : jobs) {
                if (!in(j)) {
                    continue;
                }
                for (PodSet ps : j.spec().podSets()) {
                    int n = j.admission().counts().getOrDefault(ps.name(), ps.count());
                    for (Map.Entry<String, Long> e : ps.total(n).asMap().entrySet()) {
                        String fr = QuotaBook.fr(j.admission().flavorOf(ps.name(), e.getKey()), e.getKey());
                        if (cumulative.merge(fr, e.getValue(), Long::sum) > quota.nominal(q, fr)) {
                            out.add(j.id());
                        }
                    }
                }
            }
            return out;
        }

        /** Candidate order: lowest priority, latest state change, highest sequence, then place among the running jobs. */
        List<JobStatus> inCandidateOrder(List<JobStatus> jobs) {
            List<JobStatus> l = new ArrayList<>(jobs);
            l.sort(Comparator.comparingInt((JobStatus j) -> j.spec().priority()).thenComparing(JobStatus::stateSinceMillis, Comparator.reverseOrder())
                    .thenComparing(JobStatus::sequence, Comparator.reverseOrder()).thenComparingInt(j -> s.holding().indexOf(j)));
            return l;
        }

        List<String> borrowers(String q) {
            Set<String> b = borrowing(q);
            return inCandidateOrder(jobsOf(q)).stream().filter(j -> in(j) && b.contains(j.id())).map(JobStatus::id).toList();
        }

        String root(String cohort) {
            String c = cohort;
            while (c != null && s.cohorts().get(c) != null && s.cohorts().get(c).parent() != null) {
                c = s.cohorts().get(c).parent();
            }
            return c;
        }

        List<JobStatus> tree(ClusterQueue cq) {
            String root = root(cq.cohort());
            if (root == null) {
                return List.of();
            }
            return inCandidateOrder(s.holding().stream().filter(j -> {
                ClusterQueue q = s.clusterQueues().get(j.admission().clusterQueue());
                return q != null && root.equals(root(q.cohort()));
            }).toList());
        }

        boolean usesAny(JobStatus j, Set<String> pairs) {
            for (PodSet ps : j.spec().podSets()) {
                for (String res : ps.resources().names()) {
                    if (pairs.contains(QuotaBook.fr(j.admission().flavorOf(ps.name(), res), res))) {
                        return true;
                    }
                }
            }
            return false;
        }

        boolean newer(JobStatus a, JobStatus b) {
            long ta = a.spec().submitTimeMillis();
            long tb = b.spec().submitTimeMillis();
            return ta > tb || (ta == tb && a.sequence() > b.sequence());
        }

        /** The queue's own candidates by withinClusterQueue, with {@code also} as the last condition. */
        List<String> own(ClusterQueue cq, JobStatus job, java.util.function.Predicate<JobStatus> also) {
            PreemptionPolicy p = cq.preemption();
            List<String> out = new ArrayList<>();
            if (p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.NEVER) {
                return out;
            }
            boolean newerEqual = p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY;
            int prio = job.spec().priority();
            for (JobStatus h : inCandidateOrder(jobsOf(cq.name()))) {
                int hp = h.spec().priority();
                if (hp > prio || (hp == prio && !newerEqual)) {
                    break;
                }
                if (hp == prio && !newer(h, job)) {
                    continue;
                }
                if (in(h) && h.spec().preemptible() && also.test(h)) {
                    out.add(h.id());
                }
            }
            return out;
        }

        /** Kueue's rules: every (lower-priority) job of another queue of the tree that borrows in what is needed, then the own queue's. */
        List<String> kueue(ClusterQueue cq, JobStatus job, Set<String> needed, IntPredicate leftOut, boolean withOwn) {
            PreemptionPolicy p = cq.preemption();
            int prio = job.spec().priority();
            List<String> out = new ArrayList<>();
            if (p.reclaimWithinCohort() != PreemptionPolicy.ReclaimWithinCohort.NEVER) {
                boolean any = p.reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.ANY;
                Map<String, Boolean> borrows = new HashMap<>();
                for (JobStatus h : tree(cq)) {
                    String q = h.admission().clusterQueue();
                    if (!any && h.spec().priority() >= prio) {
                        break;
                    }
                    if (q.equals(cq.name()) || !in(h) || !h.spec().preemptible()) {
                        continue;
                    }
                    if (!borrows.computeIfAbsent(q, x -> above(x, needed)) || !usesAny(h, needed)
                            || (leftOut != null && leftOut.test(h.spec().priority()))) {
                        continue;
                    }
                    out.add(h.id());
                }
            }
            if (withOwn) {
                out.addAll(own(cq, job, h -> usesAny(h, needed)));
            }
            return out;
        }

        /** Fairway's strict rules: other queues' borrowing jobs, then the own queue's (only borrowing ones while borrowing). */
        List<String> strict(ClusterQueue cq, JobStatus job, boolean borrowing) {
            PreemptionPolicy p = cq.preemption();
            int prio = job.spec().priority();
            List<String> out = new ArrayList<>();
            boolean others = borrowing ? p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY
                    : p.reclaimWithinCohort() != PreemptionPolicy.ReclaimWithinCohort.NEVER;
            Map<String, Set<String>> borrowingByQueue = new HashMap<>();
            if (others) {
                boolean any = !borrowing && p.reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.ANY;
                for (JobStatus h : tree(cq)) {
                    String q = h.admission().clusterQueue();
                    if (!in(h) || !borrowingByQueue.computeIfAbsent(q, this::borrowing).contains(h.id())) {
                        continue;
                    }
                    if (!any && h.spec().priority() >= prio) {
                        break;
                    }
                    if (borrowing && p.maxPriorityThreshold() != null && h.spec().priority() > p.maxPriorityThreshold()) {
                        break;
                    }
                    if (!q.equals(cq.name()) && h.spec().preemptible()) {
                        out.add(h.id());
                    }
                }
            }
            Set<String> ownBorrowing = borrowing(cq.name());
            out.addAll(own(cq, job, h -> !borrowing || ownBorrowing.contains(h.id())));
            return out;
        }
    }

    /**
     * A round's plan as the index reads it: the snapshot, its quota, and which running jobs it took out. The quota book
     * is charged as the engine's plan charges it: every running job still in the plan, a resized one at its new size
     * (one member per pod set here), and jobs admitted in the round (no candidates) — only pod sets whose admission
     * names their flavor, in ClusterQueues the book knows.
     */
    private static final class FakePlan {
        final Snapshot snapshot;
        final QuotaBook quota;
        final Set<String> preempted = new HashSet<>();
        final Set<String> resized = new HashSet<>();
        /** What each running job is charged now in its ClusterQueue, by job id, then flavor/resource key. */
        private final Map<String, Map<String, Long>> charged = new HashMap<>();

        FakePlan(Snapshot snapshot) {
            this.snapshot = snapshot;
            this.quota = new QuotaBook(snapshot.clusterQueues(), snapshot.cohorts());
            for (JobStatus j : snapshot.holding()) {
                charge(j);
            }
        }

        /** Charges the job what it holds in the plan now, giving back what it was charged before. */
        void charge(JobStatus j) {
            Map<String, Long> before = charged.getOrDefault(j.id(), Map.of());
            Map<String, Long> now = new HashMap<>();
            Admit a = j.admission();
            if (!preempted.contains(j.id()) && quota.hasQueue(a.clusterQueue())) {
                for (PodSet ps : j.spec().podSets()) {
                    if (a.flavors().get(ps.name()) == null) {
                        continue; // the book charges a pod set only under its own flavor entry
                    }
                    int n = resized.contains(j.id()) ? 1 : a.counts().getOrDefault(ps.name(), ps.count());
                    for (Map.Entry<String, Long> e : ps.total(n).asMap().entrySet()) {
                        now.merge(QuotaBook.fr(a.flavorOf(ps.name(), e.getKey()), e.getKey()), e.getValue(), Long::sum);
                    }
                }
            }
            before.forEach((fr, v) -> quota.add(a.clusterQueue(), fr, -v));
            now.forEach((fr, v) -> quota.add(a.clusterQueue(), fr, v));
            charged.put(j.id(), now);
        }

        /** Charges a job admitted in this round to a random queue: the book's usage grows, the index's does not. */
        void admitElsewhere(World w, Random r) {
            List<String> names = new ArrayList<>(w.queues.keySet());
            String fr = w.pairSets().get(r.nextInt(w.pairSets().size())).iterator().next();
            quota.add(names.get(r.nextInt(names.size())), fr, 1 + r.nextInt(4));
        }

        boolean outOfPlan(String jobId) {
            return preempted.contains(jobId) || resized.contains(jobId);
        }

        /** The index reads only the snapshot, the quota and which jobs left the plan; any other call fails the property. */
        SearchPlan asSearchPlan() {
            InvocationHandler reads = (proxy, method, args) -> {
                if (method.getDeclaringClass() == Object.class) {
                    return method.invoke(this, args);
                }
                return switch (method.getName()) {
                    case "snapshot" -> snapshot;
                    case "quota" -> quota;
                    case "outOfPlan" -> outOfPlan((String) args[0]);
                    default -> throw new AssertionError("the preemption index called SearchPlan." + method.getName()
                            + ", which it has no use for");
                };
            };
            return (SearchPlan) Proxy.newProxyInstance(SearchPlan.class.getClassLoader(), new Class<?>[] {SearchPlan.class}, reads);
        }
    }
}
