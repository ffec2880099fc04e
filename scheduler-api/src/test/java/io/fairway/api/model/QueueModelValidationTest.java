package io.fairway.api.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ClusterQueues, cohorts, resource groups and quotas refuse what Kueue would refuse, naming field and value. */
class QueueModelValidationTest {
    private static final String GPU = Resources.GPU;

    private static ResourceGroup gpuGroup(String flavor, ResourceQuota q) {
        return new ResourceGroup(List.of(GPU), List.of(new FlavorQuotas(flavor, List.of(q))));
    }

    @Test
    void negativeNominalQuotaIsRefused() {
        assertThatThrownBy(() -> ResourceQuota.of("cpu", -1))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("nominalQuota");
                    assertThat(e.value()).isEqualTo(-1L);
                })
                .hasMessage("resource cpu: nominalQuota must be >= 0, was -1");
    }

    @Test
    void negativeBorrowingAndLendingLimitsAreRefused() {
        assertThatThrownBy(() -> new ResourceQuota(GPU, 8, -2, ResourceQuota.UNLIMITED))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("borrowingLimit"))
                .hasMessageContaining(GPU).hasMessageContaining("-2");
        assertThatThrownBy(() -> new ResourceQuota(GPU, 8, ResourceQuota.UNLIMITED, -3))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("lendingLimit"))
                .hasMessageContaining(GPU).hasMessageContaining("-3");
    }

    @Test
    void lendingLimitAboveNominalIsRefused() {
        assertThatThrownBy(() -> new ResourceQuota(GPU, 8, ResourceQuota.UNLIMITED, 9))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo(9L))
                .hasMessage("resource nvidia.com/gpu: lendingLimit 9 > nominalQuota 8");
    }

    @Test
    void guaranteedIsTheNominalQuotaOthersCanNeverBorrow() {
        assertThat(new ResourceQuota(GPU, 8, ResourceQuota.UNLIMITED, 3).guaranteed()).isEqualTo(5);
        assertThat(ResourceQuota.of(GPU, 8).guaranteed()).isZero();
    }

    @Test
    void aFlavorQuotingAResourceOutsideCoveredResourcesIsRefused() {
        assertThatThrownBy(() -> new ResourceGroup(List.of("cpu"),
                List.of(new FlavorQuotas("on-demand", List.of(ResourceQuota.of("cpu", 64_000), ResourceQuota.of("memory", 1L << 40))))))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("flavors[on-demand].resources");
                    assertThat(e.value()).isEqualTo("memory");
                })
                .hasMessage("flavor on-demand: resource memory is not in coveredResources [cpu]");
    }

    @Test
    void aFlavorMissingACoveredResourceIsRefused() {
        assertThatThrownBy(() -> new ResourceGroup(List.of("cpu", "memory"),
                List.of(new FlavorQuotas("spot", List.of(ResourceQuota.of("cpu", 1))))))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo("memory"))
                .hasMessageContaining("spot").hasMessageContaining("memory");
    }

    @Test
    void resourceGroupNeedsResourcesAndDistinctFlavors() {
        assertThatThrownBy(() -> new ResourceGroup(List.of(), List.of())).hasMessageContaining("at least one resource");
        assertThatThrownBy(() -> new ResourceGroup(List.of("cpu"), List.of())).hasMessageContaining("at least one flavor");
        FlavorQuotas f = new FlavorQuotas("a", List.of(ResourceQuota.of("cpu", 1)));
        assertThatThrownBy(() -> new ResourceGroup(List.of("cpu"), List.of(f, f)))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo("a"))
                .hasMessageContaining("flavor a listed twice");
        assertThatThrownBy(() -> new FlavorQuotas("a", List.of(ResourceQuota.of("cpu", 1), ResourceQuota.of("cpu", 2))))
                .hasMessageContaining("resource cpu listed twice");
    }

    @Test
    void borrowingLimitOnAQueueWithoutCohortIsRefused() {
        assertThatThrownBy(() -> ClusterQueue.builder("team-a")
                .resourceGroup(gpuGroup("h100", new ResourceQuota(GPU, 8, 4, ResourceQuota.UNLIMITED))).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("clusterQueue[team-a].borrowingLimit");
                    assertThat(e.value()).isEqualTo(4L);
                })
                .hasMessage("ClusterQueue team-a: borrowingLimit 4 on h100/nvidia.com/gpu, but the queue has no cohort to borrow from");
    }

    @Test
    void lendingLimitOnAQueueWithoutCohortIsRefused() {
        assertThatThrownBy(() -> ClusterQueue.builder("team-a")
                .resourceGroup(gpuGroup("h100", new ResourceQuota(GPU, 8, ResourceQuota.UNLIMITED, 2))).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("clusterQueue[team-a].lendingLimit"))
                .hasMessageContaining("lendingLimit 2");
    }

    @Test
    void limitsAreFineWithACohort() {
        ClusterQueue q = ClusterQueue.builder("team-a").cohort("research")
                .resourceGroup(gpuGroup("h100", new ResourceQuota(GPU, 8, 4, 2))).build();
        assertThat(q.cohort()).isEqualTo("research");
        assertThat(q.flavorNames()).containsExactly("h100");
        assertThat(q.groupFor(GPU)).isNotNull();
        assertThat(q.groupFor("cpu")).isNull();
    }

    @Test
    void aResourceCoveredByTwoGroupsIsRefused() {
        assertThatThrownBy(() -> ClusterQueue.builder("cq")
                .resourceGroup(gpuGroup("a", ResourceQuota.of(GPU, 1)))
                .resourceGroup(gpuGroup("b", ResourceQuota.of(GPU, 1))).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo(GPU))
                .hasMessage("ClusterQueue cq: resource nvidia.com/gpu is covered by two resource groups");
    }

    @Test
    void weightsAndFactorsMustBePositive() {
        assertThatThrownBy(() -> ClusterQueue.builder("cq").fairSharingWeight(0).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("clusterQueue[cq].fairSharingWeight"))
                .hasMessageContaining("0.0");
        assertThatThrownBy(() -> ClusterQueue.builder("cq").priorityFactor(-1).build()).hasMessageContaining("priorityFactor").hasMessageContaining("-1");
        assertThatThrownBy(() -> new Cohort("c", null, List.of(), Double.NaN)).hasMessageContaining("fairSharingWeight").hasMessageContaining("NaN");
    }

    @Test
    void aCohortCannotBeItsOwnParent() {
        assertThatThrownBy(() -> Cohort.of("research", "research"))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("cohort[research].parent");
                    assertThat(e.value()).isEqualTo("research");
                })
                .hasMessageContaining("research cannot be its own parent");
        assertThat(Cohort.of("research", " ").parent()).isNull();
    }

    @Test
    void namesAreRequired() {
        assertThatThrownBy(() -> ClusterQueue.builder("").build()).hasMessageContaining("clusterQueue.name");
        assertThatThrownBy(() -> new LocalQueue("ns", "lq", null)).isInstanceOfSatisfying(InvalidSpecException.class,
                e -> assertThat(e.field()).isEqualTo("localQueue.clusterQueue")).hasMessageContaining("null");
        assertThatThrownBy(() -> ResourceFlavor.of(" ")).hasMessageContaining("flavor.name");
        assertThat(new LocalQueue("ns", "lq", "cq").key()).isEqualTo("ns/lq");
    }

    @Test
    void quotaShortcutBuildsOneGroupCoveringEveryResource() {
        ClusterQueue q = ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(64).gpus(8).build()).build();
        assertThat(q.resourceGroups()).singleElement().satisfies(g -> {
            assertThat(g.coveredResources()).containsExactlyInAnyOrder("cpu", GPU);
            assertThat(g.flavors().get(0).quota("cpu").nominal()).isEqualTo(64_000);
            assertThat(g.flavors().get(0).quota(GPU).nominal()).isEqualTo(8);
        });
        assertThat(q.preemption()).isEqualTo(PreemptionPolicy.NEVER);
        assertThat(q.withStopped(true).stopped()).isTrue();
    }
}
