package io.fairway.sim;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.ResourceFlavor;
import java.util.ArrayList;
import java.util.List;

/**
 * The quota configuration of a simulation: ResourceFlavors, cohorts, ClusterQueues and LocalQueues, as read
 * from a queues YAML file.
 *
 * @param flavors the ResourceFlavors
 * @param cohorts the cohorts
 * @param clusterQueues the ClusterQueues
 * @param localQueues the LocalQueues
 */
public record QueueModel(List<ResourceFlavor> flavors, List<Cohort> cohorts, List<ClusterQueue> clusterQueues,
                         List<LocalQueue> localQueues) {
    /** Copies. */
    public QueueModel {
        flavors = List.copyOf(flavors == null ? List.of() : flavors);
        cohorts = List.copyOf(cohorts == null ? List.of() : cohorts);
        clusterQueues = List.copyOf(clusterQueues == null ? List.of() : clusterQueues);
        localQueues = List.copyOf(localQueues == null ? List.of() : localQueues);
    }

    /**
     * @param more LocalQueues to add
     * @return a copy with them appended
     */
    public QueueModel withLocalQueues(List<LocalQueue> more) {
        List<LocalQueue> all = new ArrayList<>(localQueues);
        all.addAll(more);
        return new QueueModel(flavors, cohorts, clusterQueues, all);
    }

    /**
     * @param namespace a namespace
     * @param name a LocalQueue name
     * @return true when that LocalQueue is defined
     */
    public boolean hasLocalQueue(String namespace, String name) {
        for (LocalQueue q : localQueues) {
            if (q.namespace().equals(namespace) && q.name().equals(name)) {
                return true;
            }
        }
        return false;
    }
}
