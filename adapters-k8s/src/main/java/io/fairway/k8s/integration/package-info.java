/**
 * The integration SPI: how Fairway queues a Kubernetes kind ({@link io.fairway.k8s.integration.Integration}), found
 * with {@link java.util.ServiceLoader} and enabled by name ({@link io.fairway.k8s.integration.Integrations}).
 */
package io.fairway.k8s.integration;
