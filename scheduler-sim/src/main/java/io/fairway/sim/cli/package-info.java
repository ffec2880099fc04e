/**
 * The {@code fairway} command line (picocli): {@code demo}, {@code simulate}, {@code policies}. The only
 * package that prints; everything else logs through SLF4J.
 */
package io.fairway.sim.cli;
