package io.fairway.k8s.kinds;

import io.fairway.k8s.integration.KindRef;

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
 */
public final class MpiJobIntegration extends ReplicaSpecsIntegration {
    /** kubeflow.org/v2beta1 MPIJob. */
    public static final KindRef KIND = new KindRef("kubeflow.org", "v2beta1", "MPIJob", "mpijobs");
    /** The MPI operator's pod label holding the role ({@code launcher}, {@code worker}). */
    public static final String JOB_ROLE_LABEL = "training.kubeflow.org/job-role";

    /** For {@link java.util.ServiceLoader}. */
    public MpiJobIntegration() {
        super(KIND, "mpiReplicaSpecs", "mpi-operator", JOB_ROLE_LABEL);
    }
}
