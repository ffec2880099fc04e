package io.fairway.api.job;

/**
 * How close together the GPUs of a placement are, best first: the slowest kind of link the gang must cross.
 */
public enum Locality {
    /** Every GPU in one NVLink/NVSwitch domain of one node (or a single GPU). */
    NVLINK_DOMAIN,
    /** One node, but crossing PCIe or the socket interconnect. */
    NODE,
    /** Several nodes of one rack (the narrowest topology level above the host). */
    RACK,
    /** Several racks. */
    CLUSTER
}
