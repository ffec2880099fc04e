package io.fairway.policies.fifo;

import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * Every app (job set) gets an equal share of the cluster's GPUs, {@code totalGpus ÷ N} with N the apps that have
 * live GPU jobs (Gavel's "isolated" allocation; the private 1/N share Themis' T_id is defined against). Pending jobs
 * are admitted app by app, the app using the smallest fraction of its share first (among apps using as much, the one
 * whose oldest waiting job was submitted first), in submission order within an app, as long as the app stays within its share; an app using nothing may start one job larger than its share (a
 * gang cannot be split), so nothing waits forever. With {@code workConserving}, GPUs nobody can use within their
 * share then go to the remaining jobs in the same order. Shares are enforced at admission: nothing is preempted when
 * N grows.
 *
 * <pre>{@code
 * SchedulingPolicy iso = Policies.create("isolated-share", Map.of("workConserving", "false"));
 * }</pre>
 */
public final class IsolatedSharePolicy implements SchedulingPolicy {
    private final String name;
    private final boolean workConserving;

    /**
     * @param name the policy name
     * @param workConserving whether GPUs left over within the shares go to jobs beyond their app's share
     */
    public IsolatedSharePolicy(String name, boolean workConserving) {
        this.name = name;
        this.workConserving = workConserving;
    }

    @Override
    public String name() {
        return name;
    }

    /** An app's queue and usage. */
    private static final class App {
        final String name;
        final ArrayDeque<JobStatus> waiting = new ArrayDeque<>();
        long used;

        App(String name) {
            this.name = name;
        }
    }

    @Override
    public void plan(PolicyContext ctx) {
        Map<String, App> apps = new TreeMap<>();
        for (JobStatus r : ctx.holding()) {
            if (r.admission() != null && r.spec().totalGpus() > 0) {
                apps.computeIfAbsent(r.spec().jobSet(), App::new).used += r.admission().placement().gpuCount();
            }
        }
        List<JobStatus> pending = new ArrayList<>(ctx.pending());
        pending.sort(JobOrder.SUBMISSION);
        for (JobStatus j : pending) {
            if (j.spec().totalGpus() == 0) {
                ctx.tryAdmit(j);
            } else {
                apps.computeIfAbsent(j.spec().jobSet(), App::new).waiting.add(j);
            }
        }
        if (apps.isEmpty()) {
            return;
        }
        double share = (double) ctx.capacity().totalGpus() / apps.size();
        // Apps using as much go by their oldest waiting job: a job is never overtaken for ever by apps that arrive after it.
        PriorityQueue<App> order = new PriorityQueue<>(Comparator.comparingLong((App a) -> a.used)
                .thenComparing(a -> a.waiting.peek(), JobOrder.SUBMISSION)
                .thenComparing(a -> a.name));
        for (App a : apps.values()) {
            if (!a.waiting.isEmpty()) {
                order.add(a);
            }
        }
        List<JobStatus> beyondShare = new ArrayList<>();
        while (!order.isEmpty()) {
            App a = order.poll();
            JobStatus j = a.waiting.poll();
            long g = j.spec().totalGpus();
            if (a.used + g <= share + 1e-9 || a.used == 0) {
                io.fairway.api.spi.Attempt at = OrderedPolicy.admit(ctx, j, false);
                if (at.admitted()) {
                    a.used += at.admission().placement().gpuCount();
                }
            } else {
                beyondShare.add(j);
                ctx.leaveWaiting(j, PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, String.format(Locale.ROOT,
                        "isolated share: app %s uses %d GPUs of its share of %.1f", a.name, a.used, share)));
            }
            if (!a.waiting.isEmpty()) {
                order.add(a);
            }
        }
        if (workConserving) {
            for (JobStatus j : beyondShare) {
                OrderedPolicy.admit(ctx, j, false);
            }
        }
    }
}
