/**
 * The TensorRT transformer of the demo's GPU backend and the GPU check: the network, one request's
 * device state (KV cache, inputs, logits) and the roofline arithmetic that says whether its launches
 * were memory- or compute-bound.
 *
 * <pre>{@code
 * Roofline.Totals t = Roofline.of(config).decode(2048);   // bytes and FLOPs of one decode step
 * }</pre>
 */
@NullMarked
package io.github.trtrace.examples.tensorrt;

import org.jspecify.annotations.NullMarked;
