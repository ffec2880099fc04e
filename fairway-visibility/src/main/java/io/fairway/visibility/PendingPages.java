package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.LocalQueue;
import io.fairway.core.snapshot.PendingJobs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Pages of pending jobs in the engine's order within a ClusterQueue (Kueue's: priority, then submission — the order
 * {@code Jobs.explain} counts {@code jobsAhead} in) without sorting or copying every pending job: the snapshot's
 * pending index keeps jobs in groups of one LocalQueue and one priority, each already in submission order, so a
 * page is a k-way merge of the queue's groups that stops after {@code offset + limit} jobs, and a position is a
 * binary search per group.
 */
final class PendingPages {
    private final StateView view;

    PendingPages(StateView view) {
        this.view = view;
    }

    private List<List<JobStatus>> groups(Predicate<String> localQueueKey) {
        List<List<JobStatus>> out = new ArrayList<>();
        for (PendingJobs.Group g : view.snapshot.pendingIndex().groups()) {
            List<JobStatus> jobs = g.jobs();
            if (localQueueKey.test(jobs.get(0).spec().localQueueKey())) {
                out.add(jobs);
            }
        }
        return out;
    }

    private List<List<JobStatus>> clusterQueueGroups(String cq) {
        return groups(k -> cq.equals(view.clusterQueueOfLocalQueue(k)));
    }

    private List<List<JobStatus>> localQueueGroups(String key) {
        return groups(key::equals);
    }

    /** @return the jobs at positions {@code offset .. offset + limit - 1} of the merged groups */
    static List<JobStatus> page(List<List<JobStatus>> groups, int offset, int limit) {
        PriorityQueue<int[]> heads = new PriorityQueue<>((a, b) -> JobOrder.PRIORITY.compare(groups.get(a[0]).get(a[1]), groups.get(b[0]).get(b[1])));
        for (int g = 0; g < groups.size(); g++) {
            heads.add(new int[] {g, 0});
        }
        List<JobStatus> page = new ArrayList<>(Math.min(limit, 1024));
        long end = (long) offset + limit;
        for (long i = 0; i < end && !heads.isEmpty(); i++) {
            int[] h = heads.poll();
            List<JobStatus> g = groups.get(h[0]);
            if (i >= offset) {
                page.add(g.get(h[1]));
            }
            if (++h[1] < g.size()) {
                heads.add(h);
            }
        }
        return page;
    }

    /** @return how many jobs of the groups come before {@code j} in the engine's order */
    static int ahead(List<List<JobStatus>> groups, JobStatus j) {
        int n = 0;
        for (List<JobStatus> g : groups) {
            int p = g.get(0).spec().priority();
            if (p > j.spec().priority()) {
                n += g.size();
            } else if (p == j.spec().priority()) {
                int i = Collections.binarySearch(g, j, JobOrder.SUBMISSION);
                n += i >= 0 ? i : -i - 1;
            }
        }
        return n;
    }

    private static int total(List<List<JobStatus>> groups) {
        int n = 0;
        for (List<JobStatus> g : groups) {
            n += g.size();
        }
        return n;
    }

    ObjectNode clusterQueuePage(String cq, int offset, int limit) {
        if (!view.snapshot.clusterQueues().containsKey(cq)) {
            throw ApiException.notFound("no ClusterQueue '" + VisibilityJson.clip(cq) + "'");
        }
        return pendingPage("clusterQueue", cq, clusterQueueGroups(cq), offset, limit, cq, "positionInLocalQueue",
                j -> ahead(localQueueGroups(j.spec().localQueueKey()), j));
    }

    ObjectNode localQueuePage(String namespace, String name, int offset, int limit) {
        String key = namespace + "/" + name;
        LocalQueue lq = view.snapshot.localQueues().get(key);
        if (lq == null) {
            throw ApiException.notFound("no LocalQueue '" + VisibilityJson.clip(key) + "'");
        }
        List<List<JobStatus>> groups = localQueueGroups(key);
        List<List<JobStatus>> cqGroups = clusterQueueGroups(lq.clusterQueue());
        return pendingPage("localQueue", key, groups, offset, limit, lq.clusterQueue(), "positionInClusterQueue", j -> ahead(cqGroups, j));
    }

    /**
     * @param field what the page is of ({@code clusterQueue} or {@code localQueue}), with {@code queue} its name
     * @param groups the queue's pending jobs in order
     * @param otherPosition the field of each job's position in the other queue, {@code otherAhead} the jobs ahead of it there
     * @return the page from {@code offset}: the queue, the total, the offset and limit, and the jobs with both positions
     */
    private ObjectNode pendingPage(String field, String queue, List<List<JobStatus>> groups, int offset, int limit, String clusterQueue,
                                   String otherPosition, ToIntFunction<JobStatus> otherAhead) {
        ObjectNode o = VisibilityJson.object();
        o.put(field, queue);
        o.put("total", total(groups));
        o.put("offset", offset);
        o.put("limit", limit);
        ArrayNode items = o.putArray("items");
        int pos = offset;
        for (JobStatus j : page(groups, offset, limit)) {
            ObjectNode item = item(j, clusterQueue, ++pos);
            item.put(otherPosition, otherAhead.applyAsInt(j) + 1);
            items.add(item);
        }
        return o;
    }

    /** @return how many pending jobs of its ClusterQueue are ahead of a pending job, or -1 without a ClusterQueue */
    int jobsAhead(JobStatus j) {
        String cq = view.clusterQueueOf(j);
        return cq == null ? -1 : ahead(clusterQueueGroups(cq), j);
    }

    private static ObjectNode item(JobStatus j, String cq, int position) {
        ObjectNode o = VisibilityJson.jobHead(j, cq);
        o.put("position", position);
        o.put("submitTimeMillis", j.spec().submitTimeMillis());
        o.put("waitingSinceMillis", j.stateSinceMillis());
        o.put("gpus", j.spec().totalGpus());
        o.set("reason", VisibilityJson.reason(j.pendingReason()));
        return o;
    }
}
