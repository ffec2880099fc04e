/**
 * Jobs: gangs of pod sets, their topology requests, placement sensitivity and checkpointing, their life-cycle
 * states and pending reasons.
 */
package io.fairway.api.job;
