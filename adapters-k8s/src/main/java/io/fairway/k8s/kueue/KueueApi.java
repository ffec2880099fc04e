package io.fairway.k8s.kueue;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;

/**
 * Kueue's admission API as Kueue 0.19 serves it: the group {@value #GROUP}, the storage version {@value #V1BETA2}
 * and the deprecated, still served {@value #V1BETA1}, and the kinds Fairway reads.
 */
public final class KueueApi {
    /** Kueue's API group. */
    public static final String GROUP = "kueue.x-k8s.io";
    /** The storage version of Kueue 0.19. */
    public static final String V1BETA2 = "v1beta2";
    /** The deprecated version Kueue 0.19 still serves (with {@code spec.cohort} instead of {@code spec.cohortName}). */
    public static final String V1BETA1 = "v1beta1";
    /** The versions Fairway reads. */
    public static final List<String> VERSIONS = List.of(V1BETA2, V1BETA1);
    /** The label naming a Workload's WorkloadPriorityClass. */
    public static final String PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class";
    /** The label naming a Workload's LocalQueue. */
    public static final String QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name";
    /** The leader-election Lease of Kueue's controller manager (its default {@code LeaderElectionID}). */
    public static final String CONTROLLER_LEASE = "c1f6bfd2.kueue.x-k8s.io";
    /** The namespace Kueue is installed in by default. */
    public static final String DEFAULT_NAMESPACE = "kueue-system";

    /** A kind Fairway reads, with its plural and scope. */
    public enum Resource {
        /** ResourceFlavor (cluster-scoped). */
        RESOURCE_FLAVOR("ResourceFlavor", "resourceflavors", false),
        /** ClusterQueue (cluster-scoped). */
        CLUSTER_QUEUE("ClusterQueue", "clusterqueues", false),
        /** LocalQueue (namespaced). */
        LOCAL_QUEUE("LocalQueue", "localqueues", true),
        /** Cohort (cluster-scoped). */
        COHORT("Cohort", "cohorts", false),
        /** Topology (cluster-scoped). */
        TOPOLOGY("Topology", "topologies", false),
        /** WorkloadPriorityClass (cluster-scoped). */
        WORKLOAD_PRIORITY_CLASS("WorkloadPriorityClass", "workloadpriorityclasses", false);

        private final String kind;
        private final String plural;
        private final boolean namespaced;

        Resource(String kind, String plural, boolean namespaced) {
            this.kind = kind;
            this.plural = plural;
            this.namespaced = namespaced;
        }

        /** @return the kind */
        public String kind() {
            return kind;
        }

        /** @return the plural resource name */
        public String plural() {
            return plural;
        }

        /** @return whether objects of the kind live in a namespace */
        public boolean namespaced() {
            return namespaced;
        }

        /**
         * @param version {@value KueueApi#V1BETA2} or {@value KueueApi#V1BETA1}
         * @return the fabric8 context of this kind at that version
         */
        public ResourceDefinitionContext context(String version) {
            return new ResourceDefinitionContext.Builder().withGroup(GROUP).withVersion(version).withKind(kind).withPlural(plural)
                    .withNamespaced(namespaced).build();
        }
    }

    private KueueApi() {
    }

    /**
     * @param version a version name
     * @return the version
     * @throws io.fairway.api.InvalidSpecException naming the value when Fairway does not read it
     */
    public static String checkVersion(String version) {
        io.fairway.api.InvalidSpecException.check(VERSIONS.contains(version), "kueueApiVersion", version,
                "the Kueue API version must be one of %s, was %s", VERSIONS, version);
        return version;
    }
}
