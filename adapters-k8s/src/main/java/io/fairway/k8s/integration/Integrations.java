package io.fairway.k8s.integration;

import io.fairway.api.InvalidSpecException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Finds {@link Integration}s on the class path through {@link ServiceLoader} and picks the enabled ones by name.
 *
 * <pre>{@code
 * Integrations.available().keySet();                       // [batch/v1.Job, jobset.x-k8s.io/v1alpha2.JobSet, ...]
 * List<Integration> on = Integrations.enabled(List.of("batch/v1.Job", "kubeflow.org/v1.PyTorchJob"));
 * }</pre>
 */
public final class Integrations {
    /** The integration enabled when the configuration names none: {@code batch/v1.Job}. */
    public static final List<String> DEFAULT = List.of("batch/v1.Job");
    /**
     * Enables the UnifiedJob controller ({@code io.fairway.k8s.unifiedjob}) beside the integrations: UnifiedJobs share
     * the engine, its quota and its nodes with the other kinds. Not an integration: {@link #enabled} skips it.
     */
    public static final String UNIFIED_JOB = "fairway.io/v1alpha1.UnifiedJob";
    /**
     * Enables the plain pod groups controller ({@code io.fairway.k8s.podgroup}) beside the integrations. Not an
     * integration: {@link #enabled} skips it.
     */
    public static final String POD_GROUPS = "pod-groups";
    /** The names that enable a controller beside the integrations rather than an integration. */
    public static final List<String> CONTROLLERS = List.of(UNIFIED_JOB, POD_GROUPS);

    private Integrations() {
    }

    /** @return every integration found, by name */
    public static Map<String, Integration> available() {
        Map<String, Integration> m = new TreeMap<>();
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        load(m, cl == null ? Integrations.class.getClassLoader() : cl);
        if (cl != Integrations.class.getClassLoader()) {
            load(m, Integrations.class.getClassLoader());
        }
        return m;
    }

    private static void load(Map<String, Integration> m, ClassLoader cl) {
        for (Integration i : ServiceLoader.load(Integration.class, cl)) {
            m.putIfAbsent(i.name(), i);
        }
    }

    /**
     * @param names the enabled names, in order (null or empty: {@link #DEFAULT})
     * @return the integrations, in that order
     * @throws InvalidSpecException naming the value and listing the known names when one is unknown, or when a name
     *     or a kind is given twice
     */
    public static List<Integration> enabled(List<String> names) {
        List<String> want = names == null || names.isEmpty() ? DEFAULT : names;
        Map<String, Integration> all = available();
        Map<String, Integration> out = new LinkedHashMap<>();
        Map<String, String> kinds = new TreeMap<>();
        for (String n : want) {
            if (CONTROLLERS.contains(n)) {
                continue;
            }
            Integration i = all.get(n);
            if (i == null) {
                throw new InvalidSpecException("integrations", n, "unknown integration \"" + n + "\"; known integrations: "
                        + String.join(", ", all.keySet()) + ", and the controllers " + String.join(", ", CONTROLLERS));
            }
            InvalidSpecException.check(out.put(n, i) == null, "integrations", n, "integration \"%s\" is enabled twice", n);
            String k = i.kind().name();
            String other = kinds.put(k, n);
            InvalidSpecException.check(other == null, "integrations", n, "integrations \"%s\" and \"%s\" both queue %s", other, n, k);
        }
        return new ArrayList<>(out.values());
    }
}
