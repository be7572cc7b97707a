/**
 * Which records to keep: failures always, slow requests (a fixed threshold or each model's adaptive
 * p99 over a sliding window), and a head-sampled share of the rest.
 *
 * <pre>{@code
 * Sampler sampler = Sampler.builder().rate(0.05).slowThreshold(Duration.ofSeconds(2)).build();
 * String reason = sampler.decide("llama-8b", Status.SUCCESS, 350.0); // null: sampled out
 * }</pre>
 */
@NullMarked
package io.github.trtrace.core.sampling;

import org.jspecify.annotations.NullMarked;
