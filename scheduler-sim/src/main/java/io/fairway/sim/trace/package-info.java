/**
 * Trace readers: the Philly trace (Pollux artifact), the Tiresias simulator's CSV and Fairway's native CSV
 * ({@link io.fairway.sim.trace.TraceFormat}), with errors naming file and line
 * ({@link io.fairway.sim.trace.TraceFormatException}), and the rule that turns a GPU count into a gang
 * ({@link io.fairway.sim.trace.GangShape}).
 */
package io.fairway.sim.trace;
