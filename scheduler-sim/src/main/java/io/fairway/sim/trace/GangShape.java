package io.fairway.sim.trace;

import io.fairway.api.InvalidSpecException;

/**
 * How a trace's GPU count becomes a gang: {@code g ≤ 8} GPUs run as one member of {@code g} GPUs; more run as
 * {@code m} members of {@code g/m} GPUs each, {@code m} being the smallest count ≥ ⌈g/8⌉ that divides
 * {@code g} exactly (16 → 2 × 8, 12 → 2 × 6, 24 → 3 × 8, 20 → 4 × 5). Every member fits an 8-GPU node and
 * the gang asks for exactly {@code g} GPUs.
 *
 * @param members the member count
 * @param gpusPerMember GPUs per member
 */
public record GangShape(int members, int gpusPerMember) {
    /** GPUs per node the rule assumes. */
    public static final int GPUS_PER_NODE = 8;

    /**
     * @param gpus the job's GPU count, ≥ 1
     * @return its gang shape
     */
    public static GangShape forGpus(long gpus) {
        InvalidSpecException.check(gpus >= 1 && gpus <= 1_000_000, "gpus", gpus, "GPU count must be in 1..1000000, was %d", gpus);
        int g = (int) gpus;
        if (g <= GPUS_PER_NODE) {
            return new GangShape(1, g);
        }
        int m = (g + GPUS_PER_NODE - 1) / GPUS_PER_NODE;
        while (g % m != 0) {
            m++;
        }
        return new GangShape(m, g / m);
    }
}
