package io.fairway.core.placement;

import io.fairway.api.model.Resources;
import java.util.HashMap;
import java.util.Map;

/** Interns resource names to dense ints for one round, so capacity arithmetic works on long arrays. */
final class ResourceIndex {
    private final Map<String, Integer> ids = new HashMap<>();
    private String[] names = new String[8];
    final int gpu;

    ResourceIndex() {
        gpu = id(Resources.GPU);
    }

    /** @return a copy that interns names apart from this one */
    ResourceIndex copy() {
        ResourceIndex c = new ResourceIndex();
        for (int i = 0; i < size(); i++) {
            c.id(names[i]); // same ids in the same order (the GPU's is first in both)
        }
        return c;
    }

    int id(String name) {
        Integer i = ids.get(name);
        if (i != null) {
            return i;
        }
        int n = ids.size();
        if (n == names.length) {
            names = java.util.Arrays.copyOf(names, n * 2);
        }
        names[n] = name;
        ids.put(name, n);
        return n;
    }

    /** @return the id, or -1 when no node or quota ever named it */
    int find(String name) {
        Integer i = ids.get(name);
        return i == null ? -1 : i;
    }

    int size() {
        return ids.size();
    }

    String name(int id) {
        return names[id];
    }

    /** @return the vector of {@code r}, interning new names; sized to the current index */
    long[] vector(Resources r) {
        int n = r.size();
        for (int i = 0; i < n; i++) {
            id(r.name(i)); // every name first: the vector is as wide as the index with them
        }
        long[] v = new long[Math.max(size(), 1)];
        for (int i = 0; i < n; i++) {
            v[ids.get(r.name(i))] = r.amount(i); // read in place: no sorted copy of the names, no map of the amounts
        }
        return v;
    }
}
