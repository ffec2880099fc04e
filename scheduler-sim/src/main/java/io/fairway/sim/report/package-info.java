/**
 * Outputs of a simulation: the text comparison table, metrics as JSON, the event log as JSON lines, and the
 * HTML report with XChart charts.
 */
package io.fairway.sim.report;
