/**
 * The mutating admission webhook that gates the pods Fairway queues (as Kueue's does): {@link io.fairway.k8s.webhook.PodGateWebhook}
 * decides each AdmissionReview; {@link io.fairway.k8s.webhook.WebhookServer} serves it over TLS with a certificate read
 * from a mounted Secret.
 */
package io.fairway.k8s.webhook;
