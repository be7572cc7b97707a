/** What the tracer asks of its sampler beyond the public interface. Not public API: may change in any release. */
@NullMarked
package io.github.trtrace.core.internal.sampling;

import org.jspecify.annotations.NullMarked;
