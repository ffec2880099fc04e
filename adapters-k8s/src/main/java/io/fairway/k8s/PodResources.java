package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fairway.api.model.Quantities;
import io.fairway.api.model.Resources;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a pod asks for, the way the Kubernetes scheduler counts it: the sum of its containers' requests (a limit
 * without a request counts as the request, as the API server defaults it), at least the largest init container's,
 * restartable init containers (sidecars) added, plus the pod overhead.
 */
public final class PodResources {
    private PodResources() {
    }

    /**
     * @param spec a pod spec (a Job's pod template, or a pod's)
     * @return its effective requests, in the base units of {@link Resources}
     * @throws io.fairway.api.InvalidSpecException naming the resource when a quantity cannot be read
     */
    public static Resources of(PodSpec spec) {
        if (spec == null) {
            return Resources.NONE;
        }
        Map<String, Long> sum = new HashMap<>();
        for (Container c : list(spec.getContainers())) {
            add(sum, requests(c.getResources()));
        }
        Map<String, Long> sidecars = new HashMap<>();
        for (Container c : list(spec.getInitContainers())) {
            Map<String, Long> r = requests(c.getResources());
            if ("Always".equals(c.getRestartPolicy())) {
                add(sidecars, r);
                add(sum, r);
            } else {
                Map<String, Long> withSidecars = new HashMap<>(r);
                add(withSidecars, sidecars);
                withSidecars.forEach((k, v) -> sum.merge(k, v, Math::max));
            }
        }
        if (spec.getOverhead() != null) {
            add(sum, parse(spec.getOverhead()));
        }
        sum.values().removeIf(v -> v == 0);
        return Resources.of(sum);
    }

    /**
     * @param pod a pod
     * @return its effective requests
     */
    public static Resources of(Pod pod) {
        return of(pod.getSpec());
    }

    /**
     * @param q a fabric8 quantity
     * @param resource the resource it measures
     * @return the quantity in base units
     */
    public static long amount(String resource, Quantity q) {
        return Quantities.parse(resource, q.getAmount() + (q.getFormat() == null ? "" : q.getFormat()));
    }

    private static Map<String, Long> requests(ResourceRequirements rr) {
        Map<String, Long> m = new HashMap<>();
        if (rr == null) {
            return m;
        }
        if (rr.getLimits() != null) {
            m.putAll(parse(rr.getLimits()));
        }
        if (rr.getRequests() != null) {
            m.putAll(parse(rr.getRequests()));
        }
        return m;
    }

    static Map<String, Long> parse(Map<String, Quantity> quantities) {
        Map<String, Long> m = new HashMap<>();
        quantities.forEach((k, v) -> {
            if (v != null) {
                m.put(k, amount(k, v));
            }
        });
        return m;
    }

    private static void add(Map<String, Long> into, Map<String, Long> more) {
        more.forEach((k, v) -> into.merge(k, v, Long::sum));
    }

    private static <T> List<T> list(List<T> l) {
        return l == null ? List.of() : l;
    }
}
