package io.fairway.sim;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.PriorityClass;
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
 * @param priorityClasses the priority classes jobs may name
 */
public record QueueModel(List<ResourceFlavor> flavors, List<Cohort> cohorts, List<ClusterQueue> clusterQueues,
                         List<LocalQueue> localQueues, List<PriorityClass> priorityClasses) {
    /** Copies. */
    public QueueModel {
        flavors = List.copyOf(flavors == null ? List.of() : flavors);
        cohorts = List.copyOf(cohorts == null ? List.of() : cohorts);
        clusterQueues = List.copyOf(clusterQueues == null ? List.of() : clusterQueues);
        localQueues = List.copyOf(localQueues == null ? List.of() : localQueues);
        priorityClasses = List.copyOf(priorityClasses == null ? List.of() : priorityClasses);
    }

    /**
     * Without priority classes.
     *
     * @param flavors the ResourceFlavors
     * @param cohorts the cohorts
     * @param clusterQueues the ClusterQueues
     * @param localQueues the LocalQueues
     */
    public QueueModel(List<ResourceFlavor> flavors, List<Cohort> cohorts, List<ClusterQueue> clusterQueues, List<LocalQueue> localQueues) {
        this(flavors, cohorts, clusterQueues, localQueues, List.of());
    }

    /**
     * @param more LocalQueues to add
     * @return a copy with them appended
     */
    public QueueModel withLocalQueues(List<LocalQueue> more) {
        List<LocalQueue> all = new ArrayList<>(localQueues);
        all.addAll(more);
        return new QueueModel(flavors, cohorts, clusterQueues, all, priorityClasses);
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
