package io.fairway.core;

import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.event.SchedulerListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A job set's events as a stream a client can resume from where it stopped (Armada's {@code watch}): every
 * event gets a sequence number; {@link #read} returns the events of one job set after a given number.
 *
 * <pre>{@code
 * EventLog log = new EventLog();
 * scheduler.addListener(log);
 * long cursor = 0;
 * for (EventLog.Entry e : log.read("sweep-7", cursor, 100)) { show(e.event()); cursor = e.sequence(); }
 * }</pre>
 */
public final class EventLog implements SchedulerListener {
    /**
     * One logged event.
     *
     * @param sequence its number, increasing over the whole log
     * @param event the event
     */
    public record Entry(long sequence, SchedulerEvent event) {
    }

    private final Map<String, List<Entry>> byJobSet = new HashMap<>();
    private long next = 1;

    @Override
    public synchronized void onEvent(SchedulerEvent event) {
        if (event.jobSet() == null) {
            return;
        }
        byJobSet.computeIfAbsent(event.jobSet(), k -> new ArrayList<>()).add(new Entry(next++, event));
    }

    /**
     * @param jobSet a job set
     * @param afterSequence the last sequence number the client has seen (0 to start)
     * @param max the most entries to return
     * @return the job set's next events, in order
     */
    public synchronized List<Entry> read(String jobSet, long afterSequence, int max) {
        List<Entry> all = byJobSet.getOrDefault(jobSet, List.of());
        int lo = 0;
        int hi = all.size();
        while (lo < hi) { // first entry with sequence > afterSequence
            int mid = (lo + hi) >>> 1;
            if (all.get(mid).sequence() <= afterSequence) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return new ArrayList<>(all.subList(lo, Math.min(all.size(), lo + Math.max(0, max))));
    }
}
