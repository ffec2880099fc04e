package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fairway.api.InvalidSpecException;
import io.fairway.config.QueuesConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A Job author cannot pick their own priority: the PriorityClass (set by the cluster administrator) grants it, and
 * the {@code fairway.io/priority} label may only lower it.
 */
class PriorityLabelTest {
    private final JobTranslator translator = new JobTranslator(List.of(Keys.QUEUE_LABEL), List.of(),
            pc -> Map.of("urgent", 1000, "batch", 10).get(pc));

    private static Job job(String priorityClass, String label) {
        JobBuilder b = new JobBuilder().withNewMetadata().withName("train").withNamespace("team-a").addToLabels(Keys.QUEUE_LABEL, "gpu")
                .endMetadata().withNewSpec().withParallelism(1).withNewTemplate().withNewSpec().withPriorityClassName(priorityClass)
                .addNewContainer().withName("main").withNewResources().withRequests(Map.of("cpu", new Quantity("1"))).endResources()
                .endContainer().endSpec().endTemplate().endSpec();
        if (label != null) {
            b.editMetadata().addToLabels(Keys.PRIORITY_LABEL, label).endMetadata();
        }
        return b.build();
    }

    private int priority(String priorityClass, String label) {
        return translator.toSpec(job(priorityClass, label), "team-a/train").priority();
    }

    @Test
    void aLabelCannotRaiseThePriorityAboveThePriorityClass() {
        assertThat(priority("batch", "2147483647")).isEqualTo(10);
        assertThat(priority(null, "2147483647")).as("no PriorityClass: 0 is the ceiling").isZero();
        assertThat(priority(null, "10")).isZero();
    }

    @Test
    void aLabelMayLowerIt() {
        assertThat(priority("urgent", "5")).isEqualTo(5);
        assertThat(priority(null, "-3")).isEqualTo(-3);
        assertThat(priority("urgent", null)).isEqualTo(1000);
        assertThat(priority(null, null)).isZero();
    }

    @Test
    void aBadLabelOrUnknownClassIsStillRefused() {
        assertThatThrownBy(() -> priority("batch", "high")).isInstanceOf(InvalidSpecException.class).hasMessageContaining("high");
        assertThatThrownBy(() -> priority("ghost", null)).isInstanceOf(InvalidSpecException.class).hasMessageContaining("PriorityClass ghost");
    }

    /** A sibling of the CLI's YAML bound: the controller's queue configuration (file or ConfigMap) is bounded too. */
    @Test
    void aQueueConfigurationWithAHugeLineOrTooManyCharactersIsRefusedBeforeParsing() {
        assertThatThrownBy(() -> QueuesConfig.parse("configmap fairway-system/q", "policy: fifo\nflavors: [{name: " + "x".repeat(200_000) + "}]\n"))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("configmap fairway-system/q line 2: the line is 200019 characters long; at most 65536");
        assertThatThrownBy(() -> QueuesConfig.parse("f.yaml", "# x\n".repeat(300_000)))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("f.yaml: the configuration is 1200000 characters; at most 1048576");
    }
}
