package io.fairway.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Pieces of the scenario files the simulator's tests write. */
public final class TestScenarios {
    private TestScenarios() {
    }

    /**
     * @param gpus the ClusterQueue's nominal GPU quota
     * @return a scenario's {@code queues:} section: flavor {@code default}, ClusterQueue {@code cq} with {@code gpus}
     *     GPUs of it, and LocalQueue {@code lq} in front of it
     */
    public static String gpuQueue(int gpus) {
        return """
                queues:
                  flavors: [{name: default}]
                  clusterQueues:
                    - name: cq
                      resourceGroups:
                        - coveredResources: [nvidia.com/gpu]
                          flavors: [{name: default, resources: [{name: nvidia.com/gpu, nominalQuota: %d}]}]
                  localQueues: [{name: lq, clusterQueue: cq}]
                """.formatted(gpus);
    }

    /**
     * Writes {@code s.yaml} in {@code dir}: everything before the job list, then {@code jobs:} and the entries.
     *
     * @param dir the test's temporary directory
     * @param head the scenario's name, cluster and queues sections
     * @param jobs the job entries, indented under {@code jobs:}
     * @return the written file
     * @throws IOException if it cannot be written
     */
    public static Path write(Path dir, String head, String jobs) throws IOException {
        return Files.writeString(dir.resolve("s.yaml"), head + "jobs:\n" + jobs);
    }
}
