package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.core.PendingExplanation;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Jobs: the paged list, one job in full, the running jobs with their placement, and job sets. */
final class JobViews {
    private final Scheduler scheduler;
    private final EventRing events;

    JobViews(Scheduler scheduler, EventRing events) {
        this.scheduler = scheduler;
        this.events = events;
    }

    static ObjectNode page(int total, int offset, int limit) {
        ObjectNode o = VisibilityJson.object();
        o.put("total", total);
        o.put("offset", offset);
        o.put("limit", limit);
        return o;
    }

    static <T> List<T> slice(List<T> all, int offset, int limit) {
        return offset >= all.size() ? List.of() : all.subList(offset, (int) Math.min(all.size(), (long) offset + limit));
    }

    ObjectNode running(StateView view, String clusterQueue, String node, int offset, int limit) {
        List<JobStatus> match = new ArrayList<>();
        for (JobStatus j : view.snapshot.holding()) {
            if (j.admission() == null || clusterQueue != null && !clusterQueue.equals(j.admission().clusterQueue())) {
                continue;
            }
            if (node != null && (j.admission().placement() == null || !j.admission().placement().nodes().contains(node))) {
                continue;
            }
            match.add(j);
        }
        match.sort(Comparator.comparingLong((JobStatus j) -> j.admission().admittedAtMillis())
                .thenComparingLong(j -> j.admission().admissionOrder()).thenComparingLong(JobStatus::sequence));
        ObjectNode o = page(match.size(), offset, limit);
        ArrayNode items = o.putArray("items");
        for (JobStatus j : slice(match, offset, limit)) {
            ObjectNode i = VisibilityJson.jobHead(j, j.admission().clusterQueue());
            i.put("state", j.state().name());
            i.put("stateSinceMillis", j.stateSinceMillis());
            i.put("progress", j.progress());
            i.set("placement", VisibilityJson.placement(j.admission()));
            items.add(i);
        }
        return o;
    }

    /** One job in full, from the engine's own {@code explain}: status, ClusterQueue, jobs ahead and reason in one read. */
    ObjectNode job(String id) {
        PendingExplanation e = scheduler.jobs().explain(id).orElseThrow(() -> ApiException.notFound("no job '" + VisibilityJson.clip(id) + "'"));
        JobStatus j = e.job();
        ObjectNode o = VisibilityJson.jobHead(j, e.clusterQueue());
        o.put("state", j.state().name());
        o.put("stateSinceMillis", j.stateSinceMillis());
        o.put("submitTimeMillis", j.spec().submitTimeMillis());
        o.put("preemptions", j.preemptions());
        o.put("progress", j.progress());
        o.put("runningMillis", j.runningMillis());
        o.put("attainedGpuMillis", j.attainedGpuMillis());
        boolean pending = j.state() == JobState.PENDING;
        if (pending && e.clusterQueue() != null) {
            o.put("position", e.jobsAhead() + 1);
            o.put("jobsAhead", e.jobsAhead());
        } else {
            o.putNull("position");
            o.putNull("jobsAhead");
        }
        o.set("reason", VisibilityJson.reason(e.reason()));
        o.set("placement", VisibilityJson.placement(j.admission()));
        ArrayNode ps = o.putArray("podSets");
        for (PodSet p : j.spec().podSets()) {
            ObjectNode po = ps.addObject();
            po.put("name", p.name());
            po.put("count", p.count());
            po.put("minCount", p.minCount());
            po.set("resources", VisibilityJson.resources(p.resources()));
            ObjectNode sel = po.putObject("nodeSelector");
            new TreeMap<>(p.nodeSelector() == null ? Map.<String, String>of() : p.nodeSelector()).forEach(sel::put);
        }
        ArrayNode h = o.putArray("history");
        for (EventRing.Entry en : events.history(id)) {
            ObjectNode ho = h.addObject();
            ho.put("timeMillis", en.timeMillis());
            ho.put("type", en.type());
            ho.put("reason", en.reason());
            if (en.actor() != null) {
                ho.put("actor", en.actor());
            }
        }
        return o;
    }

    /** @return the jobs of a job set in submission order (empty when none) */
    List<JobStatus> jobSet(String jobSet) {
        List<JobStatus> out = new ArrayList<>();
        for (JobStatus j : scheduler.jobs().all()) {
            if (jobSet.equals(j.spec().jobSet())) {
                out.add(j);
            }
        }
        return out;
    }

    static ObjectNode jobSetJson(String jobSet, List<JobStatus> jobs) {
        ObjectNode o = VisibilityJson.object();
        o.put("jobSet", jobSet);
        o.put("done", jobs.stream().allMatch(j -> j.state().isTerminal()));
        Map<JobState, Integer> counts = new EnumMap<>(JobState.class);
        jobs.forEach(j -> counts.merge(j.state(), 1, Integer::sum));
        ObjectNode c = o.putObject("counts");
        counts.forEach((s, n) -> c.put(s.name(), n));
        ArrayNode items = o.putArray("jobs");
        jobs.forEach(j -> items.addObject().put("id", j.id()).put("state", j.state().name()));
        return o;
    }

    ObjectNode jobSetAnswer(String jobSet) {
        List<JobStatus> jobs = jobSet(jobSet);
        if (jobs.isEmpty()) {
            throw ApiException.notFound("no job set '" + VisibilityJson.clip(jobSet) + "'");
        }
        return jobSetJson(jobSet, jobs);
    }

    /** @return a member's placement fields, for node answers */
    static ObjectNode member(MemberPlacement m) {
        ObjectNode o = VisibilityJson.object();
        o.put("podSet", m.podSet());
        o.put("index", m.index());
        ArrayNode g = o.putArray("gpus");
        m.gpus().forEach(g::add);
        return o;
    }
}
