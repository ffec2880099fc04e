package io.fairway.core.snapshot;

/**
 * How the engine's placement search chooses nodes and GPUs for a gang. Part of a round's input (it travels in
 * the {@link Snapshot}), so the same snapshot can be replayed under either strategy to compare them.
 *
 * <pre>{@code
 * Scheduler s = Scheduler.builder().placement(PlacementStrategy.FIRST_FIT)...build();
 * RoundResult aware = Rounds.run(snapshot.withPlacement(PlacementStrategy.TOPOLOGY_AWARE), policy);
 * }</pre>
 *
 * <p>Either way a gang is placed whole or not at all, and its <em>required</em> topology constraints (a level,
 * one node, one NVLink domain) hold; the strategies differ in everything that is a preference.
 */
public enum PlacementStrategy {
    /**
     * The default. The narrowest topology domain that holds the gang wins (one node, then one rack, then one
     * block …); inside it the fewest nodes, best fit (the smallest leftover, keeping large free domains
     * intact); on each node the GPU set with the best links (one NVLink domain, the fastest ring, the
     * fastest slowest pair) that leaves the best-connected free set behind.
     */
    TOPOLOGY_AWARE,
    /**
     * A topology-oblivious baseline: nodes in the order they were added, as many members on each as fit,
     * the lowest free GPU indexes; preferences (preferred levels, spread) are ignored.
     */
    FIRST_FIT
}
