/**
 * Themis finish-time-fair scheduling (Mahajan et al., NSDI 2020): per-app estimates of ρ = T_shared ÷ T_id, leases,
 * the fairness knob f and partial allocation auctions with placement-aware bids. Found by
 * {@link java.util.ServiceLoader} as the policy {@code themis} ({@link io.fairway.policies.themis.ThemisProvider}).
 */
package io.fairway.policies.themis;
