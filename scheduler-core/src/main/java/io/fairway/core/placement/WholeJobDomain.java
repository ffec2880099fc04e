package io.fairway.core.placement;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.Node;
import java.util.List;
import java.util.Map;

/**
 * A job placed in one domain as a whole: when every pod set of a job of several pod sets requires the same topology
 * level, {@link Placer} places all of them in one domain of that level, trying the domains with room for the whole
 * job best fit first.
 */
final class WholeJobDomain {
    private WholeJobDomain() {
    }

    /**
     * The topology level every pod set of a multi-pod-set job requires, as an index into the cluster's levels, or -1.
     * Such a job — a launcher and its workers, a JobSet's driver and workers, all under one required rack — is placed
     * with all its pod sets in one domain of that level, not each pod set in a domain of its own.
     */
    static int sharedLevel(JobSpec job, CapacityPlan.ClusterIndex ci) {
        String level = sharedLevelName(job.podSets());
        return level == null ? -1 : ci.levels.indexOf(level);
    }

    /**
     * @param podSets a job's pod sets
     * @return the topology level every one of several pod sets requires (not the host, not an NVLink domain), or null
     */
    static String sharedLevelName(List<PodSet> podSets) {
        if (podSets.size() < 2) {
            return null;
        }
        String level = null;
        for (PodSet ps : podSets) {
            TopologyRequest t = ps.topology();
            if (!t.required() || t.sameNvlinkDomain() || t.level() == null || Node.HOSTNAME_LABEL.equals(t.level())
                    || level != null && !level.equals(t.level())) {
                return null;
            }
            level = t.level();
        }
        return level;
    }

    /** @return the GPUs of all the job's members */
    static long totalGpus(JobSpec job, Map<String, Integer> counts) {
        long total = 0;
        for (PodSet ps : job.podSets()) {
            total += (long) counts.getOrDefault(ps.name(), ps.count()) * ps.resources().gpus();
        }
        return total;
    }

    /** @return the most GPUs one domain of the level has, free or not */
    static long largest(CapacityPlan cap, CapacityPlan.ClusterIndex ci, int level) {
        long most = 0;
        for (int[] nodes : ci.domainNodes[level]) {
            long sum = 0;
            for (int n : nodes) {
                sum += cap.nodes[n].capacity().gpus();
            }
            most = Math.max(most, sum);
        }
        return most;
    }

    /** The level's domains with room for the whole job's GPUs, best fit first (least free GPUs), then in order. */
    static int[] byFit(CapacityPlan.ClusterIndex ci, int level, JobSpec job, Map<String, Integer> counts) {
        long need = totalGpus(job, counts);
        long[] free = ci.domainFree[level];
        return java.util.stream.IntStream.range(0, free.length).filter(d -> free[d] >= need).boxed()
                .sorted(java.util.Comparator.<Integer>comparingLong(d -> free[d]).thenComparingInt(d -> d))
                .mapToInt(Integer::intValue).toArray();
    }
}
