/**
 * The policy SPI: {@link io.fairway.api.spi.SchedulingPolicy} and its {@link io.fairway.api.spi.PolicyProvider}
 * (found by {@link java.util.ServiceLoader}), the {@link io.fairway.api.spi.PolicyContext} through which the
 * engine offers its services, and the {@link io.fairway.api.spi.Actuator} that carries decisions out.
 */
package io.fairway.api.spi;
