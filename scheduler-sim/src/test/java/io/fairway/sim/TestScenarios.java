package io.fairway.sim;

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
}
