package io.fairway.k8s;

import io.fairway.api.InvalidSpecException;
import io.fairway.config.QueuesConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link FairwayAdapter} runs: which namespace it manages, where its queue configuration comes from, whether it
 * takes part in leader election, and its timings.
 *
 * <pre>{@code
 * AdapterOptions o = AdapterOptions.builder()
 *     .namespace("team-a")                                      // null: every namespace
 *     .configMap("fairway-system", "fairway-queues", "queues.yaml")
 *     .leaderElection("fairway-system", "fairway-controller", "pod-1")
 *     .build();
 * }</pre>
 *
 * @param namespace the namespace whose Jobs it manages, or null for all
 * @param queueLabels the labels naming a Job's LocalQueue (first found wins)
 * @param excludedResourcePrefixes resources not counted against quota (e.g. {@code ephemeral-storage})
 * @param queues a fixed configuration (embedding, tests), or null
 * @param configMapNamespace namespace of the ConfigMap holding the configuration, or null
 * @param configMapName name of that ConfigMap, or null
 * @param configMapKey the key of the YAML in that ConfigMap
 * @param configFile a YAML file (a mounted ConfigMap), re-read when it changes, or null
 * @param leaderElection true to act only while holding the Lease
 * @param leaseNamespace the Lease's namespace
 * @param leaseName the Lease's name
 * @param identity this replica's identity in the Lease
 * @param leaseDuration how long a Lease holds without renewal
 * @param renewDeadline how long the leader retries renewing before it gives up leading
 * @param retryPeriod how often candidates retry and the leader renews
 * @param resyncPeriod how often informers replay their whole cache (0: never)
 * @param reconcileInterval how often the background loop reconciles when nothing changed
 * @param countUnmanagedPods true to subtract what pods Fairway does not manage request from each node
 * @param nodeClassRef the Karpenter node class the NodeClaims of the configured node pools name
 * @param clock the engine's clock (the wall clock; tests pass their own)
 * @param integrations the kinds to queue, by {@link io.fairway.k8s.integration.Integration#name() integration name}
 *     ({@code batch/v1.Job}); empty: the configuration's {@code integrations:}, and without those
 *     {@link io.fairway.k8s.integration.Integrations#DEFAULT}
 * @param nodeTermination the Node taints and conditions that announce a node's termination (drained on sight)
 * @param kueue whether the queues come from Kueue's objects on the API server, and how ({@link KueueMode#OFF}: from the
 *     configuration)
 */
public record AdapterOptions(String namespace, List<String> queueLabels, List<String> excludedResourcePrefixes, QueuesConfig queues,
                             String configMapNamespace, String configMapName, String configMapKey, Path configFile,
                             boolean leaderElection, String leaseNamespace, String leaseName, String identity,
                             Duration leaseDuration, Duration renewDeadline, Duration retryPeriod,
                             Duration resyncPeriod, Duration reconcileInterval, boolean countUnmanagedPods, NodeClassRef nodeClassRef,
                             io.fairway.core.Clock clock, List<String> integrations, NodeTermination nodeTermination, KueueMode kueue) {
    /** The default key of the YAML in the ConfigMap. */
    public static final String DEFAULT_CONFIG_KEY = "queues.yaml";

    /** Validates. */
    public AdapterOptions {
        namespace = namespace == null || namespace.isBlank() ? null : namespace;
        queueLabels = List.copyOf(queueLabels);
        InvalidSpecException.check(!queueLabels.isEmpty(), "queueLabels", queueLabels, "at least one queue label is required");
        excludedResourcePrefixes = List.copyOf(excludedResourcePrefixes);
        configMapKey = configMapKey == null || configMapKey.isBlank() ? DEFAULT_CONFIG_KEY : configMapKey;
        kueue = kueue == null ? KueueMode.OFF : kueue;
        InvalidSpecException.check(queues != null || configMapName != null || configFile != null || kueue.objects(), "config", null,
                "give the queue configuration: Kueue's objects, a ConfigMap, a file, or a fixed configuration");
        InvalidSpecException.check((configMapName == null) == (configMapNamespace == null), "configMap", configMapName,
                "a ConfigMap needs both namespace and name");
        if (leaderElection) {
            InvalidSpecException.requireName("leaseNamespace", leaseNamespace);
            InvalidSpecException.requireName("leaseName", leaseName);
            InvalidSpecException.requireName("identity", identity);
            InvalidSpecException.check(renewDeadline.compareTo(leaseDuration) < 0, "renewDeadline", renewDeadline,
                    "renewDeadline %s must be shorter than leaseDuration %s", renewDeadline, leaseDuration);
        }
        Objects.requireNonNull(resyncPeriod, "resyncPeriod");
        Objects.requireNonNull(reconcileInterval, "reconcileInterval");
        nodeClassRef = nodeClassRef == null ? NodeClassRef.DEFAULT : nodeClassRef;
        clock = clock == null ? io.fairway.core.Clock.system() : clock;
        integrations = List.copyOf(integrations == null ? List.of() : integrations);
        nodeTermination = nodeTermination == null ? NodeTermination.DEFAULT : nodeTermination;
        if (!integrations.isEmpty()) {
            io.fairway.k8s.integration.Integrations.enabled(integrations); // unknown names fail here, naming the value
        } else if (queues != null && !queues.integrations().isEmpty()) {
            io.fairway.k8s.integration.Integrations.enabled(queues.integrations());
        }
    }

    /**
     * Reading the queues from Kueue's objects ({@code kueue.x-k8s.io}: ResourceFlavors, ClusterQueues, LocalQueues,
     * Cohorts, Topologies, WorkloadPriorityClasses) instead of the configuration's YAML, and writing ClusterQueue and
     * LocalQueue status as Kueue does. The configuration (a ConfigMap, a file or a fixed one), when given, still
     * supplies the policy, its parameters, node pools and integrations; its queues are not used.
     *
     * @param objects true to read the queues from Kueue's objects
     * @param apiVersion the Kueue API version to read and write: {@code v1beta2} (Kueue 0.19's storage version) or
     *     {@code v1beta1}
     * @param allowRunningKueue start even when a running Kueue controller or its webhooks are found (otherwise the
     *     adapter refuses to start whenever it honours Kueue's queue label, as it does when reading Kueue's objects)
     * @param kueueNamespace where Kueue's controller would run (its leader-election Lease is looked for there)
     */
    public record KueueMode(boolean objects, String apiVersion, boolean allowRunningKueue, String kueueNamespace) {
        /** The queues come from the configuration. */
        public static final KueueMode OFF = new KueueMode(false, io.fairway.k8s.kueue.KueueApi.V1BETA2, false, io.fairway.k8s.kueue.KueueApi.DEFAULT_NAMESPACE);

        /** Validates. */
        public KueueMode {
            apiVersion = io.fairway.k8s.kueue.KueueApi.checkVersion(apiVersion == null ? io.fairway.k8s.kueue.KueueApi.V1BETA2 : apiVersion);
            kueueNamespace = kueueNamespace == null || kueueNamespace.isBlank() ? io.fairway.k8s.kueue.KueueApi.DEFAULT_NAMESPACE : kueueNamespace;
        }
    }

    /**
     * The node class a NodeClaim refers to ({@code spec.nodeClassRef}): on AWS an {@code EC2NodeClass} of group
     * {@code karpenter.k8s.aws}.
     *
     * @param group the node class's API group
     * @param kind its kind
     * @param name its name
     */
    public record NodeClassRef(String group, String kind, String name) {
        /** {@code karpenter.k8s.aws/EC2NodeClass/default}. */
        public static final NodeClassRef DEFAULT = new NodeClassRef("karpenter.k8s.aws", "EC2NodeClass", "default");

        /** Validates. */
        public NodeClassRef {
            InvalidSpecException.requireName("nodeClassRef.group", group);
            InvalidSpecException.requireName("nodeClassRef.kind", kind);
            InvalidSpecException.requireName("nodeClassRef.name", name);
        }

        /**
         * @param text {@code GROUP/KIND/NAME}, e.g. {@code karpenter.k8s.aws/EC2NodeClass/default}
         * @return the reference
         * @throws InvalidSpecException when the text does not have three parts
         */
        public static NodeClassRef parse(String text) {
            String[] p = text == null ? new String[0] : text.split("/", -1);
            InvalidSpecException.check(p.length == 3, "nodeClassRef", text, "nodeClassRef must be GROUP/KIND/NAME, was %s", text);
            return new NodeClassRef(p[0], p[1], p[2]);
        }
    }

    /** @return a builder with the defaults: every namespace, the {@value Keys#QUEUE_LABEL} label, no leader election */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link AdapterOptions}. */
    public static final class Builder {
        private String namespace;
        private final List<String> queueLabels = new ArrayList<>(List.of(Keys.QUEUE_LABEL));
        private List<String> excluded = List.of();
        private QueuesConfig queues;
        private String cmNamespace;
        private String cmName;
        private String cmKey = DEFAULT_CONFIG_KEY;
        private Path configFile;
        private boolean leaderElection;
        private String leaseNamespace;
        private String leaseName;
        private String identity;
        private Duration leaseDuration = Duration.ofSeconds(15);
        private Duration renewDeadline = Duration.ofSeconds(10);
        private Duration retryPeriod = Duration.ofSeconds(2);
        private Duration resync = Duration.ofMinutes(5);
        private Duration interval = Duration.ofSeconds(1);
        private boolean countUnmanaged = true;
        private NodeClassRef nodeClassRef = NodeClassRef.DEFAULT;
        private io.fairway.core.Clock clock = io.fairway.core.Clock.system();
        private List<String> integrations = List.of();
        private NodeTermination nodeTermination = NodeTermination.DEFAULT;
        private KueueMode kueue = KueueMode.OFF;

        private Builder() {
        }

        /** @param namespace the namespace to manage, or null for all @return this */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** @param enabled also honour Kueue's {@value Keys#KUEUE_QUEUE_LABEL} label @return this */
        public Builder kueueQueueLabel(boolean enabled) {
            queueLabels.remove(Keys.KUEUE_QUEUE_LABEL);
            if (enabled) {
                queueLabels.add(Keys.KUEUE_QUEUE_LABEL);
            }
            return this;
        }

        /** @param prefixes resource name prefixes not counted against quota @return this */
        public Builder excludedResourcePrefixes(List<String> prefixes) {
            this.excluded = List.copyOf(prefixes);
            return this;
        }

        /** @param config a fixed queue configuration @return this */
        public Builder queues(QueuesConfig config) {
            this.queues = config;
            return this;
        }

        /**
         * @param namespace the ConfigMap's namespace
         * @param name its name
         * @param key the key holding the YAML (null: {@value #DEFAULT_CONFIG_KEY})
         * @return this
         */
        public Builder configMap(String namespace, String name, String key) {
            this.cmNamespace = namespace;
            this.cmName = name;
            this.cmKey = key;
            return this;
        }

        /** @param file a YAML file, re-read when it changes @return this */
        public Builder configFile(Path file) {
            this.configFile = file;
            return this;
        }

        /**
         * Act only while holding a coordination.k8s.io Lease.
         *
         * @param namespace the Lease's namespace
         * @param name the Lease's name
         * @param identity this replica's identity (the pod name)
         * @return this
         */
        public Builder leaderElection(String namespace, String name, String identity) {
            this.leaderElection = true;
            this.leaseNamespace = namespace;
            this.leaseName = name;
            this.identity = identity;
            return this;
        }

        /**
         * @param leaseDuration how long a Lease holds without renewal
         * @param renewDeadline how long the leader tries to renew
         * @param retryPeriod how often to retry
         * @return this
         */
        public Builder leaseTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
            this.leaseDuration = leaseDuration;
            this.renewDeadline = renewDeadline;
            this.retryPeriod = retryPeriod;
            return this;
        }

        /** @param period how often informers replay their cache @return this */
        public Builder resyncPeriod(Duration period) {
            this.resync = period;
            return this;
        }

        /** @param interval how often the loop reconciles when idle @return this */
        public Builder reconcileInterval(Duration interval) {
            this.interval = interval;
            return this;
        }

        /** @param count subtract what other pods request from each node @return this */
        public Builder countUnmanagedPods(boolean count) {
            this.countUnmanaged = count;
            return this;
        }

        /** @param ref the node class the NodeClaims of the node pools name @return this */
        public Builder nodeClassRef(NodeClassRef ref) {
            this.nodeClassRef = ref;
            return this;
        }

        /** @param clock the engine's clock (tests) @return this */
        public Builder clock(io.fairway.core.Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * @param names the integrations to enable ({@code batch/v1.Job}, {@code jobset.x-k8s.io/v1alpha2.JobSet} …);
         *     overrides the configuration's {@code integrations:}
         * @return this
         */
        public Builder integrations(List<String> names) {
            this.integrations = List.copyOf(names);
            return this;
        }

        /** @param t the taints and conditions that announce a node's termination @return this */
        public Builder nodeTermination(NodeTermination t) {
            this.nodeTermination = t;
            return this;
        }

        /**
         * Reads the queues from Kueue's objects (and queues objects labelled {@value Keys#KUEUE_QUEUE_LABEL}).
         *
         * @param apiVersion {@code v1beta2} or {@code v1beta1}
         * @param allowRunningKueue start even when a running Kueue is found
         * @param kueueNamespace where Kueue's controller would run (null: {@code kueue-system})
         * @return this
         */
        public Builder kueueObjects(String apiVersion, boolean allowRunningKueue, String kueueNamespace) {
            this.kueue = new KueueMode(true, apiVersion, allowRunningKueue, kueueNamespace);
            return kueueQueueLabel(true);
        }

        /**
         * @param allow start even when a running Kueue is found (it is looked for whenever Kueue's queue label is
         *     honoured)
         * @param kueueNamespace where Kueue's controller would run (null: {@code kueue-system})
         * @return this
         */
        public Builder allowRunningKueue(boolean allow, String kueueNamespace) {
            this.kueue = new KueueMode(kueue.objects(), kueue.apiVersion(), allow, kueueNamespace);
            return this;
        }

        /** @return the options */
        public AdapterOptions build() {
            return new AdapterOptions(namespace, queueLabels, excluded, queues, cmNamespace, cmName, cmKey, configFile, leaderElection,
                    leaseNamespace, leaseName, identity, leaseDuration, renewDeadline, retryPeriod, resync, interval, countUnmanaged, nodeClassRef,
                    clock, integrations, nodeTermination, kueue);
        }
    }
}
