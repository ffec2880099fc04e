package com.example.fairway;

import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.function.Consumer;

/**
 * The Scheduler embedded as Fairway's README shows, running this project's policy, which the core finds by its name
 * through {@code META-INF/services}.
 */
public final class Embedding {
    private Embedding() {
    }

    /**
     * @param actuator what carries the decisions out (your controller)
     * @return a scheduler for one 8-GPU node and one team's queue, with {@code train-1} (two 4-GPU members) submitted
     */
    public static Scheduler scheduler(Consumer<List<Decision>> actuator) {
        Scheduler scheduler = Scheduler.builder()
                .policy(QueueRoundRobinPolicy.NAME)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("team-a")
                        .quota("default", Resources.builder().cpu(64).gpus(16).build())
                        .build())
                .localQueue(new LocalQueue("team-a", "gpu", "team-a"))
                .node(Node.builder("node-1")
                        .capacity(Resources.builder().cpu(96).memoryGiB(1024).build())
                        .gpus(GpuTopology.nvSwitch8("H100"))
                        .build())
                .actuator(actuator::accept)
                .build();
        scheduler.submit(JobSpec.builder("train-1")
                .namespace("team-a").queue("gpu")
                .members(2, Resources.builder().cpu(8).gpus(4).build())
                .build());
        return scheduler;
    }
}
