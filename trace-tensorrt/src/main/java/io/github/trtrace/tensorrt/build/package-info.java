/**
 * Build reports: inspector analysis, fusion and precision queries, diffs, CI gates and failure diagnosis.
 *
 * <pre>{@code
 * BuildGate.builder().maxFusionRateDrop(0.02).build().assertPasses(current, baseline);
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.build;

import org.jspecify.annotations.NullMarked;
