package io.fairway.core.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Quota arithmetic over cohorts, with every number worked out by hand in the comments. */
class QuotaBookTest {
    private static final long NONE = ResourceQuota.UNLIMITED;
    private static final String GPU = QuotaBook.fr("h100", Resources.GPU);

    private static ClusterQueue cq(String name, String cohort, long nominal, long borrowingLimit, long lendingLimit) {
        return ClusterQueue.builder(name).cohort(cohort).resourceGroup(new ResourceGroup(List.of(Resources.GPU),
                List.of(new FlavorQuotas("h100", List.of(new ResourceQuota(Resources.GPU, nominal, borrowingLimit, lendingLimit)))))).build();
    }

    private static QuotaBook book(List<Cohort> cohorts, ClusterQueue... queues) {
        Map<String, ClusterQueue> q = new LinkedHashMap<>();
        for (ClusterQueue c : queues) {
            q.put(c.name(), c);
        }
        Map<String, Cohort> co = new LinkedHashMap<>();
        for (Cohort c : cohorts) {
            co.put(c.name(), c);
        }
        return new QuotaBook(q, co);
    }

    @Test
    void withoutACohortAQueueHasItsNominalQuotaAndNoMore() {
        QuotaBook b = book(List.of(), cq("a", null, 8, NONE, NONE));
        assertThat(b.available("a", GPU)).isEqualTo(8);
        b.add("a", GPU, 5);
        assertThat(b.used("a", GPU)).isEqualTo(5);
        assertThat(b.available("a", GPU)).isEqualTo(3);
        b.add("a", GPU, -5);
        assertThat(b.available("a", GPU)).isEqualTo(8);
        assertThat(b.violation()).isNull();
        assertThat(b.available("a", QuotaBook.fr("h100", "cpu"))).isZero();
        assertThat(b.available("nope", GPU)).isZero();
    }

    @Test
    void aResourcesUsageSumsItsFlavorsAndNotAResourceWhoseNameEndsLikeIt() {
        // a uses 5 GPUs of h100 and 3 of a100, and 7 of example.com/nvidia.com/gpu, whose name ends with the GPU's
        String otherGpu = "example.com/" + Resources.GPU;
        ClusterQueue a = ClusterQueue.builder("a").resourceGroup(new ResourceGroup(List.of(Resources.GPU, otherGpu), List.of(
                new FlavorQuotas("h100", List.of(new ResourceQuota(Resources.GPU, 8, NONE, NONE), new ResourceQuota(otherGpu, 8, NONE, NONE))),
                new FlavorQuotas("a100", List.of(new ResourceQuota(Resources.GPU, 8, NONE, NONE), new ResourceQuota(otherGpu, 8, NONE, NONE))))))
                .build();
        QuotaBook b = book(List.of(), a);
        b.add("a", GPU, 5);
        b.add("a", QuotaBook.fr("a100", Resources.GPU), 3);
        b.add("a", QuotaBook.fr("h100", otherGpu), 7);
        assertThat(b.usedResource("a", Resources.GPU)).isEqualTo(8);
        assertThat(b.usedResource("a", otherGpu)).isEqualTo(7);
        assertThat(b.usedResource("a", "cpu")).isZero();
        assertThat(b.usedResource("nope", Resources.GPU)).isZero();
    }

    @Test
    void aCohortLendsUnusedQuota() {
        // a: 8, b: 4, one cohort -> the cohort holds 12
        QuotaBook b = book(List.of(), cq("a", "c", 8, NONE, NONE), cq("b", "c", 4, NONE, NONE));
        assertThat(b.available("a", GPU)).isEqualTo(12);
        assertThat(b.available("b", GPU)).isEqualTo(12);
        b.add("a", GPU, 10); // a uses its 8 and borrows 2 of b's
        assertThat(b.available("a", GPU)).isEqualTo(2);
        assertThat(b.available("b", GPU)).isEqualTo(2); // b's own 4, minus the 2 lent
        assertThat(b.violation()).isNull();
        b.add("a", GPU, -10);
        assertThat(b.available("b", GPU)).isEqualTo(12);
    }

    @Test
    void borrowingLimitCapsWhatAQueueTakesAboveItsNominal() {
        // a: 8 with borrowingLimit 2; b: 8 -> a may reach 8 + 2 = 10 although the cohort has 16
        QuotaBook b = book(List.of(), cq("a", "c", 8, 2, NONE), cq("b", "c", 8, NONE, NONE));
        assertThat(b.available("a", GPU)).isEqualTo(10);
        b.add("a", GPU, 9);
        // min(8 - 9 + 2, 16 - 9) = 1
        assertThat(b.available("a", GPU)).isEqualTo(1);
        assertThat(b.available("b", GPU)).isEqualTo(7);
        // b, without a limit, takes the rest: 16 - 9 = 7
        b.add("b", GPU, 7);
        assertThat(b.available("a", GPU)).isZero();
        assertThat(b.violation()).isNull();
    }

    @Test
    void lendingLimitKeepsPartOfANominalQuotaForItsOwner() {
        // a: 8 lending at most 3 (5 guaranteed); b: 4 -> the cohort can give out 3 + 4 = 7
        QuotaBook b = book(List.of(), cq("a", "c", 8, NONE, 3), cq("b", "c", 4, NONE, NONE));
        assertThat(b.available("b", GPU)).isEqualTo(7);  // 4 own + 3 of a's
        assertThat(b.available("a", GPU)).isEqualTo(12); // 5 guaranteed + 7 in the cohort
        b.add("a", GPU, 6); // 5 guaranteed + 1 from the cohort
        assertThat(b.available("b", GPU)).isEqualTo(6);  // 4 own + 2 of a's lendable 3
        assertThat(b.available("a", GPU)).isEqualTo(6);  // 0 guaranteed left + 6 in the cohort
        b.add("a", GPU, -6);
        b.add("b", GPU, 7); // b borrows all a may lend
        assertThat(b.available("a", GPU)).isEqualTo(5);  // only the guaranteed part is left to a
        assertThat(b.violation()).isNull();
    }

    @Test
    void aCohortsOwnQuotaIsSharedByItsQueues() {
        Cohort rich = new Cohort("c", null, List.of(new ResourceGroup(List.of(Resources.GPU),
                List.of(new FlavorQuotas("h100", List.of(ResourceQuota.of(Resources.GPU, 4)))))), 1.0);
        // a: 2 + cohort's 4 = 6
        QuotaBook b = book(List.of(rich), cq("a", "c", 2, NONE, NONE));
        assertThat(b.available("a", GPU)).isEqualTo(6);
    }

    @Test
    void nestedCohortsLendUpAndDownTheTree() {
        // org <- {left <- a:4, right <- b:4}; nothing held back, so a sees all 8
        QuotaBook b = book(List.of(Cohort.of("org", null), Cohort.of("left", "org"), Cohort.of("right", "org")),
                cq("a", "left", 4, NONE, NONE), cq("b", "right", 4, NONE, NONE));
        assertThat(b.available("a", GPU)).isEqualTo(8);
        b.add("b", GPU, 6);
        assertThat(b.available("a", GPU)).isEqualTo(2);
        assertThat(b.violation()).isNull();
    }

    @Test
    void usageBeyondWhatMayBeBorrowedIsReportedAsAViolation() {
        QuotaBook b = book(List.of(), cq("a", "c", 8, 2, NONE), cq("b", "c", 8, NONE, NONE));
        b.add("a", GPU, 11); // nominal 8 + borrowingLimit 2 = 10
        assertThat(b.violation()).contains("ClusterQueue a").contains("11").contains("10");
    }
}
