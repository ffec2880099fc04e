/**
 * The visibility API: a read-only JSON-over-HTTP view of one running {@code Scheduler} (cohorts and ClusterQueues
 * with usage against quota, pending jobs in the engine's order with reasons, running jobs down to GPU ids, nodes
 * with their NVLink domains, recent events, per-job-set streams), optional authenticated and audited writes, and
 * the web UI's static assets from {@code io/fairway/visibility/ui/}, all on one hardened HTTP server. The schema is
 * in {@code docs/reference/visibility-api.md}.
 */
package io.fairway.visibility;
