package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.job.JobState;
import io.fairway.core.Scheduler;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * Maps {@code /api/v1/...} requests to their answers (everything else to the UI's assets), checks every parameter
 * (400 naming it and its value), and takes one consistent snapshot per request.
 */
final class ApiRouter implements Function<HttpRequest, HttpResponse> {
    static final String PREFIX = "/api/v1";
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 1000;

    private final SchedulerSource source;
    private final String mode;
    private final EventRing events;
    private final Writes writes;
    private final SimulationControl simulation;
    private final long maxStreamMillis;
    private final long keepAliveMillis;
    private final History history;

    ApiRouter(SchedulerSource source, String mode, EventRing events, Writes writes, SimulationControl simulation, long maxStreamMillis,
              long keepAliveMillis, History history) {
        this.history = history;
        this.source = source;
        this.mode = mode;
        this.events = events;
        this.writes = writes;
        this.simulation = simulation;
        this.maxStreamMillis = maxStreamMillis;
        this.keepAliveMillis = keepAliveMillis;
    }

    @Override
    public HttpResponse apply(HttpRequest req) {
        String path = req.path();
        if (!path.equals(PREFIX) && !path.startsWith(PREFIX + "/")) {
            if (path.startsWith("/api/")) {
                throw ApiException.notFound("unknown API version or path: " + VisibilityJson.clip(path) + " (this server speaks " + PREFIX + ")");
            }
            if (!req.method().equals("GET")) {
                throw ApiException.status(405, "method not allowed", req.method() + " is not allowed on " + VisibilityJson.clip(path));
            }
            return Assets.serve(path);
        }
        List<String> seg = new ArrayList<>();
        for (String s : path.substring(PREFIX.length()).split("/")) {
            if (!s.isEmpty()) {
                seg.add(ApiHandler.decode("path", s, false));
            }
        }
        boolean post = req.method().equals("POST");
        if (!post && !req.method().equals("GET")) {
            throw ApiException.status(405, "method not allowed", "only GET and POST are answered, was " + VisibilityJson.clip(req.method()));
        }
        boolean write = isWrite(seg);
        if (write != post) {
            if (!write && !matchesRead(seg)) {
                throw ApiException.notFound("no such path: " + VisibilityJson.clip(path));
            }
            throw ApiException.status(405, "method not allowed", req.method() + " is not allowed on " + VisibilityJson.clip(path)
                    + (write ? " (use POST)" : " (use GET)"));
        }
        if (!matchesRead(seg) && !write) {
            throw ApiException.notFound("no such path: " + VisibilityJson.clip(path));
        }
        Scheduler scheduler = source.current();
        return write ? VisibilityJson.ok(write(scheduler, req, seg)) : read(scheduler, req, seg);
    }

    private static boolean isWrite(List<String> s) {
        return s.size() == 3 && s.get(0).equals("jobs") && (s.get(2).equals("cancel") || s.get(2).equals("priority"))
                || s.size() == 3 && s.get(0).equals("clusterqueues") && (s.get(2).equals("stop") || s.get(2).equals("resume"))
                || s.size() == 2 && s.get(0).equals("simulation");
    }

    private static boolean matchesRead(List<String> s) {
        if (s.isEmpty()) {
            return true;
        }
        return switch (s.get(0)) {
            case "cohorts", "localqueues", "running", "events", "simulation", "overview", "fairness", "history" -> s.size() == 1
                    || s.get(0).equals("localqueues") && s.size() == 4 && s.get(3).equals("pending")
                    || s.get(0).equals("events") && s.size() == 2 && s.get(1).equals("watch");
            case "clusterqueues" -> s.size() <= 2 || s.size() == 3 && s.get(2).equals("pending");
            case "jobs", "nodes", "flavors" -> s.size() <= 2;
            case "jobsets" -> s.size() == 2 || s.size() == 3 && s.get(2).equals("watch");
            default -> false;
        };
    }

    private HttpResponse read(Scheduler scheduler, HttpRequest req, List<String> s) {
        Params p = new Params(req.query());
        JobViews jobViews = new JobViews(scheduler, events);
        if (s.isEmpty()) {
            p.only();
            return VisibilityJson.ok(info(scheduler));
        }
        String what = s.get(0);
        if (what.equals("events") && s.size() == 2) {
            p.only();
            return HttpResponse.stream("text/event-stream; charset=utf-8", new EventsWatch(events, source::attach, simulation, maxStreamMillis,
                    keepAliveMillis));
        }
        if (what.equals("events")) {
            p.only("after", "before", "limit", "jobSet", "job", "type");
            if (p.q.containsKey("after") && p.q.containsKey("before")) {
                throw ApiException.badParameter("before", VisibilityJson.clip(p.q.get("before")), "give after (page forward) or before (page back), not both");
            }
            return VisibilityJson.ok(events.page(p.longValue("after", -1, 0, Long.MAX_VALUE), p.longValue("before", -1, 1, Long.MAX_VALUE),
                    p.intValue("limit", 100, 1, MAX_LIMIT), p.string("jobSet"), p.string("job"), p.eventTypes()));
        }
        if (what.equals("history")) {
            p.only("clusterQueue");
            history.record(scheduler.snapshot());
            return VisibilityJson.ok(history.json(p.string("clusterQueue")));
        }
        if (what.equals("simulation")) {
            p.only();
            return VisibilityJson.ok(simulation(requireSimulation().state()));
        }
        if (what.equals("jobsets") && s.size() == 3) {
            p.only();
            jobViews.jobSetAnswer(s.get(1)); // 404 for an unknown set, before the stream starts
            return HttpResponse.stream("text/event-stream; charset=utf-8", new JobSetWatch(s.get(1), jobViews, events, maxStreamMillis, keepAliveMillis));
        }
        if (what.equals("jobsets")) {
            p.only();
            return VisibilityJson.ok(jobViews.jobSetAnswer(s.get(1)));
        }
        if (what.equals("jobs") && s.size() == 2) {
            p.only();
            return VisibilityJson.ok(jobViews.job(s.get(1)));
        }
        return VisibilityJson.ok(stateAnswer(scheduler, p, s, jobViews));
    }

    /** The answers read from one snapshot of the engine's state: queues, cohorts, running and pending jobs, nodes, flavors. */
    private static Object stateAnswer(Scheduler scheduler, Params p, List<String> s, JobViews jobViews) {
        String what = s.get(0);
        StateView view = new StateView(scheduler.snapshot());
        return switch (what) {
            case "cohorts" -> {
                p.only();
                yield new QueueViews(view).cohorts();
            }
            case "localqueues" -> {
                if (s.size() == 1) {
                    p.only();
                    yield new QueueViews(view).localQueues();
                }
                p.only("offset", "limit");
                yield new PendingPages(view).localQueuePage(s.get(1), s.get(2), p.offset(), p.limit());
            }
            case "clusterqueues" -> {
                if (s.size() == 3) {
                    p.only("offset", "limit");
                    yield new PendingPages(view).clusterQueuePage(s.get(1), p.offset(), p.limit());
                }
                p.only();
                yield s.size() == 1 ? new QueueViews(view).clusterQueues() : new QueueViews(view).clusterQueueDetail(s.get(1));
            }
            case "running" -> {
                p.only("clusterQueue", "node", "offset", "limit");
                yield jobViews.running(view, p.string("clusterQueue"), p.string("node"), p.offset(), p.limit());
            }
            case "jobs" -> {
                p.only("q", "state", "clusterQueue", "localQueue", "namespace", "jobSet", "sort", "order", "offset", "limit");
                String sort = p.oneOf("sort", "submitted", JobTable.Sort.keys());
                boolean desc = p.oneOf("order", "asc", List.of("asc", "desc")).equals("desc");
                yield new JobTable(view, scheduler.jobs().all()).page(new JobTable.Query(p.string("q"), p.states(), p.string("clusterQueue"),
                        p.string("localQueue"), p.string("namespace"), p.string("jobSet"), sort, desc, p.offset(), p.limit()));
            }
            case "overview" -> {
                p.only();
                yield new ClusterViews(view).overview(scheduler.jobs().all());
            }
            case "fairness" -> {
                p.only();
                yield new FairnessViews(view).fairness(scheduler.policy());
            }
            case "flavors" -> {
                p.only();
                yield s.size() == 1 ? new ClusterViews(view).flavors() : new ClusterViews(view).flavor(s.get(1), new QueueViews(view));
            }
            default -> {
                if (s.size() == 2) {
                    p.only();
                    yield new NodeViews(view).node(s.get(1));
                }
                p.only("offset", "limit");
                yield new NodeViews(view).nodes(p.offset(), p.limit());
            }
        };
    }

    private ObjectNode info(Scheduler scheduler) {
        Snapshot snap = scheduler.snapshot();
        ObjectNode o = VisibilityJson.object();
        o.put("version", "v1");
        o.put("mode", mode);
        o.put("round", snap.round());
        o.put("nowMillis", snap.nowMillis());
        o.put("writes", writes.enabled());
        o.put("policy", scheduler.policy().name());
        o.put("pending", snap.pendingIndex().size());
        o.put("holding", snap.holding().size());
        o.put("nodes", snap.nodes().size());
        return o;
    }

    private SimulationControl requireSimulation() {
        if (simulation == null) {
            throw ApiException.notFound("this server does not serve a simulation (mode " + mode + ")");
        }
        return simulation;
    }

    static ObjectNode simulation(SimulationControl.State st) {
        ObjectNode o = VisibilityJson.object();
        o.put("timeMillis", st.timeMillis());
        o.put("endMillis", st.endMillis());
        o.put("paused", st.paused());
        if (Double.isInfinite(st.speed())) {
            o.putNull("speed"); // as fast as possible
        } else {
            o.put("speed", st.speed());
        }
        o.put("finished", st.finished());
        o.put("controllable", st.controllable());
        return o;
    }

    private ObjectNode write(Scheduler scheduler, HttpRequest req, List<String> s) {
        Params p = new Params(req.query());
        if (s.get(0).equals("simulation")) {
            SimulationControl sim = requireSimulation();
            String verb = s.get(1);
            if (!Set.of("pause", "resume", "speed", "step").contains(verb)) {
                throw ApiException.notFound("no such path: " + VisibilityJson.clip(req.path()));
            }
            if (!sim.state().controllable()) {
                throw ApiException.status(409, "not a replay", "the run is shown at its final state; serve it with --pace to control time");
            }
            switch (verb) {
                case "pause" -> {
                    p.only();
                    sim.pause();
                }
                case "resume" -> {
                    p.only();
                    sim.resume();
                }
                case "speed" -> {
                    p.only("value");
                    sim.speed(p.requiredDouble("value", 1e-6, 1_000_000));
                }
                default -> {
                    p.only("seconds");
                    sim.step(Math.round(p.requiredDouble("seconds", 0.001, 86_400) * 1000));
                }
            }
            return simulation(sim.state());
        }
        if (s.get(0).equals("jobs")) {
            if (s.get(2).equals("cancel")) {
                p.only();
                return writes.cancel(scheduler, req, s.get(1));
            }
            p.only("value");
            return writes.priority(scheduler, req, s.get(1), (int) p.requiredLong("value", Integer.MIN_VALUE, Integer.MAX_VALUE));
        }
        p.only();
        return writes.stopQueue(scheduler, req, s.get(1), s.get(2).equals("stop"));
    }

    /** Query parameters, each checked: 400 naming the parameter and its value. */
    private static final class Params {
        final java.util.Map<String, String> q;

        Params(java.util.Map<String, String> q) {
            this.q = q;
        }

        void only(String... allowed) {
            Set<String> ok = Set.of(allowed);
            for (var e : q.entrySet()) {
                if (!ok.contains(e.getKey())) {
                    throw ApiException.badParameter(e.getKey(), VisibilityJson.clip(e.getValue()), "unknown parameter '" + VisibilityJson.clip(e.getKey())
                            + "'" + (ok.isEmpty() ? "; this path takes none" : "; this path takes " + new java.util.TreeSet<>(ok)));
                }
            }
        }

        String string(String name) {
            String v = q.get(name);
            if (v != null && v.isEmpty()) {
                throw ApiException.badParameter(name, v, name + " must not be empty");
            }
            return v;
        }

        long longValue(String name, long def, long min, long max) {
            String v = q.get(name);
            if (v == null) {
                return def;
            }
            try {
                long n = Long.parseLong(v.trim());
                if (n >= min && n <= max) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // answered below
            }
            throw ApiException.badParameter(name, VisibilityJson.clip(v), name + " must be an integer in " + min + ".." + max + ", was '" + VisibilityJson.clip(v) + "'");
        }

        int intValue(String name, int def, int min, int max) {
            return (int) longValue(name, def, min, max);
        }

        long requiredLong(String name, long min, long max) {
            if (!q.containsKey(name)) {
                throw ApiException.badParameter(name, null, name + " is required");
            }
            return longValue(name, 0, min, max);
        }

        double requiredDouble(String name, double min, double max) {
            String v = q.get(name);
            if (v == null) {
                throw ApiException.badParameter(name, null, name + " is required");
            }
            try {
                double d = Double.parseDouble(v.trim());
                if (d >= min && d <= max) {
                    return d;
                }
            } catch (NumberFormatException e) {
                // answered below
            }
            throw ApiException.badParameter(name, VisibilityJson.clip(v), name + " must be a number in " + min + ".." + max + ", was '" + VisibilityJson.clip(v) + "'");
        }

        int offset() {
            return intValue("offset", 0, 0, Integer.MAX_VALUE);
        }

        int limit() {
            return intValue("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        }

        String oneOf(String name, String def, List<String> allowed) {
            String v = q.get(name);
            if (v == null) {
                return def;
            }
            if (!allowed.contains(v.trim())) {
                throw ApiException.badParameter(name, VisibilityJson.clip(v), name + " must be one of " + allowed + ", was '" + VisibilityJson.clip(v) + "'");
            }
            return v.trim();
        }

        /** @return the states of a comma-separated {@code state}, or null when not given */
        Set<JobState> states() {
            String v = string("state");
            if (v == null) {
                return null;
            }
            Set<JobState> out = java.util.EnumSet.noneOf(JobState.class);
            for (String part : v.split(",", -1)) {
                try {
                    out.add(JobState.valueOf(part.trim().toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw ApiException.badParameter("state", VisibilityJson.clip(v), "state must be one or more of " + java.util.Arrays.toString(JobState.values())
                            + ", separated by commas, was '" + VisibilityJson.clip(v) + "'");
                }
            }
            return out;
        }

        /** @return the event types of a comma-separated {@code type} (EventType names or AUDIT), or null when not given */
        Set<String> eventTypes() {
            String v = string("type");
            if (v == null) {
                return null;
            }
            Set<String> out = new java.util.HashSet<>();
            for (String part : v.split(",", -1)) {
                String t = part.trim().toUpperCase(Locale.ROOT);
                boolean known = t.equals("AUDIT");
                for (io.fairway.api.event.EventType e : io.fairway.api.event.EventType.values()) {
                    known |= e.name().equals(t);
                }
                if (!known) {
                    throw ApiException.badParameter("type", VisibilityJson.clip(v), "type must be one or more of "
                            + java.util.Arrays.toString(io.fairway.api.event.EventType.values()) + " or AUDIT, separated by commas, was '"
                            + VisibilityJson.clip(v) + "'");
                }
                out.add(t);
            }
            return out;
        }
    }
}
