package io.fairway.api.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Resources and Kubernetes quantity strings: what a user writes is what the scheduler counts. */
class ResourcesTest {
    private static final long GI = 1L << 30;

    @ParameterizedTest(name = "{0}: \"{1}\" -> {2}")
    @CsvSource({
        "cpu, 500m, 500",
        "cpu, 2, 2000",
        "cpu, 1.5, 1500",
        "cpu, 0.25, 250",
        "cpu, 1e3, 1000000",
        "cpu, 0.1m, 1",
        "memory, 64Gi, 68719476736",
        "memory, 512Mi, 536870912",
        "memory, 1Ki, 1024",
        "memory, 100M, 100000000",
        "memory, 2k, 2000",
        "memory, 1Ti, 1099511627776",
        "nvidia.com/gpu, 8, 8",
        "nvidia.com/gpu, ' 4 ', 4",
        "nvidia.com/gpu, 0, 0",
    })
    void parsesKubernetesQuantitiesIntoBaseUnits(String resource, String text, long expected) {
        assertThat(Quantities.parse(resource, text)).isEqualTo(expected);
    }

    @Test
    void parseReadsAWholeMapOfQuantities() {
        Map<String, String> q = new LinkedHashMap<>();
        q.put("cpu", "500m");
        q.put("memory", "64Gi");
        q.put("nvidia.com/gpu", "2");
        Resources r = Resources.parse(q);
        assertThat(r.get(Resources.CPU)).isEqualTo(500);
        assertThat(r.get(Resources.MEMORY)).isEqualTo(64 * GI);
        assertThat(r.gpus()).isEqualTo(2);
        assertThat(r).isEqualTo(Resources.builder().cpu(0.5).memoryGiB(64).gpus(2).build());
    }

    @Test
    void unreadableQuantityNamesTheResourceAndTheText() {
        assertThatThrownBy(() -> Resources.parse(Map.of("memory", "lots")))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("resources.memory");
                    assertThat(e.value()).isEqualTo("lots");
                })
                .hasMessageContaining("memory").hasMessageContaining("\"lots\"");
    }

    @Test
    void negativeQuantityStringIsRefusedWithItsValue() {
        assertThatThrownBy(() -> Quantities.parse("cpu", "-1"))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("resources.cpu"))
                .hasMessageContaining("cpu").hasMessageContaining("-1");
    }

    @Test
    void emptyQuantityIsRefused() {
        assertThatThrownBy(() -> Quantities.parse("nvidia.com/gpu", " "))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("resources.nvidia.com/gpu"))
                .hasMessageContaining("nvidia.com/gpu").hasMessageContaining("empty");
    }

    @Test
    void quantityTooLargeForALongIsRefused() {
        assertThatThrownBy(() -> Quantities.parse("memory", "100000000Pi"))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("memory").hasMessageContaining("100000000Pi").hasMessageContaining("too large");
    }

    @Test
    void negativeAmountNamesTheResourceAndTheValue() {
        assertThatThrownBy(() -> Resources.of(Resources.GPU, -2))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("resources.nvidia.com/gpu");
                    assertThat(e.value()).isEqualTo(-2L);
                })
                .hasMessageContaining("nvidia.com/gpu").hasMessageContaining("-2");
        assertThatThrownBy(() -> Resources.builder().cpu(-1).build())
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("cpu").hasMessageContaining("-1.0 cores");
    }

    @Test
    void blankResourceNameIsRefused() {
        assertThatThrownBy(() -> Resources.of(" ", 1)).isInstanceOf(InvalidSpecException.class).hasMessageContaining("resource name");
    }

    @Test
    void builderUsesHumanUnits() {
        Resources r = Resources.builder().cpu(0.5).memoryGiB(1.5).gpus(4).put("example.com/fpga", 2).build();
        assertThat(r.asMap()).containsExactly(
                Map.entry("cpu", 500L), Map.entry("example.com/fpga", 2L), Map.entry("memory", 3 * GI / 2), Map.entry("nvidia.com/gpu", 4L));
        assertThat(r.names()).containsExactly("cpu", "example.com/fpga", "memory", "nvidia.com/gpu");
    }

    @Test
    void plusAddsPerResourceAndKeepsResourcesOnlyOneSideHas() {
        Resources a = Resources.builder().cpu(2).gpus(1).build();
        Resources b = Resources.builder().cpu(1).memoryGiB(4).build();
        assertThat(a.plus(b)).isEqualTo(Resources.builder().cpu(3).gpus(1).memoryGiB(4).build());
        assertThat(a.plus(Resources.NONE)).isSameAs(a);
    }

    @Test
    void minusFloorsEachQuantityAtZero() {
        Resources a = Resources.builder().cpu(2).gpus(1).build();
        Resources b = Resources.builder().cpu(3).gpus(1).memoryGiB(1).build();
        Resources d = a.minus(b);
        assertThat(d.get(Resources.CPU)).isZero();
        assertThat(d.gpus()).isZero();
        assertThat(d.get(Resources.MEMORY)).isZero();
        assertThat(d.isZero()).isTrue();
        assertThat(Resources.builder().cpu(5).build().minus(Resources.builder().cpu(2).build()).get(Resources.CPU)).isEqualTo(3000);
    }

    @Test
    void timesMultipliesAndRefusesNegativeFactorsAndOverflow() {
        Resources member = Resources.builder().cpu(8).gpus(2).build();
        assertThat(member.times(4)).isEqualTo(Resources.builder().cpu(32).gpus(8).build());
        assertThat(member.times(0).isZero()).isTrue();
        assertThatThrownBy(() -> member.times(-1))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo(-1L))
                .hasMessageContaining("factor").hasMessageContaining("-1");
        assertThatThrownBy(() -> Resources.of("x", Resources.MAX_QUANTITY / 2).times(3)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("3 × 4503599627370496");
    }

    @Test
    void fitsInComparesEveryResourceAndTreatsMissingAsZero() {
        Resources node = Resources.builder().cpu(8).memoryGiB(32).gpus(8).build();
        assertThat(Resources.builder().cpu(8).gpus(8).build().fitsIn(node)).isTrue();
        assertThat(Resources.builder().cpu(8.001).build().fitsIn(node)).isFalse();
        assertThat(Resources.builder().put("example.com/fpga", 1).build().fitsIn(node)).isFalse();
        assertThat(Resources.builder().put("example.com/fpga", 0).build().fitsIn(node)).isTrue();
        assertThat(Resources.NONE.fitsIn(Resources.NONE)).isTrue();
    }

    @Test
    void equalityDoesNotDependOnTheOrderResourcesWereGiven() {
        Resources a = Resources.builder().gpus(1).cpu(2).build();
        Resources b = Resources.builder().cpu(2).gpus(1).build();
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(Resources.builder().cpu(2).gpus(2).build());
        // a resource present at zero is still named, and so differs from one absent
        assertThat(Resources.of("cpu", 0)).isNotEqualTo(Resources.NONE);
    }

    @Test
    void toStringUsesReadableUnits() {
        assertThat(Resources.builder().cpu(1.5).memoryGiB(64).gpus(8).build().toString())
                .isEqualTo("{cpu=1500m, memory=64Gi, nvidia.com/gpu=8}");
        assertThat(Quantities.format("cpu", 2000)).isEqualTo("2");
        assertThat(Quantities.format("memory", 512L << 20)).isEqualTo("512Mi");
        assertThat(Quantities.format("memory", 1000)).isEqualTo("1000");
    }

    @Test
    void formatThenParseGivesBackTheSameAmount() {
        for (long cpu : new long[] {1, 250, 1000, 64_000}) {
            assertThat(Quantities.parse("cpu", Quantities.format("cpu", cpu))).isEqualTo(cpu);
        }
        for (long mem : new long[] {1, 1L << 20, 3L << 30, 12345}) {
            assertThat(Quantities.parse("memory", Quantities.format("memory", mem))).isEqualTo(mem);
        }
    }

    @Test
    void indexedAccessWalksTheQuantitiesInNameOrder() {
        Resources r = Resources.builder().gpus(2).cpu(8).memoryGiB(1).build();
        StringBuilder seen = new StringBuilder();
        for (int i = 0; i < r.size(); i++) {
            seen.append(r.name(i)).append('=').append(r.amount(i)).append(';');
        }
        assertThat(seen.toString()).isEqualTo("cpu=8000;memory=1073741824;nvidia.com/gpu=2;");
        assertThat(Resources.NONE.size()).isZero();
    }
}
