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

    /**
     * The largest quantity accepted, in base units: 2<sup>53</sup> (9,007,199,254,740,992 — 8 PiB of memory, about
     * 9 × 10<sup>12</sup> cores). Larger (or non-finite) quantities are refused; 1,000 quantities at this bound still
     * add up without overflowing a {@code long}, and every whole number up to it is exact as a {@code double}.
     */
    public static final long MAX_QUANTITY = 1L << 53;

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
     * @param amounts resource name to quantity in base units; no quantity may be negative or above {@link #MAX_QUANTITY}
     * @return the resources
     * @throws InvalidSpecException naming the resource and the value if a quantity is negative or too large, or a
     *     name blank
     */
    public static Resources of(Map<String, Long> amounts) {
        if (amounts == null) {
            throw new InvalidSpecException("resources", null, "resources must not be null");
        }
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
            if (v == null || v < 0 || v > MAX_QUANTITY) { // the field name is built only on failure
                InvalidSpecException.check(v != null && v >= 0, "resources." + e.getKey(), v, "resource %s: quantity must be >= 0, was %s", e.getKey(), v);
                InvalidSpecException.check(false, "resources." + e.getKey(), v, "resource %s: quantity %s is too large (at most %d)", e.getKey(), v,
                        MAX_QUANTITY);
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
     * @throws InvalidSpecException when the factor is negative or a product would exceed {@link #MAX_QUANTITY}
     */
    public Resources times(long factor) {
        InvalidSpecException.check(factor >= 0, "factor", factor, "factor must be >= 0, was %d", factor);
        long[] a = new long[amounts.length];
        for (int i = 0; i < a.length; i++) {
            if (factor > 0 && amounts[i] > MAX_QUANTITY / factor) {
                throw new InvalidSpecException("resources." + names[i], factor, String.format("resource %s: %d × %d is more than the largest "
                        + "quantity %d", names[i], factor, amounts[i], MAX_QUANTITY));
            }
            a[i] = amounts[i] * factor;
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

    /**
     * Deserialisation bypasses the factory: the arrays read are checked as {@link #of} checks them (names unique and
     * non-blank, quantities 0..{@link #MAX_QUANTITY}) and put back in name order with a fresh hash.
     *
     * @return the validated resources
     * @throws java.io.InvalidObjectException naming what is wrong
     */
    private Object readResolve() throws java.io.ObjectStreamException {
        if (names == null || amounts == null || names.length != amounts.length) {
            throw new java.io.InvalidObjectException("resources: names and quantities do not match");
        }
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            if (m.put(names[i], amounts[i]) != null) {
                throw new java.io.InvalidObjectException("resources: " + names[i] + " appears twice");
            }
        }
        try {
            return of(m);
        } catch (InvalidSpecException e) {
            throw new java.io.InvalidObjectException(e.getMessage());
        }
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
            return put(CPU, Math.round(checkHuman(CPU, "cores", cores, MAX_QUANTITY / 1000.0) * 1000));
        }

        /**
         * @param gib memory in GiB
         * @return this builder
         */
        public Builder memoryGiB(double gib) {
            return put(MEMORY, Math.round(checkHuman(MEMORY, "GiB", gib, (double) (MAX_QUANTITY >> 30)) * (1L << 30)));
        }

        /** Refuses NaN, infinities, negative and too large amounts in human units, quoting the value as given. */
        private static double checkHuman(String resource, String unit, double value, double max) {
            if (!(value >= 0 && value <= max)) { // NaN fails both comparisons
                throw new InvalidSpecException("resources." + resource, value, String.format(
                        "resource %s: %s %s is out of range (a finite number from 0 to %s %s)", resource, value, unit,
                        new java.math.BigDecimal(max).stripTrailingZeros().toPlainString(), unit));
            }
            return value;
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

        /** @return the resources; {@link InvalidSpecException} if a quantity is negative or above {@link #MAX_QUANTITY} */
        public Resources build() {
            return of(m);
        }
    }
}
