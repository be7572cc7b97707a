/** The tracer engine: the trace and tracer implementations, the pooled record entry, the settings read from the environment and the factory the API's builder hands its settings to. Not public API: may change in any release. */
@NullMarked
package io.github.trtrace.core.internal.trace;

import org.jspecify.annotations.NullMarked;
