package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.core.Scheduler;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The whole scheduler's server-sent-event stream ({@code GET /api/v1/events/watch}), which the web UI follows instead
 * of polling: first {@code event: hello} with the newest sequence number, then an {@code event: event} per entry of the
 * events ring (data: an {@code Events} item), and an {@code event: state} whenever the scheduler's round or clock (or
 * a served simulation's time) moved without an event; a comment {@code : keep-alive} after a quiet interval. It ends
 * with {@code event: end} after the maximum stream duration, or when the client reads too slowly to keep up.
 */
final class EventsWatch implements HttpResponse.Streamer {
    private final EventRing ring;
    private final Supplier<Scheduler> scheduler;
    private final SimulationControl simulation;
    private final long maxMillis;
    private final long keepAliveMillis;

    EventsWatch(EventRing ring, Supplier<Scheduler> scheduler, SimulationControl simulation, long maxMillis, long keepAliveMillis) {
        this.ring = ring;
        this.scheduler = scheduler;
        this.simulation = simulation;
        this.maxMillis = maxMillis;
        this.keepAliveMillis = keepAliveMillis;
    }

    @Override
    public void stream(OutputStream out) throws IOException {
        BlockingQueue<EventRing.Entry> q = new ArrayBlockingQueue<>(JobSetWatch.QUEUE);
        AtomicBoolean overflow = new AtomicBoolean();
        Consumer<EventRing.Entry> sub = e -> {
            if (!q.offer(e)) {
                overflow.set(true);
            }
        };
        ring.subscribe(sub);
        try {
            ObjectNode hello = VisibilityJson.object();
            hello.put("newest", ring.newest());
            send(out, "hello", VisibilityJson.write(hello));
            String sent = state();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
            long quietSince = System.nanoTime();
            while (true) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || overflow.get()) {
                    send(out, "end", "{\"timedOut\": " + (left <= 0) + ", \"overflow\": " + overflow.get() + "}");
                    return;
                }
                EventRing.Entry e;
                try {
                    // Short waits: the clock of a replay moves without events, and the page shows it.
                    e = q.poll(Math.min(left, Math.min(250, keepAliveMillis)), TimeUnit.MILLISECONDS);
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (e != null) {
                    send(out, "event", VisibilityJson.write(e.json()));
                    quietSince = System.nanoTime();
                    continue;
                }
                String now = state();
                if (now != null && !now.equals(sent)) {
                    send(out, "state", now);
                    sent = now;
                    quietSince = System.nanoTime();
                } else if (System.nanoTime() - quietSince >= TimeUnit.MILLISECONDS.toNanos(keepAliveMillis)) {
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    quietSince = System.nanoTime();
                }
            }
        } finally {
            ring.unsubscribe(sub);
        }
    }

    /** @return the round, the clock and the simulation's time as JSON, or null without a scheduler now */
    private String state() {
        Scheduler s = scheduler.get();
        if (s == null) {
            return null;
        }
        ObjectNode o = VisibilityJson.object();
        o.put("round", s.round());
        if (simulation != null) {
            SimulationControl.State st = simulation.state();
            o.put("timeMillis", st.timeMillis());
            o.put("paused", st.paused());
            o.put("finished", st.finished());
        }
        return VisibilityJson.write(o);
    }

    private static void send(OutputStream out, String event, String data) throws IOException {
        out.write(("event: " + event + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
