/**
 * Decisions a round produces, for an actuator to carry out: admit (with placement), preempt, resize,
 * provision, deprovision.
 */
package io.fairway.api.decision;
