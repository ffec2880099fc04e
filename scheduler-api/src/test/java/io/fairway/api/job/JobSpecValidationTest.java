package io.fairway.api.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.Resources;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pod sets and jobs refuse what could never be scheduled, with the field and the value in the message. */
class JobSpecValidationTest {
    private static final Resources ONE_GPU = Resources.builder().cpu(4).gpus(1).build();

    @Test
    void minCountAboveCountIsRefused() {
        assertThatThrownBy(() -> PodSet.of("workers", 4, ONE_GPU).withMinCount(5))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("podSets[workers].minCount");
                    assertThat(e.value()).isEqualTo(5);
                })
                .hasMessage("pod set \"workers\": minCount 5 > count 4");
    }

    @Test
    void zeroOrNegativeCountsAreRefused() {
        assertThatThrownBy(() -> PodSet.of("workers", 0, ONE_GPU))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("podSets[workers].count");
                    assertThat(e.value()).isEqualTo(0);
                })
                .hasMessage("pod set \"workers\": count must be > 0, was 0");
        assertThatThrownBy(() -> PodSet.of("ps", -3, ONE_GPU)).hasMessage("pod set \"ps\": count must be > 0, was -3");
        assertThatThrownBy(() -> PodSet.of("workers", 4, ONE_GPU).withMinCount(0))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("podSets[workers].minCount"))
                .hasMessage("pod set \"workers\": minCount must be > 0, was 0");
    }

    @Test
    void zeroQuantityPerMemberIsRefused() {
        assertThatThrownBy(() -> PodSet.of("workers", 2, Resources.builder().cpu(4).gpus(0).build()))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("podSets[workers].resources.nvidia.com/gpu");
                    assertThat(e.value()).isEqualTo(0L);
                })
                .hasMessage("pod set \"workers\": nvidia.com/gpu must be > 0, was 0");
    }

    @Test
    void negativeQuantityPerMemberIsRefusedBeforeThePodSetExists() {
        assertThatThrownBy(() -> PodSet.of("workers", 2, Resources.builder().cpu(-2).build()))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("cpu").hasMessageContaining("-2.0 cores");
    }

    @Test
    void aPodSetMustAskForSomething() {
        assertThatThrownBy(() -> PodSet.of("idle", 1, Resources.NONE))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("podSets[idle].resources"))
                .hasMessageContaining("\"idle\"").hasMessageContaining("at least one resource");
    }

    @Test
    void nvlinkDomainWithoutGpusIsRefused() {
        assertThatThrownBy(() -> PodSet.of("cpu-only", 1, Resources.builder().cpu(1).build()).withTopology(TopologyRequest.nvlinkDomain()))
                .hasMessageContaining("\"cpu-only\"").hasMessageContaining("NVLink");
    }

    @Test
    void topologyRequestsThatContradictThemselvesAreRefused() {
        assertThatThrownBy(() -> new TopologyRequest(null, true, false, false)).hasMessageContaining("required needs a level");
        assertThatThrownBy(() -> new TopologyRequest("fairway.io/rack", true, false, true)).hasMessageContaining("spread");
    }

    @Test
    void aJobNeedsAQueueAndAPodSet() {
        assertThatThrownBy(() -> JobSpec.builder("j1").members(1, ONE_GPU).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("job[j1].queue");
                    assertThat(e.value()).isNull();
                })
                .hasMessageContaining("job j1").hasMessageContaining("queue");
        assertThatThrownBy(() -> JobSpec.builder("j1").queue("lq").build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job[j1].podSets"))
                .hasMessageContaining("at least one pod set");
    }

    @Test
    void podSetNamesMustBeUniqueWithinAJob() {
        assertThatThrownBy(() -> JobSpec.builder("j1").queue("lq").podSet(PodSet.of("w", 1, ONE_GPU)).podSet(PodSet.of("w", 2, ONE_GPU)).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo("w"))
                .hasMessage("job j1: pod set \"w\" appears twice");
    }

    @Test
    void everyNameIsCheckedWhateverItsCharacters() {
        String tooLong = "q".repeat(InvalidSpecException.MAX_NAME_LENGTH + 1);
        assertThatThrownBy(() -> JobSpec.builder("j\u0001").queue("lq").members(1, ONE_GPU).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job.id"));
        assertThatThrownBy(() -> JobSpec.builder("j1").queue("lq\u007f").members(1, ONE_GPU).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job[j1].queue"));
        assertThatThrownBy(() -> JobSpec.builder("j1").queue("   ").members(1, ONE_GPU).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job[j1].queue"));
        assertThatThrownBy(() -> JobSpec.builder("j1").queue(tooLong).members(1, ONE_GPU).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job[j1].queue"));
        assertThatThrownBy(() -> JobSpec.builder("j1").queue("lq").jobSet("set\u200b").members(1, ONE_GPU).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job[j1].jobSet"));
        assertThatThrownBy(() -> JobSpec.builder("j1").queue("lq").owner("al\nice").members(1, ONE_GPU).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job[j1].owner"));
        assertThatThrownBy(() -> JobSpec.builder("j1").namespace("Default").queue("lq").members(1, ONE_GPU).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job[j1].namespace"));
        // printable names beyond ASCII, and spaces inside a name, are names
        JobSpec j = JobSpec.builder("j\u00e9").namespace("team-a").queue("lq \u00e9quipe").owner("ren\u00e9e").members(1, ONE_GPU).build();
        assertThat(j.queue()).isEqualTo("lq \u00e9quipe");
        assertThat(j.namespace()).isEqualTo("team-a");
    }

    @Test
    void blankIdNegativeTimesAndEstimatesAreRefused() {
        assertThatThrownBy(() -> JobSpec.builder(" ").queue("lq").members(1, ONE_GPU).build()).hasMessageContaining("job.id");
        assertThatThrownBy(() -> JobSpec.builder("j1").queue("lq").members(1, ONE_GPU).submitTimeMillis(-5).build())
                .hasMessage("job j1: submitTimeMillis must be >= 0, was -5");
        assertThatThrownBy(() -> JobSpec.builder("j1").queue("lq").members(1, ONE_GPU).estimatedSeconds(-1).build())
                .hasMessageContaining("estimatedSeconds").hasMessageContaining("-1.0");
        assertThatThrownBy(() -> JobSpec.builder("j1").queue("lq").members(1, ONE_GPU).estimatedSeconds(Double.POSITIVE_INFINITY).build())
                .hasMessageContaining("Infinity");
    }

    @Test
    void defaultsAndTotals() {
        JobSpec j = JobSpec.builder("train").queue("gpu")
                .podSet(PodSet.of("launcher", 1, Resources.builder().cpu(2).build()))
                .podSet(PodSet.of("workers", 4, Resources.builder().cpu(8).gpus(2).build()).withMinCount(2))
                .build();
        assertThat(j.namespace()).isEqualTo(JobSpec.DEFAULT_NAMESPACE);
        assertThat(j.jobSet()).isEqualTo("train");
        assertThat(j.localQueueKey()).isEqualTo("default/gpu");
        assertThat(j.totalGpus()).isEqualTo(8);
        assertThat(j.totalResources()).isEqualTo(Resources.builder().cpu(34).gpus(8).build());
        assertThat(j.isElastic()).isTrue();
        assertThat(j.withPriority(7).priority()).isEqualTo(7);
        assertThat(j.withPriority(7).podSets()).isEqualTo(j.podSets());
    }

    @Test
    void podSetsAreImmutableCopies() {
        PodSet p = new PodSet("w", 2, 2, ONE_GPU, Map.of("zone", "a"), null, null);
        assertThat(p.tolerations()).isEmpty();
        assertThat(p.topology()).isEqualTo(TopologyRequest.NONE);
        assertThat(p.total(2)).isEqualTo(ONE_GPU.times(2));
        assertThat(p.isElastic()).isFalse();
        assertThatThrownBy(() -> p.nodeSelector().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        List<PodSet> list = new java.util.ArrayList<>(List.of(p));
        JobSpec j = new JobSpec("j", null, "q", null, null, 0, 0, list, 0, null, null);
        list.clear();
        assertThat(j.podSets()).hasSize(1);
    }
}
