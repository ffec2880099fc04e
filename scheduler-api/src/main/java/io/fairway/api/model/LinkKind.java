package io.fairway.api.model;

/**
 * The kind of a link between two GPUs of one node, best first. The names follow {@code nvidia-smi topo -m}:
 * NVSwitch and NVLink are direct GPU-to-GPU fabrics; {@link #PCIE_SWITCH} is PIX (same PCIe switch),
 * {@link #PCIE_HOST_BRIDGE} is PHB (same CPU root complex), {@link #SOCKET_INTERCONNECT} is SYS (across
 * CPU sockets, over QPI/UPI).
 */
public enum LinkKind {
    /** All-to-all NVSwitch fabric (DGX A100/H100). */
    NVSWITCH(900),
    /** A direct NVLink connection (DGX-1 hybrid cube-mesh). */
    NVLINK(50),
    /** Both GPUs below one PCIe switch. */
    PCIE_SWITCH(32),
    /** Both GPUs below one CPU's PCIe host bridge. */
    PCIE_HOST_BRIDGE(16),
    /** GPUs on different CPU sockets. */
    SOCKET_INTERCONNECT(10);

    private final double defaultBandwidthGBps;

    LinkKind(double defaultBandwidthGBps) {
        this.defaultBandwidthGBps = defaultBandwidthGBps;
    }

    /** @return a typical unidirectional bandwidth in GB/s, used when a link states none */
    public double defaultBandwidthGBps() {
        return defaultBandwidthGBps;
    }

    /** @return true for NVLink and NVSwitch: the GPUs share an NVLink domain */
    public boolean isNvlink() {
        return this == NVSWITCH || this == NVLINK;
    }
}
