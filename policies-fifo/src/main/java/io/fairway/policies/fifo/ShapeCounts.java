package io.fairway.policies.fifo;

import io.fairway.api.job.PendingReason;
import java.util.HashMap;
import java.util.Map;

/**
 * How many of a round's groups have a shape in each hash bucket: none, one, or more. A walk keeps the shapes found not
 * to fit in a map so that a later group of the same shape takes the answer without an attempt; a group whose shape is
 * alone in its bucket is the only group of that shape (equal shapes hash alike), so no other group can ever look its
 * answer up, and the walk neither looks it up nor keeps it. A deep queue of varied jobs is mostly such groups, for
 * which the map's lookup and insertion (one each per group and round) bought nothing.
 *
 * <p>Two bits per bucket; at least eight buckets per group, so about nine in ten unique shapes are alone in theirs. A shared bucket
 * only sends a group to the map, as before: the answers are the same either way. The walks keep their maps as
 * {@link FailedShapes}, which ask the counts themselves.
 */
final class ShapeCounts {
    private final long[] counts;
    private final int shift;

    /** @param groups how many shapes will be added (at most about; more only share buckets more often) */
    ShapeCounts(int groups) {
        int bits = Math.max(6, 32 - Integer.numberOfLeadingZeros(Math.max(1, groups) * 8 - 1)); // ≥ 8 buckets per group
        bits = Math.min(bits, 28);
        this.counts = new long[(1 << bits) >>> 5]; // 32 two-bit counters a word
        this.shift = 32 - bits;
    }

    /** @param shapeHash a group's shape's hash code */
    void add(int shapeHash) {
        int b = bucket(shapeHash);
        int word = b >>> 5;
        int at = (b & 31) << 1;
        if (((counts[word] >>> at) & 3) < 2) {
            counts[word] += 1L << at;
        }
    }

    /** @return true when more than one group's shape fell in this shape's bucket (the shape may be shared) */
    boolean shared(int shapeHash) {
        int b = bucket(shapeHash);
        return ((counts[b >>> 5] >>> ((b & 31) << 1)) & 3) >= 2;
    }

    private int bucket(int h) {
        return (h * 0x9E3779B9) >>> shift; // the top bits of a multiplicative hash
    }

    /** @return an empty map of a queue's shapes found not to fit, keeping only shapes these counts find shared */
    FailedShapes failedShapes() {
        return new FailedShapes(this);
    }

    /** A queue's shapes found not to fit this round, kept and looked up only where another group may share them. */
    static final class FailedShapes {
        private final ShapeCounts counts;
        private final Map<OrderedPolicy.Shape, PendingReason> failed = new HashMap<>();

        private FailedShapes(ShapeCounts counts) {
            this.counts = counts;
        }

        /**
         * @param at a cursor whose shape is hashed ({@link OrderedPolicy.Cursor#shapeIn})
         * @return the failure of its shape found earlier in the round, or null (its shape made only when it may be shared)
         */
        PendingReason get(OrderedPolicy.Cursor at) {
            return counts.shared(at.shapeHash) ? failed.get(at.shape()) : null;
        }

        /** Notes that the shape at a cursor did not fit (nothing to note, nor any shape made, for a shape no other group has). */
        void put(OrderedPolicy.Cursor at, PendingReason reason) {
            if (counts.shared(at.shapeHash)) {
                failed.put(at.shape(), reason);
            }
        }
    }
}
