package io.fairway.sim.config;

/**
 * A cluster, queues or scenario file that cannot be used: the message starts with {@code file:line:column:}
 * when the place is known, and names the field and the value.
 *
 * <pre>
 * queues.yaml:12:7: clusterQueues[0].resourceGroups[0]: flavor default: no quota for covered resource memory
 * </pre>
 */
public class SimulationConfigException extends io.fairway.config.ConfigException {
    private static final long serialVersionUID = 1L;

    /**
     * @param file the file (or resource) name
     * @param line the 1-based line, or 0 when unknown
     * @param column the 1-based column, or 0 when unknown
     * @param message what is wrong
     * @param cause the underlying error, or null
     */
    public SimulationConfigException(String file, int line, int column, String message, Throwable cause) {
        super(file, line, column, message, cause);
    }

    /** @param e the configuration module's error, as the simulator's */
    SimulationConfigException(io.fairway.config.ConfigException e) {
        super(e);
    }
}
