package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.Specs;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * MPIJob of the MPI operator ({@code kubeflow.org/v2beta1}): pod sets {@code launcher} (placed first) and
 * {@code worker} from {@code spec.mpiReplicaSpecs.Launcher} and {@code .Worker}, one gang; suspended through
 * {@code spec.runPolicy.suspend}. Pods carry {@code training.kubeflow.org/job-name},
 * {@code training.kubeflow.org/job-role} ({@code launcher} or {@code worker}), {@code training.kubeflow.org/replica-index}
 * (workers) and {@code training.kubeflow.org/operator-name: mpi-operator}. See {@link ReplicaSpecsIntegration}.
 *
 * <p>API reference: https://github.com/kubeflow/mpi-operator/blob/master/pkg/apis/kubeflow/v2beta1/types.go
 * ({@code MPIJobSpec.mpiReplicaSpecs}, {@code RunPolicy.suspend}, {@code RunPolicy.schedulingPolicy.priorityClass});
 * fields written: {@code spec.runPolicy.suspend}, and in {@code spec.mpiReplicaSpecs.<Launcher|Worker>.template.spec}:
 * {@code nodeSelector}, {@code tolerations}, {@code schedulingGates}.
 *
 * <p><b>mpi-operator 0.8 or later is needed for re-admission.</b> The operator creates the launcher as a batch/v1 Job
 * the first time the MPIJob runs and keeps it while the MPIJob is suspended. Only from 0.8.0 (the change "Fix launcher
 * job scheduling directives when unsuspending") does it copy the launcher template's node selector, tolerations and
 * scheduling gates onto that Job when the MPIJob is resumed; an older operator resumes the launcher with the
 * directives of its first admission, so a re-admitted MPIJob's launcher may run on the previous flavor's nodes. The
 * CRD did not change in 0.8 in a way that names this, so the operator's version is detected from what it does:
 * {@link #warning} compares each live launcher pod with the admitted launcher template, and a pod missing a node
 * label or toleration the template has means the operator did not sync it (a Warning Event says so).
 */
public final class MpiJobIntegration extends ReplicaSpecsIntegration {
    /** kubeflow.org/v2beta1 MPIJob. */
    public static final KindRef KIND = new KindRef("kubeflow.org", "v2beta1", "MPIJob", "mpijobs");
    /** The MPI operator's pod label holding the role ({@code launcher}, {@code worker}). */
    public static final String JOB_ROLE_LABEL = "training.kubeflow.org/job-role";
    /** The warning's reason text: the launcher was not synced, so the operator is older than 0.8. */
    public static final String OLD_OPERATOR = "mpi-operator older than 0.8";

    /** For {@link java.util.ServiceLoader}. */
    public MpiJobIntegration() {
        super(KIND, "mpiReplicaSpecs", "mpi-operator", JOB_ROLE_LABEL);
    }

    @Override
    public Optional<String> warning(GenericKubernetesResource job, List<Pod> pods) {
        JsonNode want = Specs.at(job, "/spec/mpiReplicaSpecs/Launcher/template/spec");
        for (Pod p : pods) {
            if (!"launcher".equals(Specs.label(p, JOB_ROLE_LABEL).orElse("")) || p.getMetadata().getDeletionTimestamp() != null
                    || "Succeeded".equals(phase(p)) || "Failed".equals(phase(p))) {
                continue;
            }
            Map<String, String> have = p.getSpec().getNodeSelector() == null ? Map.of() : p.getSpec().getNodeSelector();
            for (java.util.Iterator<Map.Entry<String, JsonNode>> it = want.path("nodeSelector").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getValue().asText().equals(have.get(e.getKey()))) {
                    return Optional.of(stale(p, "node selector " + e.getKey() + "=" + e.getValue().asText()));
                }
            }
            for (JsonNode t : want.path("tolerations")) {
                boolean found = p.getSpec().getTolerations() != null && p.getSpec().getTolerations().stream()
                        .anyMatch(x -> t.path("key").asText("").equals(x.getKey() == null ? "" : x.getKey())
                                && t.path("effect").asText("").equals(x.getEffect() == null ? "" : x.getEffect()));
                if (!found) {
                    return Optional.of(stale(p, "toleration " + t.path("key").asText("") + ":" + t.path("effect").asText("")));
                }
            }
        }
        return Optional.empty();
    }

    private static String stale(Pod p, String what) {
        return "launcher pod " + p.getMetadata().getName() + " lacks the " + what + " of the admitted launcher template: the operator did not "
                + "sync the launcher Job when the MPIJob was resumed (" + OLD_OPERATOR + "; upgrade to 0.8.0 or later, or delete the "
                + "<name>-launcher Job so it is created afresh)";
    }

    private static String phase(Pod p) {
        return p.getStatus() == null ? null : p.getStatus().getPhase();
    }
}
