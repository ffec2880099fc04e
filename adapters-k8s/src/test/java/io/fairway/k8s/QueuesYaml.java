package io.fairway.k8s;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The queues (YAML) an adapter test runs under: one flavor, one ClusterQueue with one resource group on it, and its
 * LocalQueues, with the few things tests vary (the flavor's pool label and taint, preemption, the quotas, lines before
 * and after). {@code QueuesYaml.flavor("default").quota("cpu", "64").localQueue("user-queue", "default").yaml()}.
 */
final class QueuesYaml {
    private final String flavor;
    private String flavorLines = "";
    private String clusterQueue = "cq";
    private boolean preempting;
    private final Map<String, String> quotas = new LinkedHashMap<>();
    private final List<String> localQueues = new ArrayList<>();
    private String before = "";
    private String after = "";

    private QueuesYaml(String flavor) {
        this.flavor = flavor;
    }

    /** @return queues on the flavor {@code name}, ClusterQueue {@code cq} unless {@link #clusterQueue} names another */
    static QueuesYaml flavor(String name) {
        return new QueuesYaml(name);
    }

    /** The flavor's nodes carry {@code fairway.io/pool: pool} and a NoSchedule taint {@code taintKey} its pods tolerate. */
    QueuesYaml pool(String pool, String taintKey) {
        flavorLines = "    nodeLabels: {fairway.io/pool: " + pool + "}\n"
                + "    tolerations: [{key: " + taintKey + ", operator: Exists, effect: NoSchedule}]\n";
        return this;
    }

    QueuesYaml clusterQueue(String name) {
        clusterQueue = name;
        return this;
    }

    /** The ClusterQueue preempts lower-priority jobs of its own for higher ones. */
    QueuesYaml preemptLowerPriority() {
        preempting = true;
        return this;
    }

    /** Adds a resource the ClusterQueue covers, with its nominal quota (a Kubernetes quantity). */
    QueuesYaml quota(String resource, String amount) {
        quotas.put(resource, amount);
        return this;
    }

    QueuesYaml localQueue(String name, String namespace) {
        localQueues.add("  - {name: " + name + ", namespace: " + namespace + ", clusterQueue: " + clusterQueue + "}\n");
        return this;
    }

    /** Top-level lines before the queues (e.g. {@code integrations: [...]}), each ending with a newline. */
    QueuesYaml before(String yaml) {
        before = yaml;
        return this;
    }

    /** Top-level lines after the queues (e.g. {@code nodePools:}), each ending with a newline. */
    QueuesYaml after(String yaml) {
        after = yaml;
        return this;
    }

    String yaml() {
        StringBuilder b = new StringBuilder(before).append("flavors:\n  - name: ").append(flavor).append('\n').append(flavorLines)
                .append("clusterQueues:\n  - name: ").append(clusterQueue).append('\n');
        if (preempting) {
            b.append("    preemption: {withinClusterQueue: LowerPriority}\n");
        }
        b.append("    resourceGroups:\n      - coveredResources: [").append(String.join(", ", quotas.keySet())).append("]\n")
                .append("        flavors:\n          - name: ").append(flavor).append("\n            resources:\n");
        quotas.forEach((r, q) -> b.append("              - {name: ").append(r).append(", nominalQuota: ").append(q).append("}\n"));
        b.append("localQueues:\n");
        localQueues.forEach(b::append);
        return b.append(after).toString();
    }
}
