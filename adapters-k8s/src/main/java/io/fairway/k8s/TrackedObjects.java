package io.fairway.k8s;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry of the objects the engine knows ({@link TrackedObject}), by Kubernetes uid and by engine job id, in the
 * order they were first seen. The adapter's only place to add, find and forget them; used on the reconcile thread,
 * under the adapter's lock.
 */
final class TrackedObjects {
    private final Map<String, TrackedObject> byUid = new LinkedHashMap<>();
    private final Map<String, TrackedObject> byId = new HashMap<>();

    /** @param t an object the engine now knows (its uid and id are not tracked yet) */
    void add(TrackedObject t) {
        byUid.put(t.uid, t);
        byId.put(t.id, t);
    }

    /** @param t an object the engine forgot */
    void remove(TrackedObject t) {
        byUid.remove(t.uid);
        byId.remove(t.id);
    }

    /** @param uid a Kubernetes uid @return the tracked object, or null */
    TrackedObject byUid(String uid) {
        return byUid.get(uid);
    }

    /** @param id an engine job id @return the tracked object, or null */
    TrackedObject byId(String id) {
        return byId.get(id);
    }

    /** @param id an engine job id @return whether an object has it */
    boolean hasId(String id) {
        return byId.containsKey(id);
    }

    /** @return every tracked object, in the order first seen (a live view: do not add or remove while iterating) */
    Iterable<TrackedObject> all() {
        return byUid.values();
    }

    /** @return a copy of every tracked object, in the order first seen (safe to remove from while iterating it) */
    List<TrackedObject> snapshot() {
        return new ArrayList<>(byUid.values());
    }

    /** Forgets every object (the engine is rebuilt). */
    void clear() {
        byUid.clear();
        byId.clear();
    }
}
