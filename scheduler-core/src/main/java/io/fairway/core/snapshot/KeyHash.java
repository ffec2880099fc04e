package io.fairway.core.snapshot;

/**
 * Hash codes for the engine's keys made of names, pod sets and numbers. A plain 31-based sum of the parts' hash codes
 * collides by structure: names like {@code cq-12} and {@code cq-18} differ by a multiple of 31, pod set lists by
 * small multiples of powers of 31, so at a million varied jobs about one key in ten shares its hash with another
 * (and a hash map compares those keys deeply, or chains them in one bucket). Mixing each part in through a
 * multiplication by the golden ratio and a shift leaves such keys as far apart as random ones.
 */
public final class KeyHash {
    private KeyHash() {
    }

    /**
     * @param h the hash so far
     * @param part the next part's hash code
     * @return the hash with the part mixed in
     */
    public static int with(int h, int part) {
        int x = (h ^ part) * 0x9E3779B9;
        return x ^ (x >>> 16);
    }
}
