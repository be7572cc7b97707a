/**
 * Spring Boot auto-configuration for trtrace: add {@code io.github.trtrace:trace-spring-boot-starter} and the
 * application gets an {@code InferenceTracer} configured by {@code trtrace.*} properties, the request-ID filter,
 * Micrometer meters, an Actuator health indicator and the {@code /actuator/trtrace} endpoint.
 *
 * <pre>{@code
 * # application.properties
 * trtrace.log.path=logs/inference.log
 * }</pre>
 */
@NullMarked
package io.github.trtrace.spring.boot;

import org.jspecify.annotations.NullMarked;
