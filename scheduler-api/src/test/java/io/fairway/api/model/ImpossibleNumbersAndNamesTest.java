package io.fairway.api.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.Field;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Impossible numbers (non-finite, overflowing) and names that are not names (NUL, newline, right-to-left override,
 * megabytes of text) are refused with the field and the value as given; sums of what is accepted cannot overflow.
 */
class ImpossibleNumbersAndNamesTest {

    @Test
    void nonFiniteAndOverflowingCpuAndMemoryAreRefusedAsGiven() {
        assertThatThrownBy(() -> Resources.builder().cpu(Double.POSITIVE_INFINITY))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("resources.cpu"))
                .hasMessageContaining("Infinity cores").hasMessageContaining("out of range");
        assertThatThrownBy(() -> Resources.builder().cpu(Double.NEGATIVE_INFINITY)).hasMessageContaining("-Infinity cores")
                .hasMessageNotContaining("-9223372036854775808");
        assertThatThrownBy(() -> Resources.builder().cpu(Double.NaN)).hasMessageContaining("NaN cores").hasMessageNotContaining("was 0");
        assertThatThrownBy(() -> Resources.builder().memoryGiB(1e12))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("resources.memory"))
                .hasMessageContaining("1.0E12 GiB").hasMessageContaining("8388608 GiB");
        assertThatThrownBy(() -> Resources.builder().memoryGiB(Double.NaN)).hasMessageContaining("NaN GiB");
        assertThatThrownBy(() -> Resources.of(Resources.CPU, Long.MAX_VALUE)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("9223372036854775807").hasMessageContaining("too large");
        // the largest accepted values still work
        assertThat(Resources.builder().cpu(Resources.MAX_QUANTITY / 1000.0).build().get(Resources.CPU)).isLessThanOrEqualTo(Resources.MAX_QUANTITY);
        assertThat(Resources.of("x", Resources.MAX_QUANTITY).get("x")).isEqualTo(Resources.MAX_QUANTITY);
    }

    @Test
    void aGangWhoseTotalWouldOverflowIsRefusedNotMisreported() {
        // before: 2 × Long.MAX_VALUE cpu became a negative sum and the job waited with GANG_LARGER_THAN_ANY_DOMAIN (0 GPUs)
        Resources huge = Resources.of(Resources.CPU, Resources.MAX_QUANTITY);
        assertThatThrownBy(() -> JobSpec.builder("j").queue("q").members(2, huge).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("podSets[main].resources.cpu"))
                .hasMessageContaining("2 members × cpu 9007199254740992 = 18014398509481984");
        // 1,000 quantities at the bound add up without overflow
        Resources sum = Resources.NONE;
        for (int i = 0; i < 1000; i++) {
            sum = sum.plus(huge);
        }
        assertThat(sum.get(Resources.CPU)).isEqualTo(Resources.MAX_QUANTITY * 1000);
    }

    @Test
    void quotasAboveTheLargestQuantityAreRefused() {
        assertThatThrownBy(() -> new ResourceQuota(Resources.GPU, Long.MAX_VALUE - 1, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("nominalQuota 9223372036854775806 is too large");
        assertThat(ResourceQuota.of(Resources.GPU, 8).borrowingLimit()).isEqualTo(ResourceQuota.UNLIMITED);
    }

    @Test
    void infiniteCheckpointTimesAndLinkBandwidthsAreRefused() {
        assertThatThrownBy(() -> new io.fairway.api.job.Checkpointing(Double.POSITIVE_INFINITY, 0, 0))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("intervalSeconds must be a finite number > 0, was Infinity");
        assertThatThrownBy(() -> new io.fairway.api.job.Checkpointing(60, Double.POSITIVE_INFINITY, 0)).hasMessageContaining("Infinity");
        assertThatThrownBy(() -> new io.fairway.api.job.Checkpointing(60, 0, Double.NaN)).hasMessageContaining("NaN");
        assertThatThrownBy(() -> new GpuLink(0, 1, LinkKind.NVLINK, Double.POSITIVE_INFINITY)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("bandwidth must be a finite number >= 0, was Infinity");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e999999999", "1e999999999Gi", "99999999999999999999999", "9e18"})
    void hugeQuantityStringsAreRefusedQuickly(String text) {
        assertThatThrownBy(() -> Quantities.parse(Resources.MEMORY, text))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo(text))
                .hasMessageContaining("quantity " + text + " is too large");
    }

    @Test
    void aTinyQuantityRoundsUpToOneUnitWithoutExpandingItsExponent() {
        assertThat(Quantities.parse(Resources.MEMORY, "1e-999999999")).isEqualTo(1);
        assertThat(Quantities.parse(Resources.CPU, "0")).isZero();
    }

    @Test
    void namesWithControlOrInvisibleCharactersOrMegabytesOfTextAreRefused() {
        assertThatThrownBy(() -> JobSpec.builder("a\u0000b").queue("q").members(1, Resources.of(Resources.GPU, 1)).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job.id"))
                .hasMessageContaining("U+0000 at index 1").hasMessageContaining("\"a\\u0000b\"");
        assertThatThrownBy(() -> JobSpec.builder("evil\ninjected").queue("q").members(1, Resources.of(Resources.GPU, 1)).build())
                .hasMessageContaining("U+000A");
        assertThatThrownBy(() -> Node.builder("node\u202Eexe.1").build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("node.name"))
                .hasMessageContaining("U+202E");
        String tenMb = "x".repeat(10 << 20);
        assertThatThrownBy(() -> JobSpec.builder(tenMb).queue("q").members(1, Resources.of(Resources.GPU, 1)).build())
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("is 10485760 characters long (at most 512)")
                .hasMessageContaining("(10485760 characters)")
                .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(300));
        assertThatThrownBy(() -> JobSpec.builder("j").queue("q").jobSet("set\u200Bx").members(1, Resources.of(Resources.GPU, 1)).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job[j].jobSet"));
        // ordinary ids, including non-ASCII letters and trace ids with underscores, still pass
        assertThat(JobSpec.builder("application_1506638472019_10238").queue("q").members(1, Resources.of(Resources.GPU, 1)).build().id())
                .isEqualTo("application_1506638472019_10238");
        assertThat(Node.builder("nœud-1").build().name()).isEqualTo("nœud-1");
    }

    @Test
    void namesThatBecomeKubernetesObjectNamesFollowDns1123() {
        assertThatThrownBy(() -> JobSpec.builder("j").namespace("Team_A").queue("q").members(1, Resources.of(Resources.GPU, 1)).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job[j].namespace"))
                .hasMessageContaining("DNS-1123 label").hasMessageContaining("\"Team_A\"");
        assertThatThrownBy(() -> new LocalQueue("a".repeat(64), "q", "cq")).hasMessageContaining("at most 63 characters");
        assertThatThrownBy(() -> ClusterQueue.builder("Team A").quota("default", Resources.of(Resources.GPU, 1)).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("clusterQueue.name"))
                .hasMessageContaining("DNS-1123 subdomain");
        assertThatThrownBy(() -> ResourceFlavor.of("-spot")).hasMessageContaining("DNS-1123 subdomain");
        assertThat(ResourceFlavor.of("h100.spot-1").name()).isEqualTo("h100.spot-1");
    }

    @Test
    void nullArgumentsAreNamed() {
        assertThatThrownBy(() -> JobSpec.builder("j").podSet(null))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("podSet"))
                .hasMessage("podSet must not be null");
        java.util.ArrayList<PodSet> withNull = new java.util.ArrayList<>();
        withNull.add(null);
        assertThatThrownBy(() -> new JobSpec("j", null, "q", null, null, 0, 0, withNull, 0, null, null))
                .isInstanceOf(InvalidSpecException.class).hasMessage("job[j].podSets[0] must not be null");
        assertThatThrownBy(() -> Resources.of(null)).isInstanceOf(InvalidSpecException.class).hasMessage("resources must not be null");
    }

    @Test
    void deserialisedResourcesAreValidatedLikeBuiltOnes() throws Exception {
        Resources r = Resources.builder().gpus(2).cpu(1).build();
        Field amounts = Resources.class.getDeclaredField("amounts");
        amounts.setAccessible(true);
        ((long[]) amounts.get(r))[0] = -5; // forge what a hand-made byte stream could carry
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(r);
        }
        assertThatThrownBy(() -> new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray())).readObject())
                .isInstanceOf(InvalidObjectException.class).hasMessageContaining("quantity must be >= 0, was -5");
        Resources ok = Resources.builder().gpus(2).build();
        ByteArrayOutputStream b2 = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b2)) {
            out.writeObject(List.of(ok));
        }
        assertThat(new ObjectInputStream(new ByteArrayInputStream(b2.toByteArray())).readObject()).isEqualTo(List.of(ok));
    }
}
