package io.fairway.k8s.kueue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** A Kubernetes label selector ({@code matchLabels}, {@code matchExpressions}) evaluated as Kueue evaluates a ClusterQueue's namespaceSelector. */
final class Selectors {
    private Selectors() {
    }

    /**
     * @param selector the selector as JSON; absent or null selects nothing, {@code {}} everything
     * @param labels the labels to test
     * @return whether the selector selects them (an unknown operator selects nothing)
     */
    static boolean matches(JsonNode selector, Map<String, String> labels) {
        if (selector == null || selector.isNull() || selector.isMissingNode()) {
            return false;
        }
        for (var it = selector.path("matchLabels").fields(); it.hasNext();) {
            var e = it.next();
            if (!e.getValue().asText().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        for (JsonNode x : selector.path("matchExpressions")) {
            String key = x.path("key").asText();
            Set<String> values = new HashSet<>();
            x.path("values").forEach(v -> values.add(v.asText()));
            boolean has = labels.containsKey(key);
            boolean ok = switch (x.path("operator").asText()) {
                case "In" -> has && values.contains(labels.get(key));
                case "NotIn" -> !has || !values.contains(labels.get(key));
                case "Exists" -> has;
                case "DoesNotExist" -> !has;
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
