package io.fairway.core.validation;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ResourceGroup;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.admission.QuotaBook;
import io.fairway.core.placement.PlacementCheck;
import io.fairway.core.plan.PlanContext;
import io.fairway.core.plan.PlanOutput;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Re-checks a whole plan from the snapshot, independently of how it was made: preemptions name jobs that
 * hold resources; each admission names a pending job of the right ClusterQueue, sizes within min..max,
 * flavors of that queue, quota within what the queue may use at every level of the cohort tree, and a
 * placement that holds every capacity, exclusivity, gang and topology invariant. What fails is refused.
 */
public final class Validator {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Validator.class);
    /** The accepted part of a plan and the refusals. */
    public record Outcome(List<Preempt> preemptions, List<Admit> admissions, Map<String, String> refusedAdmissions, List<String> refused,
                          List<Admit> resizes) {
    }

    /**
     * @param snapshot the state the plan must hold on
     * @param preemptions proposed preemptions
     * @param admissions proposed admissions, in order
     * @return what holds
     */
    public static Outcome validate(Snapshot snapshot, List<Preempt> preemptions, List<Admit> admissions) {
        return validate(snapshot, preemptions, List.of(), admissions);
    }

    private Validator() {
    }

    /**
     * The outcome of a plan. A plan made by the engine's services alone ({@link PlanOutput#engineOnly()}) had its
     * admissions searched on the same capacity and quota the validator would rebuild, so they are accepted
     * without the rebuild; the quota invariant is still checked on the plan's own books, and a plan that breaks it
     * (or that is not engine-only) goes through {@link #validate(Snapshot, List, List, List)} in full.
     *
     * @param snapshot the state the plan must hold on
     * @param out the plan's output
     * @return what holds
     */
    public static Outcome validate(Snapshot snapshot, PlanOutput out) {
        if (out.engineOnly() && out.quota().violation() == null) {
            return new Outcome(out.preemptions(), out.admissions(), Map.of(), List.of(), out.resizes());
        }
        return validate(snapshot, out.preemptions(), out.resizes(), out.admissions());
    }

    /**
     * @param snapshot the state the plan must hold on
     * @param preemptions proposed preemptions
     * @param resizes proposed new admissions of resized jobs that hold resources
     * @param admissions proposed admissions, in order
     * @return what holds
     */
    public static Outcome validate(Snapshot snapshot, List<Preempt> preemptions, List<Admit> resizes, List<Admit> admissions) {
        Map<String, JobStatus> holding = new HashMap<>();
        for (JobStatus j : snapshot.holding()) {
            holding.put(j.id(), j);
        }
        Map<String, JobStatus> pending = pendingAdmitted(snapshot, admissions);
        List<Admit> ordered = shrinksFirst(resizes, holding);
        // Every resized job gives back what it held before any resize is checked: resized jobs may trade GPUs (one
        // grows into what another leaves in the same plan, both ways), which no order of one-by-one checks accepts.
        // A refused resize keeps the job where it was, which may take back room an accepted resize used: the check
        // is then made again without the refused resizes, until none is refused (at most once per resize).
        Map<String, String> refusedResizes = new LinkedHashMap<>();
        PlanContext ctx;
        List<Preempt> okPreempt;
        List<String> refused;
        List<Admit> okResizes;
        while (true) {
            ctx = new PlanContext(snapshot, false);
            okPreempt = new ArrayList<>();
            refused = new ArrayList<>();
            preempt(ctx, preemptions, holding, okPreempt, refused);
            okResizes = new ArrayList<>();
            if (!checkResizes(ctx, snapshot, ordered, holding, refusedResizes, okResizes)) {
                break;
            }
        }
        for (Map.Entry<String, String> e : refusedResizes.entrySet()) {
            refused.add("resize " + e.getKey() + ": " + e.getValue());
        }
        List<Admit> ok = new ArrayList<>();
        Map<String, String> refusedAdmissions = new LinkedHashMap<>();
        for (Admit a : admissions) {
            String err = check(ctx, snapshot, pending.get(a.jobId()), a);
            if (err != null) {
                refused.add("admit " + a.jobId() + ": " + err);
                refusedAdmissions.put(a.jobId(), err);
            } else {
                ok.add(a);
            }
        }
        String quotaViolation = ctx.plan().quotaBook().violation();
        if (quotaViolation != null) {
            // Cannot happen when every admission passed its check (usage the snapshot already had above a lowered
            // quota is allowed; see QuotaBook.tolerate). A last line of defence that never stops the round: what the
            // plan would add is refused, its preemptions (which only free quota) are kept.
            LOG.error("round {}: quota invariant broken after validation ({}); the plan's admissions and resizes are refused",
                    snapshot.round(), quotaViolation);
            String why = "the plan as a whole breaks the quota invariant: " + quotaViolation;
            for (Admit a : ok) {
                refused.add("admit " + a.jobId() + ": " + why);
                refusedAdmissions.put(a.jobId(), why);
            }
            for (Admit r : okResizes) {
                refused.add("resize " + r.jobId() + ": " + why);
            }
            return new Outcome(okPreempt, List.of(), refusedAdmissions, refused, List.of());
        }
        return new Outcome(okPreempt, ok, refusedAdmissions, refused, okResizes);
    }

    /** The pending jobs the plan admits: one pass over the pending list, no index of all of it. */
    private static Map<String, JobStatus> pendingAdmitted(Snapshot snapshot, List<Admit> admissions) {
        java.util.Set<String> wanted = new java.util.HashSet<>();
        for (Admit a : admissions) {
            wanted.add(a.jobId());
        }
        Map<String, JobStatus> pending = new HashMap<>();
        if (!wanted.isEmpty()) {
            for (JobStatus j : snapshot.pending()) {
                if (wanted.contains(j.id())) {
                    pending.put(j.id(), j);
                }
            }
        }
        return pending;
    }

    /** The resizes, shrinks first, in the policy's order otherwise (a refusal names the first resize that could not fit). */
    private static List<Admit> shrinksFirst(List<Admit> resizes, Map<String, JobStatus> holding) {
        List<Admit> ordered = new ArrayList<>();
        List<Admit> grows = new ArrayList<>();
        for (Admit r : resizes) {
            JobStatus j = holding.get(r.jobId());
            boolean shrinkOnly = j != null && j.admission() != null
                    && new java.util.HashSet<>(j.admission().placement().members()).containsAll(r.placement().members());
            (shrinkOnly ? ordered : grows).add(r);
        }
        ordered.addAll(grows);
        return ordered;
    }

    /** Applies the preemptions to the plan: into {@code ok} those it takes, into {@code refused} why the others are not. */
    private static void preempt(PlanContext ctx, List<Preempt> preemptions, Map<String, JobStatus> holding, List<Preempt> ok, List<String> refused) {
        for (Preempt p : preemptions) {
            JobStatus j = holding.get(p.jobId());
            if (j != null && !j.spec().preemptible()) {
                refused.add("preempt " + p.jobId() + ": its priority class " + j.spec().priorityClass().name() + " is not preemptible");
            } else if (j == null || !ctx.preempt(j, p.reason())) {
                refused.add("preempt " + p.jobId() + ": the job holds no resources");
            } else {
                ok.add(p);
            }
        }
    }

    /**
     * Releases every resized job not yet refused, then checks each resize on the plan: into {@code ok} those that fit,
     * into {@code refusedResizes} why the others do not.
     *
     * @return true when this pass refused a resize (the check is then made again without it)
     */
    private static boolean checkResizes(PlanContext ctx, Snapshot snapshot, List<Admit> ordered, Map<String, JobStatus> holding,
                                        Map<String, String> refusedResizes, List<Admit> ok) {
        List<Admit> tried = new ArrayList<>();
        for (Admit r : ordered) {
            JobStatus j = holding.get(r.jobId());
            if (refusedResizes.containsKey(r.jobId())) {
                continue;
            }
            if (j == null || !ctx.preempt(j, "")) {
                refusedResizes.put(r.jobId(), "the job holds no resources");
                continue;
            }
            tried.add(r);
        }
        boolean more = false;
        for (Admit r : tried) {
            JobStatus j = holding.get(r.jobId());
            String err = checkAdmission(ctx, snapshot, j, r, r.clusterQueue(), new java.util.HashSet<>(j.admission().placement().members()));
            if (err != null) {
                refusedResizes.put(r.jobId(), err);
                more = true;
            } else {
                ok.add(r);
            }
        }
        return more;
    }

    private static String check(PlanContext ctx, Snapshot snapshot, JobStatus job, Admit a) {
        if (job == null) {
            return "the job is not pending";
        }
        if (ctx.plan().admitted().containsKey(a.jobId())) {
            return "admitted twice in one plan";
        }
        String cqName = ctx.clusterQueueOf(job);
        if (cqName == null || !cqName.equals(a.clusterQueue())) {
            return "charged to ClusterQueue " + a.clusterQueue() + " but the job's queue resolves to " + cqName;
        }
        return checkAdmission(ctx, snapshot, job, a, cqName, java.util.Set.of());
    }

    private static String checkAdmission(PlanContext ctx, Snapshot snapshot, JobStatus job, Admit a, String cqName,
                                         java.util.Set<io.fairway.api.decision.MemberPlacement> staying) {
        ClusterQueue cq = snapshot.clusterQueues().get(cqName);
        if (cq == null) {
            return "ClusterQueue " + cqName + " does not exist";
        }
        ctx.plan().releaseNodeReservationQuota(a.jobId()); // a job waiting for nodes is charged for its admission instead
        Map<String, Long> usage = new LinkedHashMap<>();
        for (PodSet ps : job.spec().podSets()) {
            Integer m = a.counts().get(ps.name());
            if (m == null || m < ps.minCount() || m > ps.count()) {
                return "pod set \"" + ps.name() + "\": size " + m + " outside " + ps.minCount() + ".." + ps.count();
            }
            if (a.placement().count(ps.name()) != m) {
                return "pod set \"" + ps.name() + "\": " + a.placement().count(ps.name()) + " members placed, " + m + " admitted";
            }
            for (String r : ps.resources().names()) {
                String flavor = a.flavorOf(ps.name(), r);
                ResourceGroup g = cq.groupFor(r);
                if (g == null || g.flavors().stream().noneMatch(f -> f.flavor().equals(flavor))) {
                    return "flavor " + flavor + " gives no quota for " + r + " in ClusterQueue " + cqName;
                }
            }
            final int members = m;
            ps.total(members).asMap().forEach((r, v) -> usage.merge(QuotaBook.fr(a.flavorOf(ps.name(), r), r), v, Long::sum));
        }
        for (Map.Entry<String, Long> e : usage.entrySet()) {
            long avail = ctx.plan().quotaBook().available(cqName, e.getKey());
            if (e.getValue() > avail) {
                return "quota: needs " + e.getValue() + " of " + e.getKey().replace('\u0000', '/') + ", ClusterQueue " + cqName
                        + " may use " + avail + " more";
            }
        }
        PlacementCheck.Result r = PlacementCheck.takeIfValid(ctx.plan().capacityPlan(), job.spec(), a.placement(), ctx.plan().flavorSpecs(a.flavors()),
                staying);
        if (r.error() != null) {
            return r.error();
        }
        usage.forEach((fr, v) -> ctx.plan().quotaBook().add(cqName, fr, v));
        ctx.plan().admitted().put(a.jobId(), a);
        return null;
    }
}
