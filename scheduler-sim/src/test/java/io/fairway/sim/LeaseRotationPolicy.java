package io.fairway.sim;

import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.List;
import java.util.Map;

/**
 * A test policy that time-slices with leases: every admission gets a 60 s lease (parameter {@code leaseSeconds}); when a
 * lease expires and jobs wait, the job is preempted, else its lease is renewed. Only the simulator's rounds at lease
 * expiries let it act.
 */
public final class LeaseRotationPolicy implements SchedulingPolicy {
    static final long LEASE_MILLIS = 60_000;

    private final long leaseMillis;

    LeaseRotationPolicy(long leaseMillis) {
        this.leaseMillis = leaseMillis;
    }

    @Override
    public String name() {
        return Provider.NAME;
    }

    @Override
    public void plan(PolicyContext ctx) {
        long now = ctx.now();
        List<JobStatus> pending = ctx.pending();
        for (JobStatus r : ctx.holding()) {
            if (r.admission() != null && r.admission().leaseExpired(now)) {
                if (pending.isEmpty()) {
                    ctx.setLease(r, now + leaseMillis);
                } else {
                    ctx.preempt(r, "lease expired");
                }
            }
        }
        for (JobStatus p : pending) {
            Attempt a = ctx.tryAdmit(p);
            if (a.admitted()) {
                ctx.setLease(p, now + leaseMillis);
            }
        }
    }

    /** Registered for tests only (src/test/resources/META-INF/services). */
    public static final class Provider implements PolicyProvider {
        static final String NAME = "test-lease-rotation";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "test only: 60 s leases, preempted at expiry when jobs wait";
        }

        @Override
        public java.util.Set<String> parameters() {
            return java.util.Set.of("leaseSeconds");
        }

        @Override
        public SchedulingPolicy create(Map<String, String> parameters) {
            String s = parameters.get("leaseSeconds");
            return new LeaseRotationPolicy(s == null ? LEASE_MILLIS : Math.round(Double.parseDouble(s) * 1000));
        }
    }
}
