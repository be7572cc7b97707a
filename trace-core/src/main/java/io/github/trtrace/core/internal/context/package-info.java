/** The tracer's allocation-free way into the context storage. Not public API: may change in any release. */
@NullMarked
package io.github.trtrace.core.internal.context;

import org.jspecify.annotations.NullMarked;
