package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.event.SchedulerListener;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The recent events a scheduler reported (a bounded ring, each with an increasing sequence number), each job's
 * history (bounded per job and in the number of jobs kept, least recently active dropped first), and the
 * subscribers of job-set streams. Registered as a {@link SchedulerListener}; audit entries of API writes are
 * added here too.
 */
final class EventRing implements SchedulerListener {
    /** One event. {@code type} is an {@code EventType} name or {@code AUDIT}; {@code actor} is set for audits. */
    record Entry(long seq, long timeMillis, String type, String jobId, String jobSet, String reason, String actor) {
        ObjectNode json() {
            ObjectNode o = VisibilityJson.object();
            o.put("seq", seq);
            o.put("timeMillis", timeMillis);
            o.put("type", type);
            o.put("jobId", jobId);
            o.put("jobSet", jobSet);
            o.put("reason", reason);
            if (actor != null) {
                o.put("actor", actor);
            }
            return o;
        }
    }

    static final int HISTORY_PER_JOB = 64;
    static final int HISTORY_JOBS = 100_000;

    private final Entry[] ring;
    private long next = 1; // the seq of the next entry
    private final Map<String, ArrayDeque<Entry>> histories = new LinkedHashMap<>(1024, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ArrayDeque<Entry>> eldest) {
            return size() > HISTORY_JOBS;
        }
    };
    private final List<Consumer<Entry>> subscribers = new CopyOnWriteArrayList<>();

    EventRing(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("the event ring needs room for at least 1 event, was " + capacity);
        }
        this.ring = new Entry[capacity];
    }

    @Override
    public void onEvent(SchedulerEvent e) {
        add(e.timeMillis(), e.type().name(), e.jobId(), e.jobSet(), e.reason() == null ? "" : e.reason(), null);
    }

    /** Adds an entry (an event, or an audit with its actor) and hands it to the subscribers. */
    Entry add(long timeMillis, String type, String jobId, String jobSet, String reason, String actor) {
        Entry en;
        synchronized (this) {
            en = new Entry(next, timeMillis, type, jobId, jobSet, reason, actor);
            ring[(int) (next % ring.length)] = en;
            next++;
            if (jobId != null) {
                ArrayDeque<Entry> h = histories.computeIfAbsent(jobId, k -> new ArrayDeque<>());
                if (h.size() == HISTORY_PER_JOB) {
                    h.removeFirst();
                }
                h.addLast(en);
            }
        }
        for (Consumer<Entry> s : subscribers) {
            s.accept(en);
        }
        return en;
    }

    void subscribe(Consumer<Entry> s) {
        subscribers.add(s);
    }

    void unsubscribe(Consumer<Entry> s) {
        subscribers.remove(s);
    }

    /** @return the job's history, oldest first (empty when none was seen) */
    synchronized List<Entry> history(String jobId) {
        ArrayDeque<Entry> h = histories.get(jobId);
        return h == null ? List.of() : new ArrayList<>(h);
    }

    /** @return the seq of the newest entry (0 when none) */
    synchronized long newest() {
        return next - 1;
    }

    /**
     * @param after answer entries with a larger seq (-1: the newest {@code limit})
     * @param limit the most entries answered
     * @param jobSet only this job set's entries, or null
     * @param job only this job's entries, or null
     * @return the Events answer
     */
    ObjectNode page(long after, int limit, String jobSet, String job) {
        return page(after, -1, limit, jobSet, job, null);
    }

    /**
     * @param after answer entries with a larger seq, oldest first (-1: not set)
     * @param before with {@code after} not set: the newest {@code limit} entries with a smaller seq (-1: not set,
     *     the newest of all)
     * @param limit the most entries answered
     * @param jobSet only this job set's entries, or null
     * @param job only this job's entries, or null
     * @param types only entries of these types, or null
     * @return the Events answer; {@code more} tells whether older matching entries are left before the first item
     */
    synchronized ObjectNode page(long after, long before, int limit, String jobSet, String job, java.util.Set<String> types) {
        long oldest = Math.max(1, next - ring.length);
        long newest = next - 1;
        List<Entry> out = new ArrayList<>();
        boolean more = false;
        if (after < 0) {
            long from = before < 0 ? newest : Math.min(newest, before - 1);
            long s = from;
            for (; s >= oldest && out.size() < limit; s--) {
                Entry e = ring[(int) (s % ring.length)];
                if (matches(e, jobSet, job, types)) {
                    out.add(e);
                }
            }
            java.util.Collections.reverse(out);
            for (; s >= oldest && !more; s--) {
                more = matches(ring[(int) (s % ring.length)], jobSet, job, types);
            }
        } else {
            for (long s = after >= newest ? newest + 1 : Math.max(oldest, after + 1); s <= newest && out.size() < limit; s++) {
                Entry e = ring[(int) (s % ring.length)];
                if (matches(e, jobSet, job, types)) {
                    out.add(e);
                }
            }
        }
        ObjectNode o = VisibilityJson.object();
        o.put("oldest", newest == 0 ? 0 : oldest);
        o.put("newest", newest);
        if (after < 0) {
            o.put("more", more);
        }
        ArrayNode items = o.putArray("items");
        out.forEach(e -> items.add(e.json()));
        return o;
    }

    private static boolean matches(Entry e, String jobSet, String job, java.util.Set<String> types) {
        return (jobSet == null || jobSet.equals(e.jobSet())) && (job == null || job.equals(e.jobId()))
                && (types == null || types.contains(e.type()));
    }
}
