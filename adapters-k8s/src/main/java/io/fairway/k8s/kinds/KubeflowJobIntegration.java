package io.fairway.k8s.kinds;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.Specs;

/**
 * The Kubeflow training operator's {@code kubeflow.org/v1} jobs, one integration per kind: PyTorchJob
 * ({@code spec.pytorchReplicaSpecs}: Master, Worker), TFJob ({@code spec.tfReplicaSpecs}: Chief, PS, Worker, Evaluator,
 * Master), XGBoostJob ({@code spec.xgbReplicaSpecs}: Master, Worker), PaddleJob ({@code spec.paddleReplicaSpecs}:
 * Master, Worker) and JAXJob ({@code spec.jaxReplicaSpecs}: Worker) — see {@link ReplicaSpecsIntegration} for how each
 * is read. Pods carry {@code training.kubeflow.org/job-name}, {@code training.kubeflow.org/replica-type} (the
 * replica type in lowercase), {@code training.kubeflow.org/replica-index} and
 * {@code training.kubeflow.org/operator-name} ({@code pytorchjob-controller} …).
 *
 * <p>API reference: https://github.com/kubeflow/training-operator/tree/release-1.9/pkg/apis/kubeflow.org/v1 (the
 * {@code kubeflow.org/v1} types: {@code RunPolicy.suspend}, {@code ReplicaSpec.replicas}, {@code ReplicaSpec.template});
 * fields written: {@code spec.runPolicy.suspend}, and in {@code spec.<kind>ReplicaSpecs.<Type>.template.spec}:
 * {@code nodeSelector}, {@code tolerations}, {@code schedulingGates}; and, for a UnifiedJob that scales it,
 * {@code spec.<kind>ReplicaSpecs.<Type>.replicas}.
 */
public abstract class KubeflowJobIntegration extends ReplicaSpecsIntegration {
    private static final String GROUP = "kubeflow.org";
    /** The training operator's pod label holding the replica type. */
    public static final String REPLICA_TYPE_LABEL = "training.kubeflow.org/replica-type";

    private KubeflowJobIntegration(String kind, String plural, String field, String operator) {
        super(new KindRef(GROUP, "v1", kind, plural), field, operator, REPLICA_TYPE_LABEL);
    }

    /**
     * PyTorchJob ({@code kubeflow.org/v1.PyTorchJob}). One with an {@code spec.elasticPolicy} (torchrun's elastic
     * rendezvous) has its {@code Worker} replicas changed in place, within the policy's {@code minReplicas} and
     * {@code maxReplicas}; any other is scaled on a new object.
     */
    public static final class PyTorchJob extends KubeflowJobIntegration {
        /** For {@link java.util.ServiceLoader}. */
        public PyTorchJob() {
            super("PyTorchJob", "pytorchjobs", "pytorchReplicaSpecs", "pytorchjob-controller");
        }

        @Override
        public boolean resizableInPlace(GenericKubernetesResource job) {
            return Specs.at(job, "/spec/elasticPolicy").isObject();
        }

        @Override
        public String countChangeRefusal(GenericKubernetesResource job, String podSet, int min, int max) {
            String r = super.countChangeRefusal(job, podSet, min, max);
            com.fasterxml.jackson.databind.JsonNode ep = Specs.at(job, "/spec/elasticPolicy");
            if (r != null || !ep.isObject()) {
                return r;
            }
            int lo = ep.path("minReplicas").asInt(1);
            int hi = ep.path("maxReplicas").asInt(Integer.MAX_VALUE);
            return min >= lo && max <= hi ? null : "spec.elasticPolicy allows " + lo + ".." + (hi == Integer.MAX_VALUE ? "any" : Integer.toString(hi))
                    + " workers; minReplicas " + min + " and maxReplicas " + max + " must lie within it";
        }
    }

    /** TFJob ({@code kubeflow.org/v1.TFJob}). */
    public static final class TFJob extends KubeflowJobIntegration {
        /** For {@link java.util.ServiceLoader}. */
        public TFJob() {
            super("TFJob", "tfjobs", "tfReplicaSpecs", "tfjob-controller");
        }
    }

    /** XGBoostJob ({@code kubeflow.org/v1.XGBoostJob}). */
    public static final class XGBoostJob extends KubeflowJobIntegration {
        /** For {@link java.util.ServiceLoader}. */
        public XGBoostJob() {
            super("XGBoostJob", "xgboostjobs", "xgbReplicaSpecs", "xgboostjob-controller");
        }
    }

    /** PaddleJob ({@code kubeflow.org/v1.PaddleJob}). */
    public static final class PaddleJob extends KubeflowJobIntegration {
        /** For {@link java.util.ServiceLoader}. */
        public PaddleJob() {
            super("PaddleJob", "paddlejobs", "paddleReplicaSpecs", "paddlejob-controller");
        }
    }

    /** JAXJob ({@code kubeflow.org/v1.JAXJob}, training operator 1.9 and later). */
    public static final class JAXJob extends KubeflowJobIntegration {
        /** For {@link java.util.ServiceLoader}. */
        public JAXJob() {
            super("JAXJob", "jaxjobs", "jaxReplicaSpecs", "jaxjob-controller");
        }
    }
}
