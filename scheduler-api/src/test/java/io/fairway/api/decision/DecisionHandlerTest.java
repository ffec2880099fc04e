package io.fairway.api.decision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An actuator's dispatch: every kind of decision reaches its own method of the handler, and only that one. */
class DecisionHandlerTest {
    private final List<String> calls = new ArrayList<>();

    private final Decision.Handler recording = new Decision.Handler(
            a -> calls.add("admit " + a.jobId()),
            p -> calls.add("preempt " + p.jobId()),
            r -> calls.add("resize " + r.jobId() + " to " + r.targetCount()),
            p -> calls.add("provision " + p.count() + " " + p.instanceType()),
            d -> calls.add("deprovision " + d.node()));

    @Test
    void eachKindReachesItsOwnMethodInTheOrderGiven() {
        Placement placement = new Placement(List.of(), null, 1.0);
        List<Decision> round = List.of(
                new Preempt("old", "make room", true, false),
                new Admit("new", "cq", Map.of(), Map.of(), placement),
                new Resize("elastic", "workers", 3, placement),
                new Provision("pool", "p4d", 2, "for new"),
                new Deprovision("node-7", "idle"));

        for (Decision d : round) {
            d.applyTo(recording);
        }

        assertThat(calls).containsExactly("preempt old", "admit new", "resize elastic to 3", "provision 2 p4d",
                "deprovision node-7");
    }

    @Test
    void aMissingActionIsNamed() {
        assertThatThrownBy(() -> new Decision.Handler(a -> { }, p -> { }, null, p -> { }, d -> { }))
                .isInstanceOf(NullPointerException.class).hasMessage("resize");
    }
}
