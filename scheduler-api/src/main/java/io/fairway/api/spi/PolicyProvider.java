package io.fairway.api.spi;

import java.util.Map;
import java.util.Set;

/**
 * Creates a {@link SchedulingPolicy} by name. Providers are found with {@link java.util.ServiceLoader}: list
 * the class in {@code META-INF/services/io.fairway.api.spi.PolicyProvider} (or {@code provides} it in
 * {@code module-info.java}) and put the jar on the class path.
 */
public interface PolicyProvider {
    /** @return the name users configure, e.g. {@code best-effort-fifo} */
    String name();

    /** @return one line on what the policy does */
    String description();

    /**
     * @param parameters configuration, by name; unknown names should be refused with an
     *     {@link io.fairway.api.InvalidSpecException} naming them
     * @return a new policy instance
     */
    SchedulingPolicy create(Map<String, String> parameters);

    /**
     * The parameter names {@link #create} accepts, so tools can list them (the command line's {@code policies}
     * command, its message for an unknown parameter). When the set is not empty, {@code io.fairway.core.Policies}
     * refuses any other name before calling {@link #create}, naming it and listing these. The default, an empty set,
     * declares nothing: the policy takes no parameters, or checks them itself in {@link #create}.
     *
     * @return the accepted parameter names (empty: none declared)
     */
    default Set<String> parameters() {
        return Set.of();
    }
}
