package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable set of named resource quantities: {@code cpu}, {@code memory}, {@code nvidia.com/gpu} or any
 * extended resource.
 *
 * <p>Quantities are whole numbers in each resource's base unit: {@code cpu} in millicores, {@code memory}
 * in bytes, every other resource in units. {@link #parse(Map)} reads Kubernetes quantity strings
 * ({@code "500m"}, {@code "64Gi"}, {@code "8"}).
 *
 * <pre>{@code
 * Resources member = Resources.builder().cpu(8).memoryGiB(64).gpus(1).build();
 * Resources eight  = member.times(8);
 * boolean fits = eight.fitsIn(node.capacity());
 * }</pre>
 */
public final class Resources implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    /** CPU, in millicores. */
    public static final String CPU = "cpu";
    /** Memory, in bytes. */
    public static final String MEMORY = "memory";
    /** NVIDIA GPUs, in units. */
    public static final String GPU = "nvidia.com/gpu";

    /** No resources at all. */
    public static final Resources NONE = new Resources(new String[0], new long[0]);

    private final String[] names; // sorted, unique
    private final long[] amounts; // >= 0
    private final int hash;

    private Resources(String[] names, long[] amounts) {
        this.names = names;
        this.amounts = amounts;
        this.hash = 31 * Arrays.hashCode(names) + Arrays.hashCode(amounts);
    }

    /**
     * @param amounts resource name to quantity in base units; no quantity may be negative
     * @return the resources
     * @throws InvalidSpecException naming the resource and the value if a quantity is negative or a name blank
     */
    public static Resources of(Map<String, Long> amounts) {
        int size = amounts.size();
        if (size == 0) {
            return NONE;
        }
        String[] n = new String[size];
        long[] a = new long[size];
        int k = 0;
        for (Map.Entry<String, Long> e : amounts.entrySet()) {
            InvalidSpecException.requireName("resource name", e.getKey());
            Long v = e.getValue();
            if (v == null || v < 0) { // the field name is built only on failure
                InvalidSpecException.check(false, "resources." + e.getKey(), v, "resource %s: quantity must be >= 0, was %s", e.getKey(), v);
            }
            // insertion into name order: resource sets are small (a handful of names)
            int at = k;
            while (at > 0 && n[at - 1].compareTo(e.getKey()) > 0) {
                n[at] = n[at - 1];
                a[at] = a[at - 1];
                at--;
            }
            n[at] = e.getKey();
            a[at] = v;
            k++;
        }
        return new Resources(n, a);
    }

    /**
     * @param name a resource name
     * @param amount its quantity in base units
     * @return resources holding that one quantity
     */
    public static Resources of(String name, long amount) {
        return of(Map.of(name, amount));
    }

    /**
     * Reads Kubernetes quantity strings.
     *
     * @param quantities resource name to quantity string, e.g. {@code {"cpu": "500m", "memory": "64Gi"}}
     * @return the resources
     * @throws InvalidSpecException naming the resource and the string if one cannot be read
     */
    public static Resources parse(Map<String, String> quantities) {
        Map<String, Long> m = new LinkedHashMap<>();
        quantities.forEach((k, v) -> m.put(k, Quantities.parse(k, v)));
        return of(m);
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @param name a resource name
     * @return its quantity, 0 when absent
     */
    public long get(String name) {
        int i = Arrays.binarySearch(names, name);
        return i >= 0 ? amounts[i] : 0L;
    }

    /** @return the GPU count ({@link #GPU}) */
    public long gpus() {
        return get(GPU);
    }

    /**
     * For loops over the quantities without building a map: {@code for (int i = 0; i < r.size(); i++)} with
     * {@link #name(int)} and {@link #amount(int)}.
     *
     * @return how many resources are present (including those at zero)
     */
    public int size() {
        return names.length;
    }

    /**
     * @param i an index below {@link #size()}, in name order
     * @return the name of the {@code i}-th resource
     */
    public String name(int i) {
        return names[i];
    }

    /**
     * @param i an index below {@link #size()}, in name order
     * @return the quantity of the {@code i}-th resource
     */
    public long amount(int i) {
        return amounts[i];
    }

    /** @return the names of the resources present (including those at zero), sorted */
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(Arrays.asList(names)));
    }

    /** @return the quantities as an ordered map */
    public Map<String, Long> asMap() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            m.put(names[i], amounts[i]);
        }
        return Collections.unmodifiableMap(m);
    }

    /** @return true when every quantity is zero */
    public boolean isZero() {
        for (long a : amounts) {
            if (a != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param capacity what is available
     * @return true when every quantity here is at most the same quantity in {@code capacity}
     */
    public boolean fitsIn(Resources capacity) {
        for (int i = 0; i < names.length; i++) {
            if (amounts[i] > capacity.get(names[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param other resources to add
     * @return the sum
     */
    public Resources plus(Resources other) {
        return combine(other, 1);
    }

    /**
     * @param other resources to subtract
     * @return the difference, each quantity floored at zero
     */
    public Resources minus(Resources other) {
        return combine(other, -1);
    }

    /**
     * @param factor a non-negative multiplier
     * @return each quantity multiplied
     */
    public Resources times(long factor) {
        InvalidSpecException.check(factor >= 0, "factor", factor, "factor must be >= 0, was %d", factor);
        long[] a = new long[amounts.length];
        for (int i = 0; i < a.length; i++) {
            a[i] = Math.multiplyExact(amounts[i], factor);
        }
        return new Resources(names, a);
    }

    private Resources combine(Resources other, int sign) {
        if (other.names.length == 0) {
            return this;
        }
        TreeMap<String, Long> m = new TreeMap<>();
        for (int i = 0; i < names.length; i++) {
            m.put(names[i], amounts[i]);
        }
        for (int i = 0; i < other.names.length; i++) {
            long cur = m.getOrDefault(other.names[i], 0L);
            long v = sign > 0 ? Math.addExact(cur, other.amounts[i]) : Math.max(0, cur - other.amounts[i]);
            m.put(other.names[i], v);
        }
        String[] n = m.keySet().toArray(new String[0]);
        long[] a = new long[n.length];
        int i = 0;
        for (long v : m.values()) {
            a[i++] = v;
        }
        return new Resources(n, a);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Resources)) {
            return false;
        }
        Resources r = (Resources) o;
        return hash == r.hash && Arrays.equals(names, r.names) && Arrays.equals(amounts, r.amounts);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < names.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(names[i]).append('=').append(Quantities.format(names[i], amounts[i]));
        }
        return sb.append('}').toString();
    }

    /** Builds {@link Resources} from human units. */
    public static final class Builder {
        private final Map<String, Long> m = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * @param cores CPU cores (fractions allowed: 0.5 is 500 millicores)
         * @return this builder
         */
        public Builder cpu(double cores) {
            return put(CPU, Math.round(cores * 1000));
        }

        /**
         * @param gib memory in GiB
         * @return this builder
         */
        public Builder memoryGiB(double gib) {
            return put(MEMORY, Math.round(gib * (1L << 30)));
        }

        /**
         * @param count NVIDIA GPUs
         * @return this builder
         */
        public Builder gpus(long count) {
            return put(GPU, count);
        }

        /**
         * @param name any resource name
         * @param amount quantity in base units
         * @return this builder
         */
        public Builder put(String name, long amount) {
            m.put(name, amount);
            return this;
        }

        /** @return the resources; {@link InvalidSpecException} if a quantity is negative */
        public Resources build() {
            return of(m);
        }
    }
}
