package io.fairway.k8s;

/**
 * The labels, annotations, scheduling gate and event reasons the adapter reads and writes.
 *
 * <pre>
 * metadata.labels:       fairway.io/queue-name: gpu          (the LocalQueue, in the Job's namespace)
 *                        fairway.io/priority: "-10"          (optional; may only lower the PriorityClass value)
 * metadata.annotations:  fairway.io/admission: {...}         (written at admission: ClusterQueue, flavors, placement)
 *                        fairway.io/pending-reason: QUOTA: … (why the Job waits; kubectl describe job shows it)
 * </pre>
 */
public final class Keys {
    /** The label naming a Job's LocalQueue. */
    public static final String QUEUE_LABEL = "fairway.io/queue-name";
    /** Kueue's queue label, honoured when the adapter is configured to. */
    public static final String KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name";
    /**
     * The label lowering a Job's priority (an integer): the priority is the lesser of it and the PriorityClass
     * value (0 without a PriorityClass); it can never raise a Job above what its PriorityClass grants.
     */
    public static final String PRIORITY_LABEL = "fairway.io/priority";
    /** The annotation giving an elastic Job's fewest members (its parallelism is the most). */
    public static final String MIN_PARALLELISM_ANNOTATION = "fairway.io/min-parallelism";
    /** The annotation naming the job's model, for its placement sensitivity ({@code vgg16}, {@code resnet50} …). */
    public static final String MODEL_ANNOTATION = "fairway.io/model";
    /** The annotation giving the estimated run time in seconds. */
    public static final String ESTIMATED_SECONDS_ANNOTATION = "fairway.io/estimated-seconds";
    /** Pod template annotation: all members in one domain of this topology level, or the job waits. */
    public static final String REQUIRED_TOPOLOGY_ANNOTATION = "fairway.io/podset-required-topology";
    /** Pod template annotation: one domain of this topology level if possible. */
    public static final String PREFERRED_TOPOLOGY_ANNOTATION = "fairway.io/podset-preferred-topology";
    /** Kueue's pod template annotation for a required topology level, also read. */
    public static final String KUEUE_REQUIRED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-required-topology";
    /** Kueue's pod template annotation for a preferred topology level, also read. */
    public static final String KUEUE_PREFERRED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-preferred-topology";
    /** Pod template annotation: {@code "true"} puts all GPUs of the pod set in one NVLink domain. */
    public static final String NVLINK_DOMAIN_ANNOTATION = "fairway.io/nvlink-domain";

    /** The annotation declaring that a job checkpoints, every so many seconds (spot / node loss keeps its progress). */
    public static final String CHECKPOINT_INTERVAL_ANNOTATION = "fairway.io/checkpoint-interval-seconds";
    /** The annotation a checkpointing workload writes: the fraction of its work done at its last checkpoint (0..1). */
    public static final String PROGRESS_ANNOTATION = "fairway.io/progress";

    /** The annotation holding a Job's admission (JSON): present exactly while the Job is admitted. */
    public static final String ADMISSION_ANNOTATION = "fairway.io/admission";
    /** The annotation holding the pod template's scheduling fields as they were before admission (JSON). */
    public static final String ORIGINAL_TEMPLATE_ANNOTATION = "fairway.io/original-template";
    /**
     * The annotation proving that {@value #ADMISSION_ANNOTATION} and {@value #ORIGINAL_TEMPLATE_ANNOTATION} were
     * written by Fairway: an HMAC keyed by a Secret only the controller reads (see the guide's trust model).
     */
    public static final String SEAL_ANNOTATION = "fairway.io/admission-seal";
    /** The annotation saying why a Job is pending. */
    public static final String PENDING_REASON_ANNOTATION = "fairway.io/pending-reason";
    /** The annotation marking a Job Fairway saw end ({@code Succeeded} or {@code Failed}). */
    public static final String FINISHED_ANNOTATION = "fairway.io/finished";
    /** Pod annotation: the member (index within its pod set) the pod runs as. */
    public static final String MEMBER_ANNOTATION = "fairway.io/member";
    /** Pod annotation: the node's GPU indexes chosen for the member (informative: the device plugin allocates). */
    public static final String GPUS_ANNOTATION = "fairway.io/gpus";
    /** The scheduling gate holding a Job's pods until Fairway binds each to its node. */
    public static final String TOPOLOGY_GATE = "fairway.io/topology";
    /** Node label overriding the GPU interconnect shape ({@code nvswitch-8}, {@code pcie-4} …). */
    public static final String GPU_SHAPE_LABEL = "fairway.io/gpu-shape";

    /** The label the Job controller puts on a Job's pods. */
    public static final String JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
    /** The older label the Job controller also puts on a Job's pods. */
    public static final String LEGACY_JOB_NAME_LABEL = "job-name";
    /** The annotation (and label) carrying an Indexed Job pod's completion index. */
    public static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
    /** NVIDIA GPU feature discovery: the GPU product. */
    public static final String GPU_PRODUCT_LABEL = "nvidia.com/gpu.product";
    /** NVIDIA GPU feature discovery: the GPU count. */
    public static final String GPU_COUNT_LABEL = "nvidia.com/gpu.count";

    /** Event reason: the Job waits. */
    public static final String REASON_PENDING = "Pending";
    /** Event reason: the Job was admitted. */
    public static final String REASON_ADMITTED = "Admitted";
    /** Event reason: an object ran without an admission Fairway wrote (a copied or forged one, or none) and was suspended. */
    public static final String REASON_UNTRUSTED_ADMISSION = "UntrustedAdmission";
    /** Event reason: the Job was evicted (preempted) and suspended again. */
    public static final String REASON_PREEMPTED = "Preempted";
    /** Event reason: an elastic Job's size changed. */
    public static final String REASON_RESIZED = "Resized";
    /** Event reason: the Job cannot be queued as it is (malformed queue label, unreadable requests). */
    public static final String REASON_INVALID = "InvalidJob";
    /** Event reason: the integration sees the object run other than admitted (an operator too old for what was written). */
    public static final String REASON_OPERATOR_WARNING = "OperatorMismatch";
    /** Event reason: the configuration could not be read; the previous one stays in force. */
    public static final String REASON_INVALID_CONFIG = "InvalidConfiguration";
    /** The component name on Events. */
    public static final String COMPONENT = "fairway-controller";

    private Keys() {
    }
}
