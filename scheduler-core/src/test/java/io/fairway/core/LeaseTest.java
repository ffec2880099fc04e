package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Leases as every policy can use them: granted at admission, revocable at expiry, renewed or preempted. */
class LeaseTest {
    /** Admits in FIFO order with a 10-minute lease; at expiry renews jobs of the "keep" set, preempts the rest. */
    static final class LeasingPolicy implements SchedulingPolicy {
        @Override
        public String name() {
            return "leasing";
        }

        @Override
        public void plan(PolicyContext ctx) {
            for (JobStatus r : ctx.holding()) {
                if (r.admission().leaseExpired(ctx.now())) {
                    if (r.id().startsWith("keep")) {
                        ctx.setLease(r, ctx.now() + 600_000);
                    } else {
                        ctx.preempt(r, "lease expired");
                    }
                }
            }
            for (JobStatus p : ctx.pending()) {
                if (ctx.tryAdmit(p).admitted()) {
                    ctx.setLease(p, ctx.now() + 600_000);
                }
            }
        }
    }

    @Test
    void expiredLeasesAreRenewedOrRevoked() {
        AtomicLong now = new AtomicLong();
        Scheduler s = Scheduler.builder().clock(now::get).policy(new LeasingPolicy())
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(8).build()).build())
                .localQueue(new LocalQueue("default", "lq", "cq"))
                .node(Node.builder("n").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
        s.submit(JobSpec.builder("keep-1").queue("lq").members(1, Resources.builder().gpus(4).build()).build());
        s.submit(JobSpec.builder("lose-1").queue("lq").members(1, Resources.builder().gpus(4).build()).build());
        s.submit(JobSpec.builder("next").queue("lq").members(1, Resources.builder().gpus(4).build()).build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).hasSize(2).allSatisfy(d -> assertThat(((Admit) d).leaseExpiresAtMillis()).isEqualTo(600_000));
        s.reportStarted("keep-1");
        s.reportStarted("lose-1");

        now.set(300_000); // leases still valid: nothing moves
        assertThat(s.runRound().decisions()).isEmpty();

        now.set(600_000); // expired: keep-1 renewed, lose-1 revoked, next admitted in its place
        r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Preempt).extracting(d -> d.jobId()).containsExactly("lose-1");
        assertThat(r.decisions()).filteredOn(d -> d instanceof Admit).extracting(d -> d.jobId()).containsExactly("next");
        assertThat(r.leaseRenewals()).containsEntry("keep-1", 1_200_000L);
        assertThat(s.status("keep-1").orElseThrow().admission().leaseExpiresAtMillis()).isEqualTo(1_200_000L);
        assertThat(s.checkInvariants()).isEmpty();
    }
}
