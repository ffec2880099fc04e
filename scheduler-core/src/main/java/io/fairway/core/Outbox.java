package io.fairway.core;

import io.fairway.api.decision.Decision;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.event.SchedulerListener;
import io.fairway.api.spi.Actuator;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivery in the order of the state changes: the listeners, and the decisions for the actuator.
 *
 * <p>Every operation appends its events and its decisions to the outbox while it still holds the state lock, so the
 * outbox is in the order the state changed; after unlocking it delivers everything queued under a second lock, one
 * thread at a time. A caller returns only after its own events and decisions were delivered (by itself or by a thread
 * that was delivering already).
 */
final class Outbox {
    private static final Logger LOG = LoggerFactory.getLogger(Outbox.class);

    /** Drops what is added: the event list of an operation while nobody listens. */
    static final List<SchedulerEvent> UNHEARD = new AbstractList<>() {
        @Override
        public boolean add(SchedulerEvent e) {
            return true;
        }

        @Override
        public SchedulerEvent get(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public int size() {
            return 0;
        }
    };

    /** Decisions for the actuator, and what the actuator threw on them (rethrown to the caller that made them). */
    static final class Outgoing {
        final List<Decision> decisions;
        final Thread owner = Thread.currentThread();
        volatile RuntimeException failure;

        Outgoing(List<Decision> decisions) {
            this.decisions = decisions;
        }
    }

    private final ReentrantLock stateLock;
    private final Actuator actuator;
    final List<SchedulerListener> listeners = new CopyOnWriteArrayList<>();
    final Map<String, List<SchedulerListener>> jobSetListeners = new ConcurrentHashMap<>();
    /** An operation's events, delivered in their order. */
    private record Events(List<SchedulerEvent> list) {
    }

    /** Events (an operation's {@link Events}) and actuator batches ({@link Outgoing}) not yet delivered, in state order. */
    private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
    private final ReentrantLock deliveryLock = new ReentrantLock();

    Outbox(ReentrantLock stateLock, Actuator actuator) {
        this.stateLock = stateLock;
        this.actuator = actuator;
    }

    /** @return whether anybody listens (events are built only then) */
    boolean heard() {
        return !listeners.isEmpty() || !jobSetListeners.isEmpty();
    }

    /** @return a list for an operation's events, or one that drops them when no listener is registered */
    List<SchedulerEvent> eventList() {
        return heard() ? new ArrayList<>() : UNHEARD;
    }

    /**
     * Queues an operation's events and decisions (state lock held). The events list is handed over: one entry for the
     * whole list, not one per event (a round's hundreds of thousands of reasons cost one), so the caller must not
     * change it afterwards. @return the decisions' batch, or null when none
     */
    Outgoing publish(List<SchedulerEvent> events, List<Decision> decisions) {
        if (!events.isEmpty()) {
            queue.add(new Events(events));
        }
        if (decisions.isEmpty()) {
            return null;
        }
        Outgoing o = new Outgoing(List.copyOf(decisions));
        queue.add(o);
        return o;
    }

    /**
     * Delivers what is queued (state lock not held; while the calling thread still holds it this returns at once and
     * the outermost caller delivers). Rethrows what the actuator threw on this caller's own decisions.
     */
    void deliver(Outgoing mine) {
        if (stateLock.isHeldByCurrentThread()) {
            return;
        }
        deliveryLock.lock();
        try {
            Object o;
            while ((o = queue.poll()) != null) {
                if (o instanceof Events batch) {
                    for (SchedulerEvent e : batch.list()) {
                        dispatch(e);
                    }
                } else {
                    Outgoing out = (Outgoing) o;
                    try {
                        actuator.apply(out.decisions);
                    } catch (RuntimeException ex) {
                        out.failure = ex;
                        if (out.owner != Thread.currentThread()) {
                            LOG.warn("actuator failed on {} (reported to the caller that made them)", out.decisions, ex);
                        }
                    }
                }
            }
        } finally {
            deliveryLock.unlock();
        }
        if (mine != null && mine.failure != null) {
            throw mine.failure;
        }
    }

    private void dispatch(SchedulerEvent e) {
        for (SchedulerListener l : listeners) {
            safely(l, e);
        }
        if (e.jobSet() != null && !jobSetListeners.isEmpty()) { // no lookup (no hash of the name) when nobody listens so
            List<SchedulerListener> ls = jobSetListeners.get(e.jobSet());
            if (ls != null) {
                for (SchedulerListener l : ls) {
                    safely(l, e);
                }
            }
        }
    }

    private static void safely(SchedulerListener l, SchedulerEvent e) {
        try {
            l.onEvent(e);
        } catch (RuntimeException ex) {
            LOG.warn("listener {} failed on {}", l, e, ex);
        }
    }
}
