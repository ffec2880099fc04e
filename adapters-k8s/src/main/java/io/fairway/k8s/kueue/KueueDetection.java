package io.fairway.k8s.kueue;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds a running Kueue: its admission webhooks (a mutating or validating webhook configuration with a rule on the
 * {@value KueueApi#GROUP} group, whatever the configuration is named — the kustomize install and the Helm chart name
 * them differently) and its controller's leader-election Lease ({@value KueueApi#CONTROLLER_LEASE}, held and renewed
 * within the last {@link #LEASE_FRESH}). Fairway and Kueue must not both admit the same workloads and write the same
 * ClusterQueue status.
 */
public final class KueueDetection {
    /** A Lease renewed longer ago than this counts as a stopped controller. */
    public static final Duration LEASE_FRESH = Duration.ofMinutes(2);

    private KueueDetection() {
    }

    /**
     * @param client the client
     * @param kueueNamespace where Kueue's controller runs (its Lease's namespace)
     * @param now the current time
     * @return what shows that Kueue runs, one line each (empty: nothing found)
     */
    public static List<String> evidence(KubernetesClient client, String kueueNamespace, Instant now) {
        List<String> out = new ArrayList<>();
        for (MutatingWebhookConfiguration c : client.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems()) {
            for (MutatingWebhook w : c.getWebhooks() == null ? List.<MutatingWebhook>of() : c.getWebhooks()) {
                if (kueueRule(w.getRules())) {
                    out.add("MutatingWebhookConfiguration " + c.getMetadata().getName() + " (webhook " + w.getName() + " handles " + KueueApi.GROUP + ")");
                    break;
                }
            }
        }
        for (ValidatingWebhookConfiguration c : client.admissionRegistration().v1().validatingWebhookConfigurations().list().getItems()) {
            for (ValidatingWebhook w : c.getWebhooks() == null ? List.<ValidatingWebhook>of() : c.getWebhooks()) {
                if (kueueRule(w.getRules())) {
                    out.add("ValidatingWebhookConfiguration " + c.getMetadata().getName() + " (webhook " + w.getName() + " handles " + KueueApi.GROUP + ")");
                    break;
                }
            }
        }
        try {
            Lease l = client.leases().inNamespace(kueueNamespace).withName(KueueApi.CONTROLLER_LEASE).get();
            if (l != null && l.getSpec() != null && l.getSpec().getHolderIdentity() != null && !l.getSpec().getHolderIdentity().isBlank()
                    && l.getSpec().getRenewTime() != null && l.getSpec().getRenewTime().toInstant().isAfter(now.minus(LEASE_FRESH))) {
                out.add("Lease " + kueueNamespace + "/" + KueueApi.CONTROLLER_LEASE + " held by " + l.getSpec().getHolderIdentity() + ", renewed "
                        + l.getSpec().getRenewTime().toInstant());
            }
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404 && e.getCode() != 403) {
                throw e;
            }
        }
        return out;
    }

    /**
     * @param evidence what {@link #evidence} found (not empty)
     * @return the message Fairway refuses to start with
     */
    public static String refusal(List<String> evidence) {
        return "Kueue is running in this cluster: " + String.join("; ", evidence) + ". Fairway and Kueue would both admit the same workloads"
                + " and write the same ClusterQueue status. Stop Kueue's controller and remove its webhook configurations first (the guide"
                + " \"Switching from Kueue\" lists the steps), or start with --allow-kueue-controller to run beside it anyway.";
    }

    private static boolean kueueRule(List<RuleWithOperations> rules) {
        if (rules == null) {
            return false;
        }
        for (RuleWithOperations r : rules) {
            if (r.getApiGroups() != null && r.getApiGroups().contains(KueueApi.GROUP)) {
                return true;
            }
        }
        return false;
    }
}
