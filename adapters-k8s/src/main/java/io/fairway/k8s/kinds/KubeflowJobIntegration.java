package io.fairway.k8s.kinds;

import io.fairway.k8s.integration.KindRef;

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
 * {@code nodeSelector}, {@code tolerations}, {@code schedulingGates}. PyTorchJob's {@code elasticPolicy} is not used:
 * replicas are admitted as written.
 */
public abstract class KubeflowJobIntegration extends ReplicaSpecsIntegration {
    private static final String GROUP = "kubeflow.org";
    /** The training operator's pod label holding the replica type. */
    public static final String REPLICA_TYPE_LABEL = "training.kubeflow.org/replica-type";

    private KubeflowJobIntegration(String kind, String plural, String field, String operator) {
        super(new KindRef(GROUP, "v1", kind, plural), field, operator, REPLICA_TYPE_LABEL);
    }

    /** PyTorchJob ({@code kubeflow.org/v1.PyTorchJob}). */
    public static final class PyTorchJob extends KubeflowJobIntegration {
        /** For {@link java.util.ServiceLoader}. */
        public PyTorchJob() {
            super("PyTorchJob", "pytorchjobs", "pytorchReplicaSpecs", "pytorchjob-controller");
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
