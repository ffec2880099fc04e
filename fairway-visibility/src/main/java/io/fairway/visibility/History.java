package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.event.EventType;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A bounded in-memory history of the scheduler ({@code GET /api/v1/history}): points of the scheduler's clock, each
 * with every ClusterQueue's GPUs in use, pending and holding jobs, and the admissions and preemptions since the point
 * before. At most {@code capacity} points over the whole time since the server started: points are taken at least
 * {@code spacing} apart on the scheduler's clock, and when the history is full every other point is dropped (its
 * admissions and preemptions added to the next one) and the spacing doubles. So it always covers everything since the
 * start, in ever coarser steps: with the defaults (720 points, 10 s) the first 2 hours at 10 s, the first 4 at 20 s,
 * and so on.
 */
final class History {
    /** One point. */
    private record Point(long timeMillis, int admitted, int preempted, Map<String, long[]> queues) {
    }

    private final int capacity;
    private final long initialSpacing;
    private long spacing;
    private final List<Point> points = new ArrayList<>();
    private long last = Long.MIN_VALUE;
    private int admitted;
    private int preempted;

    History(int capacity, long spacingMillis) {
        if (capacity < 4) {
            throw new IllegalArgumentException("history capacity must be at least 4 points, was " + capacity);
        }
        if (spacingMillis < 1) {
            throw new IllegalArgumentException("history spacing must be at least 1 ms, was " + spacingMillis);
        }
        this.capacity = capacity;
        this.initialSpacing = spacingMillis;
        this.spacing = spacingMillis;
    }

    /** Counts an event (an entry of the events ring). */
    synchronized void count(EventRing.Entry e) {
        if (e.type().equals(EventType.ADMITTED.name())) {
            admitted++;
        } else if (e.type().equals(EventType.PREEMPTED.name())) {
            preempted++;
        }
    }

    /** @return true when a point taken at this time of the scheduler's clock would be recorded */
    synchronized boolean due(long clockMillis) {
        return points.isEmpty() || clockMillis >= last + spacing;
    }

    /** Records a point from this snapshot when one is due. */
    void record(Snapshot s) {
        if (!due(s.nowMillis())) {
            return;
        }
        QueueViews qv = new QueueViews(new StateView(s));
        Map<String, long[]> queues = new TreeMap<>();
        for (ClusterQueue q : s.clusterQueues().values()) {
            long gpus = 0;
            for (QueueViews.Row r : qv.rows(q.name(), q.resourceGroups())) {
                if (r.resource().equals(Resources.GPU)) {
                    gpus += r.used();
                }
            }
            int[] c = qv.counts(q.name());
            queues.put(q.name(), new long[] {gpus, c[0], c[1]});
        }
        synchronized (this) {
            if (!points.isEmpty() && s.nowMillis() < last + spacing) {
                return; // another thread recorded meanwhile
            }
            points.add(new Point(s.nowMillis(), admitted, preempted, queues));
            admitted = 0;
            preempted = 0;
            last = s.nowMillis();
            if (points.size() >= capacity) {
                thin();
            }
        }
    }

    /** Keeps every other point (the later of each pair, with the pair's counts) and doubles the spacing. */
    private void thin() {
        List<Point> kept = new ArrayList<>();
        for (int i = 0; i + 1 < points.size(); i += 2) {
            Point a = points.get(i);
            Point b = points.get(i + 1);
            kept.add(new Point(b.timeMillis(), a.admitted() + b.admitted(), a.preempted() + b.preempted(), b.queues()));
        }
        if (points.size() % 2 == 1) {
            kept.add(points.get(points.size() - 1));
        }
        points.clear();
        points.addAll(kept);
        spacing *= 2;
    }

    /**
     * @param clusterQueue only this queue's series, or null for all
     * @return the history as series (one array per figure, aligned with {@code timeMillis})
     */
    synchronized ObjectNode json(String clusterQueue) {
        ObjectNode o = VisibilityJson.object();
        o.put("capacity", capacity);
        o.put("initialSpacingMillis", initialSpacing);
        o.put("spacingMillis", spacing);
        ArrayNode times = o.putArray("timeMillis");
        ArrayNode adm = o.putArray("admitted");
        ArrayNode pre = o.putArray("preempted");
        TreeSet<String> names = new TreeSet<>();
        for (Point p : points) {
            times.add(p.timeMillis());
            adm.add(p.admitted());
            pre.add(p.preempted());
            names.addAll(p.queues().keySet());
        }
        if (clusterQueue != null) {
            if (!names.contains(clusterQueue)) {
                names.clear();
            } else {
                names.retainAll(java.util.Set.of(clusterQueue));
            }
        }
        ArrayNode qs = o.putArray("clusterQueues");
        for (String n : names) {
            ObjectNode q = qs.addObject();
            q.put("name", n);
            ArrayNode gpus = q.putArray("gpusUsed");
            ArrayNode pending = q.putArray("pending");
            ArrayNode holding = q.putArray("holding");
            for (Point p : points) {
                long[] v = p.queues().get(n);
                gpus.add(v == null ? 0 : v[0]);
                pending.add(v == null ? 0 : v[1]);
                holding.add(v == null ? 0 : v[2]);
            }
        }
        return o;
    }
}
