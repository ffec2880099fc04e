package io.fairway.k8s.kueue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.api.InvalidSpecException;
import io.fairway.config.QueuesConfig;
import io.fairway.config.QueuesConfig.ClusterQueueConfig;
import io.fairway.config.QueuesConfig.CohortConfig;
import io.fairway.config.QueuesConfig.FairSharingConfig;
import io.fairway.config.QueuesConfig.FlavorConfig;
import io.fairway.config.QueuesConfig.FlavorFungibilityConfig;
import io.fairway.config.QueuesConfig.FlavorQuotasConfig;
import io.fairway.config.QueuesConfig.LocalQueueConfig;
import io.fairway.config.QueuesConfig.PreemptionConfig;
import io.fairway.config.QueuesConfig.ResourceGroupConfig;
import io.fairway.config.QueuesConfig.ResourceQuotaConfig;
import io.fairway.config.QueuesConfig.TolerationConfig;
import io.fairway.config.TaintConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Maps Kueue's objects — ResourceFlavors, ClusterQueues, LocalQueues, Cohorts, Topologies and WorkloadPriorityClasses,
 * as JSON of either served version — to the one queue model Fairway's configuration builds ({@link QueuesConfig}),
 * the same model a ConfigMap's YAML gives. A pure function: the same objects give the same model.
 *
 * <p>Nothing is silently ignored: every field Fairway does not act on is reported as a {@link Finding} naming the
 * object and the field. Fields whose absence would change who may use a ClusterQueue or what must happen before a
 * workload runs (admission checks, admission scope, concurrent admission) hold the ClusterQueue: it admits nothing
 * until the field is removed, as Kueue holds a ClusterQueue whose admission checks are missing. The others are
 * reported and the rest of the object is used.
 *
 * <p>{@code namespaceSelector} is applied here, as Kueue applies it: a LocalQueue whose namespace the selector of its
 * ClusterQueue does not match is not loaded (its workloads wait, and its status says {@code NamespaceNotSelected});
 * an absent selector matches no namespace and {@code {}} every namespace. It is deliberately not passed to the
 * engine's {@code ClusterQueue.namespaceSelector}, whose absent selector means every namespace: the engine is given
 * only the LocalQueues the selector admits, which keeps Kueue's meaning and gives the same model as a ConfigMap
 * without selectors.
 */
public final class KueueQueues {
    /** The host level of a Kueue Topology: implicit in Fairway's topology levels. */
    static final String HOSTNAME = "kubernetes.io/hostname";

    private KueueQueues() {
    }

    /**
     * A field Fairway does not act on, or an object it cannot use.
     *
     * @param kind the object's kind
     * @param namespace its namespace (null for cluster-scoped kinds)
     * @param name its name
     * @param field the field's path ({@code spec.admissionChecksStrategy})
     * @param detail what Fairway does instead
     * @param holds true when the ClusterQueue admits nothing because of it
     */
    public record Finding(String kind, String namespace, String name, String field, String detail, boolean holds) {
        /** @return a one-line message naming the field */
        public String message() {
            return field + ": " + detail;
        }
    }

    /**
     * The objects read, each as the API server returned it (any served version).
     *
     * @param flavors ResourceFlavors
     * @param clusterQueues ClusterQueues
     * @param localQueues LocalQueues
     * @param cohorts Cohorts
     * @param topologies Topologies
     * @param priorityClasses WorkloadPriorityClasses
     * @param namespaceLabels the labels of every namespace, by name (for {@code namespaceSelector})
     */
    public record Objects(List<JsonNode> flavors, List<JsonNode> clusterQueues, List<JsonNode> localQueues, List<JsonNode> cohorts,
                          List<JsonNode> topologies, List<JsonNode> priorityClasses, Map<String, Map<String, String>> namespaceLabels) {
        /** Copies, ordered by name so the model does not depend on list order. */
        public Objects {
            flavors = sorted(flavors);
            clusterQueues = sorted(clusterQueues);
            localQueues = sorted(localQueues);
            cohorts = sorted(cohorts);
            topologies = sorted(topologies);
            priorityClasses = sorted(priorityClasses);
            namespaceLabels = namespaceLabels == null ? Map.of() : Map.copyOf(namespaceLabels);
        }

        private static List<JsonNode> sorted(List<JsonNode> l) {
            List<JsonNode> out = new ArrayList<>(l == null ? List.of() : l);
            out.sort(Comparator.comparing((JsonNode o) -> o.at("/metadata/namespace").asText("")).thenComparing(o -> o.at("/metadata/name").asText()));
            return List.copyOf(out);
        }
    }

    /**
     * What the objects map to.
     *
     * @param config the queue model: the objects' flavors, cohorts, ClusterQueues, LocalQueues and topology levels with
     *     the base configuration's policy, parameters, node pools and integrations
     * @param priorityClasses WorkloadPriorityClass values by name
     * @param findings what Fairway does not act on, per object
     * @param inactive ClusterQueues that admit nothing, with Kueue's reason and a message ({@code FlavorNotFound} …)
     * @param localQueuesNotLoaded LocalQueues ({@code namespace/name}) not loaded, with the reason
     */
    public record Mapped(QueuesConfig config, Map<String, Integer> priorityClasses, List<Finding> findings,
                         Map<String, String[]> inactive, Map<String, String[]> localQueuesNotLoaded) {
        /** Copies. */
        public Mapped {
            priorityClasses = Map.copyOf(priorityClasses);
            findings = List.copyOf(findings);
            inactive = Map.copyOf(inactive);
            localQueuesNotLoaded = Map.copyOf(localQueuesNotLoaded);
        }
    }

    /**
     * @param o the objects
     * @param base where the policy, its parameters, node pools, integrations (and the topology levels when no flavor
     *     names a Topology) come from; its own queues are not used (null: defaults)
     * @return the model
     */
    public static Mapped map(Objects o, QueuesConfig base) {
        List<Finding> findings = new ArrayList<>();
        Map<String, String[]> inactive = new TreeMap<>();
        Map<String, String[]> lqNotLoaded = new TreeMap<>();
        Map<String, List<String>> topologies = topologies(o, findings);
        Map<String, FlavorConfig> flavors = new LinkedHashMap<>();
        Map<String, String> flavorTopology = new LinkedHashMap<>();
        for (JsonNode f : o.flavors()) {
            flavor(f, topologies, flavors, flavorTopology, findings);
        }
        List<String> topologyLevels = topologyLevels(topologies, flavorTopology, base, findings);
        List<CohortConfig> cohorts = cohorts(o, findings);
        Map<String, JsonNode> cqSelectors = new LinkedHashMap<>();
        List<ClusterQueueConfig> queues = new ArrayList<>();
        for (JsonNode q : o.clusterQueues()) {
            clusterQueue(q, flavors.keySet(), queues, cqSelectors, inactive, findings);
        }
        List<LocalQueueConfig> localQueues = new ArrayList<>();
        for (JsonNode l : o.localQueues()) {
            localQueue(l, o, cqSelectors, localQueues, lqNotLoaded, findings);
        }
        Map<String, Integer> priorities = new TreeMap<>();
        for (JsonNode w : o.priorityClasses()) {
            if (w.path("value").canConvertToInt()) {
                priorities.put(name(w), w.path("value").asInt());
            }
        }

        QueuesConfig c = new QueuesConfig(base == null ? null : base.policy(), base == null ? null : base.policyParameters(), topologyLevels,
                List.copyOf(flavors.values()), cohorts, queues, localQueues, base == null ? null : base.nodePools(),
                base == null ? null : base.integrations());
        c.checkFlavors();
        return new Mapped(c, priorities, findings, inactive, lqNotLoaded);
    }

    /** Each Topology's levels, without the implicit host level. */
    private static Map<String, List<String>> topologies(Objects o, List<Finding> findings) {
        Map<String, List<String>> topologies = new LinkedHashMap<>();
        for (JsonNode t : o.topologies()) {
            List<String> levels = new ArrayList<>();
            for (JsonNode l : t.at("/spec/levels")) {
                levels.add(l.path("nodeLabel").asText());
            }
            if (!levels.isEmpty() && levels.get(levels.size() - 1).equals(HOSTNAME)) {
                levels.remove(levels.size() - 1); // the host is implicit in Fairway's levels
            }
            topologies.put(name(t), levels);
            unknownFields(t, "spec", Set.of("levels"), findings);
        }
        return topologies;
    }

    /** One ResourceFlavor: into {@code flavors} when valid, its Topology (when it exists) into {@code flavorTopology}. */
    private static void flavor(JsonNode f, Map<String, List<String>> topologies, Map<String, FlavorConfig> flavors,
                               Map<String, String> flavorTopology, List<Finding> findings) {
        JsonNode spec = f.path("spec");
        unknownFields(f, "spec", Set.of("nodeLabels", "nodeTaints", "tolerations", "topologyName"), findings);
        Map<String, String> labels = new TreeMap<>();
        spec.path("nodeLabels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        List<TaintConfig> taints = new ArrayList<>();
        int ti = 0;
        for (JsonNode t : spec.path("nodeTaints")) {
            if (t.has("timeAdded")) {
                findings.add(finding(f, "spec.nodeTaints[" + ti + "].timeAdded", "not used (Fairway matches taints by key, value and effect)", false));
            }
            ti++;
            taints.add(new TaintConfig(text(t, "key"), text(t, "value"), text(t, "effect")));
        }
        List<TolerationConfig> tolerations = new ArrayList<>();
        int i = 0;
        for (JsonNode t : spec.path("tolerations")) {
            if (t.has("tolerationSeconds")) {
                findings.add(finding(f, "spec.tolerations[" + i + "].tolerationSeconds",
                        "not applied: the toleration is added to admitted pods without it (they tolerate the taint for ever)", false));
            }
            tolerations.add(new TolerationConfig(text(t, "key"), t.path("operator").asText("Equal"), text(t, "value"), text(t, "effect")));
            i++;
        }
        String topo = text(spec, "topologyName");
        if (topo != null) {
            if (topologies.get(topo) == null) {
                findings.add(finding(f, "spec.topologyName", "Topology " + topo + " does not exist; the flavor is used without topology levels", false));
            } else {
                flavorTopology.put(name(f), topo);
            }
        }
        try {
            FlavorConfig fc = new FlavorConfig(name(f), labels, taints, tolerations);
            fc.validate();
            flavors.put(name(f), fc);
        } catch (InvalidSpecException e) {
            findings.add(finding(f, "spec", "not loaded: " + e.getMessage(), false));
        }
    }

    /**
     * The cluster's topology levels: those of the Topology the flavors name (the first when they name several, with a
     * finding for each other), else the base configuration's.
     */
    private static List<String> topologyLevels(Map<String, List<String>> topologies, Map<String, String> flavorTopology, QueuesConfig base,
                                               List<Finding> findings) {
        Set<List<String>> levelSets = new LinkedHashSet<>();
        for (String topo : flavorTopology.values()) {
            levelSets.add(topologies.get(topo));
        }
        if (levelSets.isEmpty()) {
            return base == null ? List.of() : base.topologyLevels();
        }
        List<String> first = levelSets.iterator().next();
        if (levelSets.size() > 1) {
            for (Map.Entry<String, String> e : flavorTopology.entrySet()) {
                if (!topologies.get(e.getValue()).equals(first)) {
                    findings.add(new Finding("ResourceFlavor", null, e.getKey(), "spec.topologyName",
                            "Fairway places with one set of topology levels per cluster, " + first + "; Topology " + e.getValue() + " ("
                                    + topologies.get(e.getValue()) + ") is not used", false));
                }
            }
        }
        return first;
    }

    private static List<CohortConfig> cohorts(Objects o, List<Finding> findings) {
        List<CohortConfig> cohorts = new ArrayList<>();
        for (JsonNode c : o.cohorts()) {
            JsonNode spec = c.path("spec");
            unknownFields(c, "spec", Set.of("parentName", "resourceGroups", "fairSharing"), findings);
            try {
                CohortConfig cc = new CohortConfig(name(c), text(spec, "parentName"), groups(spec.path("resourceGroups")), fairSharing(spec));
                cc.validate();
                cohorts.add(cc);
            } catch (InvalidSpecException e) {
                findings.add(finding(c, "spec", "not loaded: " + e.getMessage(), false));
            }
        }
        return cohorts;
    }

    /**
     * One ClusterQueue: into {@code queues} (and its namespace selector into {@code cqSelectors}) when it loads; into
     * {@code inactive} with Kueue's reason when it names a missing flavor, is stopped or held, or is invalid.
     */
    private static void clusterQueue(JsonNode q, Set<String> flavors, List<ClusterQueueConfig> queues, Map<String, JsonNode> cqSelectors,
                                     Map<String, String[]> inactive, List<Finding> findings) {
        JsonNode spec = q.path("spec");
        String cqName = name(q);
        unknownFields(q, "spec", Set.of("cohortName", "cohort", "namespaceSelector", "queueingStrategy", "resourceGroups", "preemption",
                "fairSharing", "flavorFungibility", "stopPolicy", "admissionChecks", "admissionChecksStrategy", "admissionScope",
                "concurrentAdmissionPolicy"), findings);
        List<String> holdReasons = unsupportedFields(q, findings);
        JsonNode ff = spec.path("flavorFungibility");
        if (ff.has("whenCanPreempt") && !ff.path("whenCanPreempt").asText().equals("TryNextFlavor")) {
            findings.add(finding(q, "spec.flavorFungibility.whenCanPreempt", "only TryNextFlavor is implemented; used as TryNextFlavor", false));
        }
        if (ff.has("preference")) {
            findings.add(finding(q, "spec.flavorFungibility.preference", "not implemented; ignored", false));
        }
        if ("HoldAndDrain".equals(text(spec, "stopPolicy"))) {
            findings.add(finding(q, "spec.stopPolicy", "HoldAndDrain holds the ClusterQueue; its admitted workloads are not evicted", false));
        }
        Set<String> missing = new LinkedHashSet<>();
        for (JsonNode g : spec.path("resourceGroups")) {
            for (JsonNode f : g.path("flavors")) {
                if (!flavors.contains(f.path("name").asText())) {
                    missing.add(f.path("name").asText());
                }
            }
        }
        if (!missing.isEmpty()) {
            inactive.put(cqName, new String[] {"FlavorNotFound", "Can't admit new workloads: references missing ResourceFlavor(s): "
                    + String.join(",", missing) + "."});
            return; // as Kueue: inactive until the flavors exist
        }
        String stop = text(spec, "stopPolicy");
        if (!holdReasons.isEmpty()) {
            inactive.put(cqName, new String[] {"Unsupported", "Can't admit new workloads: Fairway does not implement " + String.join(", ", holdReasons) + "."});
            stop = "Hold";
        } else if (stop != null && !stop.equals("None")) {
            inactive.put(cqName, new String[] {"Stopped", "Can't admit new workloads: is stopped."});
        }
        String cohort = spec.has("cohortName") ? text(spec, "cohortName") : text(spec, "cohort");
        PreemptionConfig preemption = preemption(q, findings);
        FlavorFungibilityConfig fungibility = null;
        if (ff.has("whenCanBorrow")) {
            String w = ff.path("whenCanBorrow").asText();
            fungibility = new FlavorFungibilityConfig(w, null); // MayStopSearch (and its older name Borrow) as the engine reads it
        }
        try {
            // an omitted queueingStrategy is BestEffortFIFO: the API server stores the CRD's default
            String strategy = spec.hasNonNull("queueingStrategy") ? text(spec, "queueingStrategy") : "BestEffortFIFO";
            ClusterQueueConfig cq = new ClusterQueueConfig(cqName, cohort, strategy, groups(spec.path("resourceGroups")),
                    preemption, fairSharing(spec), null, fungibility, priorityFactor(q, findings), stop);
            cq.validate();
            queues.add(cq);
            cqSelectors.put(cqName, spec.get("namespaceSelector"));
        } catch (InvalidSpecException e) {
            findings.add(finding(q, "spec", "not loaded: " + e.getMessage(), true));
            inactive.put(cqName, new String[] {"Invalid", "Can't admit new workloads: " + e.getMessage()});
        }
    }

    /** The ClusterQueue fields Fairway does not run, each with a finding that holds the queue: their names ("spec.…"). */
    private static List<String> unsupportedFields(JsonNode q, List<Finding> findings) {
        JsonNode spec = q.path("spec");
        List<String> holdReasons = new ArrayList<>();
        for (String held : List.of("admissionChecks", "admissionChecksStrategy", "admissionScope", "concurrentAdmissionPolicy")) {
            JsonNode v = spec.path(held);
            if (!v.isMissingNode() && !v.isNull() && !(v.isContainerNode() && v.isEmpty())) {
                String what = held.startsWith("admissionChecks")
                        ? "Fairway does not run Kueue's AdmissionChecks (ProvisioningRequest, MultiKueue or others)"
                        : "Fairway does not implement " + held;
                findings.add(finding(q, "spec." + held, what + "; the ClusterQueue admits nothing until the field is removed", true));
                holdReasons.add("spec." + held);
            }
        }
        return holdReasons;
    }

    /** A ClusterQueue's preemption block, null when it has none. */
    private static PreemptionConfig preemption(JsonNode q, List<Finding> findings) {
        JsonNode p = q.path("spec").path("preemption");
        if (!p.isObject()) {
            return null;
        }
        JsonNode bwc = p.path("borrowWithinCohort");
        Integer threshold = null;
        JsonNode t = bwc.path("maxPriorityThreshold");
        if (!t.isMissingNode() && !t.isNull()) {
            if (t.isIntegralNumber() && t.canConvertToInt()) {
                threshold = t.asInt();
            } else {
                findings.add(finding(q, "spec.preemption.borrowWithinCohort.maxPriorityThreshold",
                        "must be a 32-bit integer, was " + t.asText() + "; no threshold is used", false));
            }
        }
        // maxPriorityThreshold: while borrowing, only workloads of at most this priority are preempted, as in Kueue
        return new PreemptionConfig(text(p, "withinClusterQueue"), text(p, "reclaimWithinCohort"),
                bwc.isObject() && bwc.has("policy") ? new QueuesConfig.BorrowWithinCohortConfig(text(bwc, "policy"), threshold) : null);
    }

    /**
     * One LocalQueue: into {@code localQueues} when it loads, else into {@code lqNotLoaded} with the reason (stopped, its
     * namespace not selected by its ClusterQueue, invalid).
     */
    private static void localQueue(JsonNode l, Objects o, Map<String, JsonNode> cqSelectors, List<LocalQueueConfig> localQueues,
                                   Map<String, String[]> lqNotLoaded, List<Finding> findings) {
        JsonNode spec = l.path("spec");
        String ns = l.at("/metadata/namespace").asText("default");
        String key = ns + "/" + name(l);
        unknownFields(l, "spec", Set.of("clusterQueue", "stopPolicy", "fairSharing"), findings);
        if (spec.has("fairSharing")) {
            findings.add(finding(l, "spec.fairSharing", "admission fair sharing between LocalQueues is not implemented; ignored", false));
        }
        String cq = text(spec, "clusterQueue");
        String stop = text(spec, "stopPolicy");
        if (stop != null && !stop.equals("None")) {
            lqNotLoaded.put(key, new String[] {"Stopped", "LocalQueue is stopped"});
            if (stop.equals("HoldAndDrain")) {
                findings.add(finding(l, "spec.stopPolicy", "HoldAndDrain holds the LocalQueue; its admitted workloads are not evicted", false));
            }
            return;
        }
        if (cqSelectors.containsKey(cq) && !Selectors.matches(cqSelectors.get(cq), o.namespaceLabels().getOrDefault(ns, Map.of()))) {
            lqNotLoaded.put(key, new String[] {"NamespaceNotSelected", "the namespaceSelector of ClusterQueue " + cq + " does not select namespace " + ns});
            return;
        }
        try {
            LocalQueueConfig lq = new LocalQueueConfig(name(l), ns, cq);
            lq.validate();
            localQueues.add(lq);
        } catch (InvalidSpecException e) {
            findings.add(finding(l, "spec", "not loaded: " + e.getMessage(), false));
            lqNotLoaded.put(key, new String[] {"Invalid", e.getMessage()});
        }
    }

    /**
     * Fair share over time is a Fairway policy parameter per ClusterQueue, set with the annotation
     * {@value #PRIORITY_FACTOR_ANNOTATION} on the ClusterQueue (Kueue has no such field).
     */
    private static Double priorityFactor(JsonNode q, List<Finding> findings) {
        String v = q.at("/metadata/annotations").path(PRIORITY_FACTOR_ANNOTATION).asText(null);
        if (v == null) {
            return null;
        }
        try {
            double d = Double.parseDouble(v);
            if (d > 0 && Double.isFinite(d)) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        findings.add(finding(q, "metadata.annotations." + PRIORITY_FACTOR_ANNOTATION, "must be a number > 0, was " + v + "; 1 is used", false));
        return null;
    }

    /** The annotation on a ClusterQueue giving its priority factor for fair share over time (default 1). */
    public static final String PRIORITY_FACTOR_ANNOTATION = "fairway.io/priority-factor";

    private static FairSharingConfig fairSharing(JsonNode spec) {
        JsonNode w = spec.at("/fairSharing/weight");
        if (w.isMissingNode() || w.isNull()) {
            return null;
        }
        String text = w.asText();
        double weight;
        try {
            weight = w.isNumber() ? w.asDouble() : text.endsWith("m") ? Double.parseDouble(text.substring(0, text.length() - 1)) / 1000
                    : Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new InvalidSpecException("fairSharing.weight", text, "fairSharing.weight: cannot read " + text + " as a number");
        }
        InvalidSpecException.check(weight > 0, "fairSharing.weight", text,
                "fairSharing.weight %s: Fairway needs a weight > 0 (Kueue's 0 means: borrow only what nobody else wants)", text);
        return new FairSharingConfig(weight);
    }

    private static List<ResourceGroupConfig> groups(JsonNode groups) {
        List<ResourceGroupConfig> out = new ArrayList<>();
        for (JsonNode g : groups) {
            List<String> covered = new ArrayList<>();
            g.path("coveredResources").forEach(r -> covered.add(r.asText()));
            List<FlavorQuotasConfig> fqs = new ArrayList<>();
            for (JsonNode f : g.path("flavors")) {
                List<ResourceQuotaConfig> rs = new ArrayList<>();
                for (JsonNode r : f.path("resources")) {
                    rs.add(new ResourceQuotaConfig(text(r, "name"), text(r, "nominalQuota"), text(r, "borrowingLimit"), text(r, "lendingLimit")));
                }
                fqs.add(new FlavorQuotasConfig(text(f, "name"), rs));
            }
            out.add(new ResourceGroupConfig(covered, fqs));
        }
        return out;
    }

    /** Reports every field of {@code at} outside {@code known}: fields of a newer Kueue are not silently dropped either. */
    private static void unknownFields(JsonNode o, String at, Set<String> known, List<Finding> findings) {
        JsonNode n = o.path(at);
        for (Iterator<String> it = n.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!known.contains(f)) {
                findings.add(finding(o, at + "." + f, "not known to Fairway; ignored", false));
            }
        }
    }

    static Finding finding(JsonNode o, String field, String detail, boolean holds) {
        String ns = o.at("/metadata/namespace").asText(null);
        return new Finding(o.path("kind").asText(), ns == null || ns.isEmpty() ? null : ns, name(o), field, detail, holds);
    }

    static String name(JsonNode o) {
        return o.at("/metadata/name").asText();
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
