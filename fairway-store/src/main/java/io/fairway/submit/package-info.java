/**
 * The submission API: job sets submitted, cancelled, reprioritised and watched over HTTP, with bearer-token (JWT)
 * authentication and per-queue permissions, in front of a {@link io.fairway.store.JobStore}. Embeddable: an
 * adapter (the multi-cluster manager) gives it the templates of its jobs and hears of each durable change.
 */
package io.fairway.submit;
