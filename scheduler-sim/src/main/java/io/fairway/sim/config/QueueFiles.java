package io.fairway.sim.config;

import io.fairway.api.InvalidSpecException;
import io.fairway.config.QueuesConfig;
import io.fairway.sim.QueueModel;
import java.nio.file.Path;

/**
 * Reads a queues file (the configuration module's {@link QueuesConfig}: flavors, cohorts, ClusterQueues and
 * LocalQueues with Kueue's field names) into the simulator's {@link QueueModel}.
 */
public final class QueueFiles {
    private QueueFiles() {
    }

    /**
     * @param file a queues YAML file
     * @return the queue model
     * @throws SimulationConfigException naming the file and line of the first error
     */
    public static QueueModel load(Path file) {
        return toModel(YamlFiles.read(file, QueuesConfig.class), file.toString());
    }

    /**
     * @param resource a class-path resource
     * @return the queue model
     */
    public static QueueModel loadResource(String resource) {
        return toModel(YamlFiles.readResource(resource, QueuesConfig.class), "classpath:" + resource);
    }

    /**
     * @param queues the queues as read
     * @param source the file name used in errors
     * @return the model
     * @throws SimulationConfigException on an error across entries (a ClusterQueue naming an undefined flavor)
     */
    public static QueueModel toModel(QueuesConfig queues, String source) {
        try {
            queues.checkFlavors();
        } catch (InvalidSpecException e) {
            throw new SimulationConfigException(source, 0, 0, e.getMessage(), null);
        }
        return new QueueModel(queues.flavorModels(), queues.cohortModels(), queues.clusterQueueModels(), queues.localQueueModels(),
                queues.priorityClassModels());
    }
}
