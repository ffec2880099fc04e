package io.fairway.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An elastic pod set that can never fit at its full size in one rack may fit at a smaller size: "never fits" is
 * remembered for the size that was tried, not for the pod set, so a smaller attempt that fails only for now is told
 * so rather than given the full size's "never".
 */
class ElasticNeverFitsTest {
    @Test
    void aSmallerAttemptThatFailsForNowIsNotToldItNeverFits() {
        // two racks of two 8-GPU nodes: at most 16 one-GPU members in one rack
        PlacementFixture f = new PlacementFixture(PlacementStrategy.TOPOLOGY_AWARE, List.of(PlacementFixture.RACK), List.of(
                PlacementFixture.node("a1", GpuTopology.nvSwitch8("H100"), PlacementFixture.RACK, "r1"),
                PlacementFixture.node("a2", GpuTopology.nvSwitch8("H100"), PlacementFixture.RACK, "r1"),
                PlacementFixture.node("b1", GpuTopology.nvSwitch8("H100"), PlacementFixture.RACK, "r2"),
                PlacementFixture.node("b2", GpuTopology.nvSwitch8("H100"), PlacementFixture.RACK, "r2")));
        JobSpec elastic = JobSpec.builder("elastic").queue("q")
                .podSet(PodSet.of("workers", 32, Resources.builder().gpus(1).build()).withMinCount(2)
                        .withTopology(TopologyRequest.required(PlacementFixture.RACK)))
                .build();

        // 12 GPUs taken in each rack: 4 free in each now
        assertThat(f.place(PlacementFixture.gang("r1", 12, 1, TopologyRequest.required(PlacementFixture.RACK))).reason()).isNull();
        assertThat(f.place(PlacementFixture.gang("r2", 12, 1, TopologyRequest.required(PlacementFixture.RACK))).reason()).isNull();

        Placer.Outcome full = f.placer.place(elastic, Map.of("workers", 32), Map.of());
        assertThat(full.reason().code()).isEqualTo(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN);

        Placer.Outcome smaller = f.placer.place(elastic, Map.of("workers", 8), Map.of());
        assertThat(smaller.result()).isNull();
        assertThat(smaller.reason().code()).as(smaller.reason().message()).isEqualTo(PendingReason.Code.NO_FITTING_TOPOLOGY);
        assertThat(smaller.reason().message()).contains("needs 8 members");

        Placer.Outcome minimum = f.placer.place(elastic, Map.of("workers", 4), Map.of());
        assertThat(minimum.reason()).as("pending reason of the 4-member attempt").isNull();
    }
}
