/**
 * Robustness sweeps ({@code fairway sweep}): every policy on workloads drawn by seed — windows of a whole Philly trace at
 * several offered loads, with and without checkpoints, the Themis-like generator, fixed traces — one row per run, a
 * summary of one policy against the others with the verdicts on its targets, per job and per app, JSON and a plot.
 * {@link io.fairway.sim.sweep.SweepWorkloads} builds the workloads, {@link io.fairway.sim.sweep.Sweep} runs them on a thread
 * pool, {@link io.fairway.sim.sweep.SweepSummary} compares, {@link io.fairway.sim.sweep.SweepReport} writes.
 */
package io.fairway.sim.sweep;
