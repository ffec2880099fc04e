/**
 * Fairway's public API: the error type shared by every validating factory.
 */
package io.fairway.api;
