package io.fairway.api.spi;

import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobStatus;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's placement search: all or nothing, fewest nodes, the GPUs of one node chosen together for the
 * best links, topology constraints honoured, large free domains kept intact.
 */
public interface PlacementSearch {
    /**
     * @param job a job
     * @param counts member count per pod set
     * @param flavors the flavor per pod set (restricts nodes to the flavor's labels), or an empty map
     * @return a placement on the plan's free capacity, or empty when none exists now
     */
    Optional<Placement> find(JobStatus job, Map<String, Integer> counts, Map<String, String> flavors);
}
