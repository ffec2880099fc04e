package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/**
 * The annotation that lets preemption restore an object exactly: the generic form (JSON Pointer to previous value)
 * round-trips and restores, and the form earlier versions wrote on batch/v1 Jobs is still read (an upgrade keeps
 * admitted Jobs restorable).
 */
class OriginalTemplateTest {
    @Test
    void theFormEarlierVersionsWroteOnJobsIsReadAsTheSameFourPaths() {
        OriginalTemplate o = OriginalTemplate.parse("{\"nodeSelector\":{\"team\":\"ml\"},\"parallelism\":4}");
        assertThat(o.parallelism()).isEqualTo(4);
        assertThat(o.valueOf("/spec/template/spec/nodeSelector").path("team").asText()).isEqualTo("ml");
        assertThat(o.fields()).containsKeys("/spec/template/spec/tolerations", "/spec/template/spec/schedulingGates");
        assertThat(o.valueOf("/spec/template/spec/tolerations")).as("absent before admission").isNull();
    }

    @Test
    void restoringWritesBackEveryPreviousValueAndRemovesWhatWasAbsent() {
        ObjectNode admitted = (ObjectNode) Json.read("""
                {"spec":{"suspend":false,"parallelism":2,"template":{"spec":{"nodeSelector":{"team":"ml","pool":"gpu"},
                 "schedulingGates":[{"name":"fairway.io/topology"}]}}}}""", JsonNode.class);
        OriginalTemplate o = OriginalTemplate.parse(new OriginalTemplate(java.util.Map.of(
                "/spec/parallelism", Json.MAPPER.valueToTree(4),
                "/spec/template/spec/nodeSelector/pool", com.fasterxml.jackson.databind.node.NullNode.getInstance(),
                "/spec/template/spec/schedulingGates", com.fasterxml.jackson.databind.node.NullNode.getInstance())).toJson());
        o.restoreInto(admitted);
        assertThat(admitted.toString()).isEqualTo("{\"spec\":{\"suspend\":false,\"parallelism\":4,\"template\":{\"spec\":{\"nodeSelector\":{\"team\":\"ml\"}}}}}");
    }
}
