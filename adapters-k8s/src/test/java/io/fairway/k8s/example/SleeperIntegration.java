package io.fairway.k8s.example;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.List;
import java.util.Optional;

/**
 * The example of "Adding a kind" in docs/guides/kubernetes.md: a made-up kind {@code example.com/v1 Sleeper} whose
 * {@code spec.replicas} pods share {@code spec.template}, suspended through {@code spec.suspend}, whose pods carry the
 * label {@code example.com/sleeper: NAME}. Listed in {@code META-INF/services/io.fairway.k8s.integration.Integration}
 * of the test resources and enabled as {@code example.com/v1.Sleeper}.
 */
public final class SleeperIntegration implements Integration {
    /** For {@link java.util.ServiceLoader}. */
    public SleeperIntegration() {
    }

    @Override
    public KindRef kind() {
        return new KindRef("example.com", "v1", "Sleeper", "sleepers");
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource o) {
        return List.of(PodSetTemplate.of("main", Specs.intAt(o, "/spec/replicas", 1), "/spec/template", Specs.template(o, "/spec/template")));
    }

    @Override
    public boolean isSuspended(GenericKubernetesResource o) {
        return Specs.boolAt(o, "/spec/suspend", false);
    }

    @Override
    public void setSuspended(ObjectNode o, boolean suspended) {
        Specs.set(o, "/spec/suspend", suspended);
    }

    @Override
    public Optional<PodRef> podOf(Pod p) {
        return Specs.label(p, "example.com/sleeper").map(name -> new PodRef(name, "main", null));
    }

    @Override
    public WorkloadOutcome outcome(GenericKubernetesResource o, List<Pod> pods) {
        return Specs.podsOutcome(pods, podSets(o));
    }
}
