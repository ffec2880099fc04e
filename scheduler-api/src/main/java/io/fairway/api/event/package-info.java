/** Events the scheduler emits, and the listener interface. */
package io.fairway.api.event;
