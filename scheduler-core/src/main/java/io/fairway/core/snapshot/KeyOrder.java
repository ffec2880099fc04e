package io.fairway.core.snapshot;

import java.util.Map;

/**
 * Maps of a round's input and of a saved state iterate in key order; this copies one so and refuses one that
 * claims an order it does not have.
 */
public final class KeyOrder {
    private KeyOrder() {
    }

    /**
     * A sorted, unmodifiable copy of a map keyed by name. A tree map read from bytes keeps its entries in the order
     * they were written, so one written out of key order would not find its own keys: such a map is refused, as
     * is a null key.
     *
     * @param field the field, for the error
     * @param m the map
     * @return the copy, in key order
     * @throws io.fairway.api.InvalidSpecException naming the field and the first key out of order
     */
    public static <V> java.util.SortedMap<String, V> copy(String field, Map<String, V> m) {
        io.fairway.api.InvalidSpecException.requireNonNull(field, m);
        java.util.TreeMap<String, V> copy = new java.util.TreeMap<>();
        String previous = null;
        boolean sorted = m instanceof java.util.SortedMap<String, V> sm && sm.comparator() == null;
        for (Map.Entry<String, V> e : m.entrySet()) {
            String k = e.getKey();
            if (k == null) {
                throw new io.fairway.api.InvalidSpecException(field, "null", field + " has a null key");
            }
            if (sorted && previous != null && previous.compareTo(k) >= 0) {
                throw new io.fairway.api.InvalidSpecException(field, k, field + " is not in key order: " + k + " comes after " + previous);
            }
            copy.put(k, e.getValue());
            previous = k;
        }
        return java.util.Collections.unmodifiableSortedMap(copy);
    }
}
