package io.fairway.api.spi;

/** The cluster's capacity and what is free in the round's plan. */
public interface CapacityView {
    /** @return GPUs on schedulable nodes */
    long totalGpus();

    /** @return GPUs free in the plan on schedulable nodes */
    long freeGpus();

    /** @return the largest number of GPUs free on one schedulable node in the plan */
    int largestFreeGpusOnOneNode();

    /** @return schedulable nodes */
    int schedulableNodes();

    /**
     * @param resource a resource name
     * @return its total capacity on schedulable nodes
     */
    long total(String resource);
}
