package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Every job the scheduler knows as one table ({@code GET /api/v1/jobs}): searched by id or job set, filtered by
 * state, ClusterQueue, LocalQueue, namespace and job set, sorted by a column, paged by offset. The counts by state
 * of the filtered jobs (before the state filter) come with each page, for the table's filter chips.
 */
final class JobTable {
    /** The columns a table can be sorted by; ties are broken by submission order, so pages never overlap. */
    enum Sort {
        SUBMITTED("submitted", Comparator.comparingLong(JobStatus::sequence)),
        ID("id", Comparator.comparing(JobStatus::id)),
        STATE("state", Comparator.comparing(JobStatus::state)),
        PRIORITY("priority", Comparator.comparingInt(j -> j.spec().priority())),
        STATE_SINCE("stateSince", Comparator.comparingLong(JobStatus::stateSinceMillis)),
        NAMESPACE("namespace", Comparator.comparing(j -> j.spec().namespace())),
        JOB_SET("jobSet", Comparator.comparing(j -> j.spec().jobSet())),
        OWNER("owner", Comparator.comparing(j -> String.valueOf(j.spec().owner()))),
        GPUS("gpus", Comparator.comparingLong(j -> j.spec().totalGpus()));

        final String key;
        final Comparator<JobStatus> order;

        Sort(String key, Comparator<JobStatus> order) {
            this.key = key;
            this.order = order;
        }

        static List<String> keys() {
            List<String> k = new ArrayList<>();
            for (Sort s : values()) {
                k.add(s.key);
            }
            k.add("clusterQueue");
            return k;
        }
    }

    /** What one request asks for; every field already checked. */
    record Query(String search, Set<JobState> states, String clusterQueue, String localQueue, String namespace, String jobSet,
                 String sort, boolean descending, int offset, int limit) {
    }

    private final StateView view;
    private final List<JobStatus> all;

    JobTable(StateView view, List<JobStatus> all) {
        this.view = view;
        this.all = all;
    }

    ObjectNode page(Query q) {
        String needle = q.search() == null ? null : q.search().toLowerCase(Locale.ROOT);
        List<JobStatus> match = new ArrayList<>();
        Map<JobState, Integer> byState = new EnumMap<>(JobState.class);
        for (JobStatus j : all) {
            if (needle != null && !j.id().toLowerCase(Locale.ROOT).contains(needle)
                    && !j.spec().jobSet().toLowerCase(Locale.ROOT).contains(needle)) {
                continue;
            }
            if (q.jobSet() != null && !q.jobSet().equals(j.spec().jobSet()) || q.namespace() != null && !q.namespace().equals(j.spec().namespace())
                    || q.localQueue() != null && !q.localQueue().equals(j.spec().localQueueKey())
                    || q.clusterQueue() != null && !q.clusterQueue().equals(view.clusterQueueOf(j))) {
                continue;
            }
            byState.merge(j.state(), 1, Integer::sum);
            if (q.states() == null || q.states().contains(j.state())) {
                match.add(j);
            }
        }
        Comparator<JobStatus> order = comparator(q.sort());
        if (q.descending()) {
            order = order.reversed();
        }
        match.sort(order.thenComparingLong(JobStatus::sequence));
        ObjectNode o = JobViews.page(match.size(), q.offset(), q.limit());
        o.put("sort", q.sort());
        o.put("order", q.descending() ? "desc" : "asc");
        ObjectNode counts = o.putObject("counts");
        byState.forEach((s, n) -> counts.put(s.name(), n));
        ArrayNode items = o.putArray("items");
        for (JobStatus j : JobViews.slice(match, q.offset(), q.limit())) {
            ObjectNode i = VisibilityJson.jobHead(j, view.clusterQueueOf(j));
            i.put("state", j.state().name());
            i.put("stateSinceMillis", j.stateSinceMillis());
            i.put("submitTimeMillis", j.spec().submitTimeMillis());
            i.put("gpus", j.spec().totalGpus());
            i.put("preemptions", j.preemptions());
            items.add(i);
        }
        return o;
    }

    private Comparator<JobStatus> comparator(String sort) {
        if (sort.equals("clusterQueue")) {
            return Comparator.comparing((JobStatus j) -> String.valueOf(view.clusterQueueOf(j)));
        }
        for (Sort s : Sort.values()) {
            if (s.key.equals(sort)) {
                return s.order;
            }
        }
        throw new IllegalArgumentException(sort); // the router checked it
    }
}
