package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One job set's server-sent-event stream: a {@code snapshot} of its jobs, a {@code job} event per event of its
 * jobs, and {@code end} when every job is terminal (or the stream's time is up). Subscribes to the ring before
 * reading the set, so no event falls between; a terminal state is final, so an event that arrives late never
 * turns a finished job back into a live one.
 */
final class JobSetWatch implements HttpResponse.Streamer {
    private static final Set<String> TERMINAL = Set.of(JobState.SUCCEEDED.name(), JobState.FAILED.name(), JobState.CANCELLED.name());
    static final int QUEUE = 4096;

    private final String jobSet;
    private final JobViews jobs;
    private final EventRing ring;
    private final long maxMillis;
    private final long keepAliveMillis;

    JobSetWatch(String jobSet, JobViews jobs, EventRing ring, long maxMillis, long keepAliveMillis) {
        this.jobSet = jobSet;
        this.jobs = jobs;
        this.ring = ring;
        this.maxMillis = maxMillis;
        this.keepAliveMillis = keepAliveMillis;
    }

    @Override
    public void stream(OutputStream out) throws IOException {
        BlockingQueue<EventRing.Entry> q = new ArrayBlockingQueue<>(QUEUE);
        java.util.concurrent.atomic.AtomicBoolean overflow = new java.util.concurrent.atomic.AtomicBoolean();
        Consumer<EventRing.Entry> sub = e -> {
            if (jobSet.equals(e.jobSet()) && !q.offer(e)) {
                overflow.set(true); // the client reads too slowly: end the stream rather than buffer without bound
            }
        };
        ring.subscribe(sub);
        try {
            Map<String, String> states = new LinkedHashMap<>();
            java.util.List<JobStatus> now = jobs.jobSet(jobSet);
            for (JobStatus j : now) {
                states.put(j.id(), j.state().name());
            }
            send(out, "snapshot", VisibilityJson.write(JobViews.jobSetJson(jobSet, now)));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
            while (true) {
                if (!states.isEmpty() && states.values().stream().allMatch(TERMINAL::contains)) {
                    send(out, "end", end(states, false));
                    return;
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || overflow.get()) {
                    send(out, "end", end(states, true));
                    return;
                }
                EventRing.Entry e;
                try {
                    e = q.poll(Math.min(left, keepAliveMillis), TimeUnit.MILLISECONDS);
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (e == null) {
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    continue;
                }
                if (e.jobId() != null && !e.type().equals("AUDIT")) {
                    String was = states.get(e.jobId());
                    if (was == null || !TERMINAL.contains(was)) {
                        states.put(e.jobId(), TERMINAL.contains(e.type()) ? e.type() : "LIVE");
                    }
                }
                send(out, "job", VisibilityJson.write(e.json()));
            }
        } finally {
            ring.unsubscribe(sub);
        }
    }

    private String end(Map<String, String> states, boolean timedOut) {
        Map<String, Integer> counts = new TreeMap<>();
        states.values().stream().filter(TERMINAL::contains).forEach(s -> counts.merge(s, 1, Integer::sum));
        ObjectNode o = VisibilityJson.object();
        o.put("jobSet", jobSet);
        ObjectNode c = o.putObject("counts");
        counts.forEach(c::put);
        o.put("allSucceeded", !timedOut && states.values().stream().allMatch(JobState.SUCCEEDED.name()::equals));
        o.put("timedOut", timedOut);
        return VisibilityJson.write(o);
    }

    private static void send(OutputStream out, String event, String data) throws IOException {
        out.write(("event: " + event + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
