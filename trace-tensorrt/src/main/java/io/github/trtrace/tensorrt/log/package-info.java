/**
 * TensorRT logger bridge: classification, attribution to requests or build/engine scopes, redaction, rate limiting.
 *
 * <pre>{@code
 * TrtLogPipeline pipeline = TrtLogPipeline.builder().build(); pipeline.log(1, "Error Code 2: Internal Error (...)");
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.log;

import org.jspecify.annotations.NullMarked;
