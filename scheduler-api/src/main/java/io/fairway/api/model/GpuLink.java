package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;

/**
 * A link between two GPUs of one node. Links are undirected; the pair is stored with {@code a < b}.
 *
 * @param a one GPU index
 * @param b the other GPU index
 * @param kind the kind of link
 * @param bandwidthGBps its bandwidth in GB/s (the kind's default when given as 0)
 */
public record GpuLink(int a, int b, LinkKind kind, double bandwidthGBps) implements java.io.Serializable {
    /** Validates and normalises the pair order. */
    public GpuLink {
        InvalidSpecException.check(a != b, "link", a + "-" + b, "a GPU link must join two different GPUs, was %d-%d", a, b);
        InvalidSpecException.check(kind != null, "link.kind", null, "link %d-%d: kind is required", a, b);
        InvalidSpecException.check(bandwidthGBps >= 0 && Double.isFinite(bandwidthGBps), "link.bandwidthGBps", bandwidthGBps,
                "link %d-%d: bandwidth must be a finite number >= 0, was %s", a, b, bandwidthGBps);
        if (a > b) {
            int t = a;
            a = b;
            b = t;
        }
        if (bandwidthGBps == 0) {
            bandwidthGBps = kind.defaultBandwidthGBps();
        }
    }

    /**
     * @param a one GPU
     * @param b the other
     * @param kind the kind, with its default bandwidth
     * @return the link
     */
    public static GpuLink of(int a, int b, LinkKind kind) {
        return new GpuLink(a, b, kind, 0);
    }
}
